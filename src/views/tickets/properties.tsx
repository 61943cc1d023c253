import { h, queueName, When } from '../format.js';
import { statusText } from './statusColors.js';
import type { TicketPageProps } from './pageProps.js';
import { SlaClocks } from './sla.js';
import { SnoozeBox } from './snooze.js';
import { RATING_LABEL } from '../csat.js';
import { TimeWorkedBox } from './timeWorked.js';

// The ticket page's properties panel: each property a small form of its own, PATCHed on change.

/** One inline-editable property: a form of its own, PATCHed on change (one transaction). */
function Prop({ id, name, label, children }: { id: number; name: string; label: string; children: unknown }) {
  return (
    <form
      class="prop"
      method="post"
      action={`/tickets/${id}`}
      hx-patch={`/tickets/${id}`}
      hx-trigger="change"
      hx-target="#properties"
      hx-swap="outerHTML"
      data-error-target={`#err-${name.replace('.', '-')}`}
    >
      <input type="hidden" name="_method" value="PATCH" />
      <label for={`prop-${name}`}>{label}</label>
      {children}
      <noscript>
        <button type="submit">Save</button>
      </noscript>
      <div class="field-error" id={`err-${name.replace('.', '-')}`} role="alert"></div>
    </form>
  );
}

/** A select's options (the staff, the queues…: hundreds on a big install) as `h` parts (decision 086). */
const options = (items: [string, string][], value: string) =>
  items.map(([v, t]) => h`<option value="${v}"${v === value ? SELECTED : ''}>${t}</option>`);
const SELECTED = h` selected=""`;

/** One-click triage (SPEC C4): Take (owner := me) and Resolve, each a PATCH like any property. */
function QuickActions({ p }: { p: TicketPageProps }) {
  const t = p.ticket;
  const quick = (field: string, value: string, text: string) => (
    <form
      method="post"
      action={`/tickets/${t.id}`}
      hx-patch={`/tickets/${t.id}`}
      hx-target="#properties"
      hx-swap="outerHTML"
      data-error-target="#err-quick"
    >
      <input type="hidden" name="_method" value="PATCH" />
      <input type="hidden" name={field} value={value} />
      <button type="submit">{text}</button>
    </form>
  );
  const take = t.owner_id !== p.actorId;
  // SPEC D3: Resolve goes to the lifecycle's first allowed inactive status (RT's default: resolved).
  const resolve = p.resolveTo;
  if (!take && !resolve) return null;
  return (
    <div class="quick-actions">
      {take && quick('owner_id', String(p.actorId), 'Take')}
      {resolve && quick('status', resolve, 'Resolve')}
      <div class="field-error" id="err-quick" role="alert"></div>
    </div>
  );
}

export function Properties({ p, oob }: { p: TicketPageProps; oob?: boolean }) {
  const { ticket: t, lookups: l } = p;
  const staffUsers = l.users.filter((u) => u.role !== 'requester' && (!u.disabled || u.id === t.owner_id));
  if (!p.staff) {
    return (
      <aside id="properties" class="properties" hx-swap-oob={oob ? 'true' : undefined}>
        <dl>
          <dt>Status</dt>
          <dd>{statusText(t.status)}</dd>
          <dt>Queue</dt>
          <dd>{queueName(l, t.queue_id)}</dd>
          <dt>Created</dt>
          <dd>
            <When iso={t.created_at} />
          </dd>
        </dl>
      </aside>
    );
  }
  return (
    <aside id="properties" class="properties" aria-label="Ticket properties" hx-swap-oob={oob ? 'true' : undefined}>
      <QuickActions p={p} />
      <SlaClocks sla={t.sla} policies={l.slaPolicies} />
      <SnoozeBox t={t} />
      <Prop id={t.id} name="status" label="Status">
        <select id="prop-status" name="status">
          {options(
            p.statuses.map((s) => [s, statusText(s)]),
            t.status,
          )}
        </select>
      </Prop>
      <Prop id={t.id} name="queue_id" label="Queue">
        <select id="prop-queue_id" name="queue_id">
          {options(
            l.queues.map((q) => [String(q.id), q.name]),
            String(t.queue_id),
          )}
        </select>
      </Prop>
      <Prop id={t.id} name="owner_id" label="Owner">
        <select id="prop-owner_id" name="owner_id">
          {options(
            [['', 'Unassigned'], ...staffUsers.map((u): [string, string] => [String(u.id), u.name || u.email])],
            String(t.owner_id ?? ''),
          )}
        </select>
      </Prop>
      <Prop id={t.id} name="team_id" label="Team">
        <select id="prop-team_id" name="team_id">
          {options(
            [['', 'No team'], ...l.teams.map((x): [string, string] => [String(x.id), x.name])],
            String(t.team_id ?? ''),
          )}
        </select>
      </Prop>
      <Prop id={t.id} name="priority" label="Priority">
        <input id="prop-priority" name="priority" type="number" min="0" max="100" value={String(t.priority)} />
      </Prop>
      {p.fields.map((f) => (
        <Prop id={t.id} name={`custom_fields.${f.key}`} label={f.name}>
          {f.type === 'select' ? (
            <select id={`prop-custom_fields.${f.key}`} name={`custom_fields.${f.key}`}>
              {options(
                [['', '—'], ...f.options.map((o): [string, string] => [o, o])],
                String(t.custom_fields[f.key] ?? ''),
              )}
            </select>
          ) : (
            <input
              id={`prop-custom_fields.${f.key}`}
              name={`custom_fields.${f.key}`}
              value={String(t.custom_fields[f.key] ?? '')}
              type={f.type === 'number' ? 'number' : f.type === 'date' ? 'date' : 'text'}
              step={f.type === 'number' ? 'any' : undefined}
            />
          )}
          {f.pattern && (
            <small class="hint">
              Format: <code>{f.pattern}</code>
            </small>
          )}
        </Prop>
      ))}
      <div class="prop muted">
        <span class="label">Created</span> <When iso={t.created_at} />
      </div>
      <div class="prop muted">
        <span class="label">Updated</span> <When iso={t.updated_at} />
      </div>
      {t.resolved_at && (
        <div class="prop muted">
          <span class="label">Resolved</span> <When iso={t.resolved_at} />
        </div>
      )}
      {t.csat && (
        // SPEC D4 (decision 082): the requester's current rating; its comment is in the history's Rating entry.
        <div class="prop muted">
          <span class="label">Rating</span> <strong>{RATING_LABEL[t.csat.rating]}</strong>{' '}
          <When iso={t.csat.rated_at} />
        </div>
      )}
      <TimeWorkedBox p={p} />
    </aside>
  );
}
