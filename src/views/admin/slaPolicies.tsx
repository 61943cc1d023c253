import type { Lookups } from '../../domain/lookups.js';
import type { CalendarJson } from '../../domain/time/calendars.js';
import type { PolicyPreview, SlaPolicy } from '../../domain/time/slaPolicies.js';
import { exactTime, queueName, TimeZone } from '../format.js';
import { useContext } from 'hono/jsx';
import { AdminForm, AdminFrame, Area, Choice, Text, Wide } from './common.js';

// SPEC D2 SLA policies in the admin area (decision 068): the list in matching order and a
// policy's form (match, calendar, the three targets, the warning).

/** "4 h", "1 h 30 min", "2 d" (24-hour days of business time are rare: minutes past a day say hours). */
export function minutesText(min: number | null): string {
  if (min == null) return '—';
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  return `${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** What a match says in words: "Queues Support, Sales; priority 50–100; plan = gold" or "Every ticket". */
export function matchText(p: SlaPolicy, l: Lookups): string {
  const m = p.match;
  const parts: string[] = [];
  if (m.queue_ids?.length)
    parts.push(
      `${m.queue_ids.length === 1 ? 'Queue' : 'Queues'} ${m.queue_ids.map((id) => queueName(l, id)).join(', ')}`,
    );
  if (m.priority_min !== undefined || m.priority_max !== undefined) {
    parts.push(`priority ${m.priority_min ?? 0}–${m.priority_max ?? 100}`);
  }
  for (const [k, v] of Object.entries(m.cf ?? {})) parts.push(`${k} = ${v}`);
  return parts.join('; ') || 'Every ticket';
}

const calendarName = (cals: CalendarJson[], id: number | null) =>
  id == null ? 'Around the clock' : (cals.find((c) => c.id === id)?.name ?? `Calendar ${id}`);

function PolicyFields({
  id,
  action,
  p,
  calendars,
  l,
}: {
  id: string;
  action: string;
  p?: SlaPolicy;
  calendars: CalendarJson[];
  l: Lookups;
}) {
  return (
    <AdminForm action={action} method={p ? 'PATCH' : 'POST'} id={id}>
      <Text name="name" label="Name" value={p?.name} required />
      <Text
        name="position"
        label="Position"
        type="number"
        value={p?.position}
        hint="Lower first: the first policy whose match fits a ticket applies. Empty: after the others."
      />
      <fieldset class="checks">
        <legend>Queues (none checked = every queue)</legend>
        <input type="hidden" name="match.queue_ids" value="" />
        {l.queues.map((q) => (
          <label class="checkbox">
            <input
              type="checkbox"
              name="match.queue_ids"
              value={String(q.id)}
              checked={p?.match.queue_ids?.includes(q.id)}
            />{' '}
            {q.name}
          </label>
        ))}
      </fieldset>
      <Text name="match.priority_min" label="Lowest priority (0–100)" type="number" value={p?.match.priority_min} />
      <Text name="match.priority_max" label="Highest priority (0–100)" type="number" value={p?.match.priority_max} />
      <Area
        name="match.cf"
        label="Custom fields (JSON)"
        value={p?.match.cf && Object.keys(p.match.cf).length ? JSON.stringify(p.match.cf) : ''}
        rows={2}
        hint='Each must be equal, e.g. {"plan": "gold"}; empty: any.'
      />
      <Choice
        name="calendar_id"
        label="Calendar"
        value={p?.calendar_id ?? ''}
        options={[['', 'Around the clock'], ...calendars.map((c): [string, string] => [String(c.id), c.name])]}
      />
      <Text
        name="first_response_minutes"
        label="First response (business minutes)"
        type="number"
        value={p?.first_response_minutes}
        hint="Empty: no such clock."
      />
      <Text
        name="next_response_minutes"
        label="Next response (business minutes)"
        type="number"
        value={p?.next_response_minutes}
      />
      <Text
        name="resolution_minutes"
        label="Resolution (business minutes)"
        type="number"
        value={p?.resolution_minutes}
      />
      <Text
        name="warn_before_minutes"
        label="Warn this many minutes before a due time"
        type="number"
        value={p?.warn_before_minutes ?? 0}
      />
      <button type="submit" class="primary">
        {p ? 'Save' : 'Create policy'}
      </button>
    </AdminForm>
  );
}

export function SlaPoliciesPage({
  policies,
  calendars,
  lookups: l,
}: {
  policies: SlaPolicy[];
  calendars: CalendarJson[];
  lookups: Lookups;
}) {
  return (
    <AdminFrame current="/sla-policies" title="SLA policies">
      <p class="muted">
        The first policy (by position) whose match fits a ticket sets its clocks, when it is created and again when its
        queue, priority or custom fields change.
      </p>
      <div class="admin-grid">
        <Wide label="SLA policies">
          <table class="plain">
            <thead>
              <tr>
                <th>Position</th>
                <th>Policy</th>
                <th>Applies to</th>
                <th>Calendar</th>
                <th>First response</th>
                <th>Next response</th>
                <th>Resolution</th>
              </tr>
            </thead>
            <tbody>
              {policies.map((p) => (
                <tr>
                  <td>{p.position}</td>
                  <td>
                    <a href={`/sla-policies/${p.id}`}>{p.name}</a>
                  </td>
                  <td>{matchText(p, l)}</td>
                  <td>{calendarName(calendars, p.calendar_id)}</td>
                  <td>{minutesText(p.first_response_minutes)}</td>
                  <td>{minutesText(p.next_response_minutes)}</td>
                  <td>{minutesText(p.resolution_minutes)}</td>
                </tr>
              ))}
              {policies.length === 0 && (
                <tr>
                  <td colspan={7}>No SLA policies yet: tickets have no clocks.</td>
                </tr>
              )}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New SLA policy</h2>
          <PolicyFields id="new-policy" action="/sla-policies" calendars={calendars} l={l} />
        </div>
      </div>
    </AdminFrame>
  );
}

const CLOCK_LABEL = { first_response: 'First response', next_response: 'Next response', resolution: 'Resolution' };

/** When the targets would fall due for a ticket that came in now: in the calendar's zone, else the reader's. */
function Preview({ preview }: { preview: PolicyPreview }) {
  const zone = preview.time_zone ?? useContext(TimeZone);
  if (preview.due.length === 0) return <p class="muted">This policy has no targets: its tickets get no clocks.</p>;
  return (
    <>
      <h2>A ticket that came in now</h2>
      <p class="muted">
        Now is <time datetime={preview.start}>{exactTime(preview.start, zone)}</time>.
      </p>
      <dl class="policy-preview">
        {preview.due.map((d) => (
          <>
            <dt>
              {CLOCK_LABEL[d.clock]} ({minutesText(d.minutes)})
            </dt>
            <dd>
              due <time datetime={d.due_at}>{exactTime(d.due_at, zone)}</time>
            </dd>
          </>
        ))}
      </dl>
    </>
  );
}

export function SlaPolicyPage({
  policy: p,
  preview,
  calendars,
  lookups: l,
}: {
  policy: SlaPolicy;
  preview: PolicyPreview;
  calendars: CalendarJson[];
  lookups: Lookups;
}) {
  return (
    <AdminFrame current="/sla-policies" title={`SLA policy ${p.name}`}>
      <div class="admin-grid">
        <div class="card">
          <PolicyFields id="edit-policy" action={`/sla-policies/${p.id}`} p={p} calendars={calendars} l={l} />
        </div>
        <div class="card">
          <p class="applies">
            Applies to: {matchText(p, l)}. Counts in: {calendarName(calendars, p.calendar_id)}
            {p.calendar_id != null && (
              <>
                {' '}
                (<a href={`/calendars/${p.calendar_id}`}>explain a due time</a>)
              </>
            )}
            .
          </p>
          <Preview preview={preview} />
          <AdminForm
            action={`/sla-policies/${p.id}`}
            method="DELETE"
            id="delete-policy"
            confirm={`Delete SLA policy ${p.name}?`}
          >
            <button type="submit" class="danger">
              Delete policy
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}
