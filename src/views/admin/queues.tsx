import type { Lookups } from '../../domain/lookups.js';
import type { QueueJson } from '../../domain/queues.js';
import { teamName } from '../format.js';
import { AdminForm, AdminFrame, Wide, Area, Check, Choice, Text } from './common.js';

// The queues admin pages (SPEC A, B): the list, a queue's settings.

const teamOptions = (l: Lookups): [string, string][] => [
  ['', 'No team'],
  ...l.teams.map((t): [string, string] => [String(t.id), t.name]),
];

export function QueuesPage({ queues, lookups: l }: { queues: QueueJson[]; lookups: Lookups }) {
  return (
    <AdminFrame current="/queues" title="Queues">
      <div class="admin-grid">
        <Wide label="Queues">
          <table class="plain">
            <thead>
              <tr>
                <th>Queue</th>
                <th>Mail alias</th>
                <th>Default team</th>
              </tr>
            </thead>
            <tbody>
              {queues.map((q) => (
                <tr>
                  <td>
                    <a href={`/queues/${q.id}`}>{q.name}</a>
                  </td>
                  <td>{q.mail_alias ?? '—'}</td>
                  <td>{teamName(l, q.team_id, '—')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New queue</h2>
          <QueueFields id="new-queue" action="/queues" l={l} />
        </div>
      </div>
    </AdminFrame>
  );
}

/** The people of a queue role as the form shows them: their addresses, comma-separated. */
const addresses = (l: Lookups, ids: number[] | undefined) =>
  (ids ?? []).map((id) => l.users.find((u) => u.id === id)?.email ?? String(id)).join(', ');

const QUEUE_SIGNATURE_HINT =
  "Liquid, added after the writer's own signature to every public reply staff write in this queue: " +
  '{{ queue.name }}, {{ queue.mail_alias }}, {{ user.name }}, {{ user.email }}, {{ ticket.id }}, {{ ticket.subject }}.';

/** SPEC D3: the lifecycles a queue may use (by id and name). */
type LifecycleChoice = { id: number; name: string };

function QueueFields({
  id,
  action,
  l,
  q,
  lifecycles = [],
}: {
  id: string;
  action: string;
  l: Lookups;
  q?: QueueJson;
  lifecycles?: LifecycleChoice[];
}) {
  return (
    <AdminForm action={action} method={q ? 'PATCH' : 'POST'} id={id}>
      <Text name="name" label="Name" value={q?.name} required />
      <Text name="description" label="Description" value={q?.description} />
      <Text
        name="mail_alias"
        label="Mail alias"
        type="email"
        value={q?.mail_alias}
        hint="Mail to this address opens tickets in this queue."
      />
      <Choice name="team_id" label="Default team for new tickets" value={q?.team_id} options={teamOptions(l)} />
      <Choice
        name="lifecycle_id"
        label="Lifecycle (its statuses and transitions)"
        value={q?.lifecycle_id ?? ''}
        options={[
          ['', 'Default (new, open, stalled, resolved, rejected, deleted)'],
          ...lifecycles.map((c): [string, string] => [String(c.id), c.name]),
        ]}
      />
      <Check
        name="keep_mail_cc"
        label="People in To/Cc of new mail become Cc of its ticket"
        checked={q?.keep_mail_cc ?? true}
      />
      <Check
        name="portal_create"
        label="Customers may open new requests in this queue from the portal"
        checked={q?.portal_create ?? false}
      />
      <Check
        name="csat_enabled"
        label="Ask requesters to rate the answer in the Resolved mail"
        checked={q?.csat_enabled ?? false}
      />
      <Text
        name="mail_cc_per_message"
        label="Most new Cc people from one message (1–10)"
        type="number"
        value={q?.mail_cc_per_message ?? 10}
        required
      />
      <Text
        name="mail_cc_per_ticket"
        label="Most Cc people a ticket gets from mail (1–20)"
        type="number"
        value={q?.mail_cc_per_ticket ?? 20}
        required
        hint="Past these, the people are listed on the ticket as not added, for staff to add with one click."
      />
      <Text
        name="cc"
        label="Cc (watch every ticket: get public replies)"
        value={addresses(l, q?.cc)}
        placeholder="ann@example.com, 7"
        hint="Addresses or user ids, comma-separated; unknown addresses become requester accounts."
      />
      <Text
        name="admin_cc"
        label="AdminCc (staff: new tickets, replies and internal notes)"
        value={addresses(l, q?.admin_cc)}
        placeholder="agent@example.com"
        hint="Agents or administrators, comma-separated."
      />
      {/* The hint stays outside the label: its variable names would make the field's accessible name. */}
      <Area name="signature" label="Queue signature" value={q?.signature} rows={3} />
      <small class="hint">{QUEUE_SIGNATURE_HINT}</small>
      <button type="submit" class="primary">
        {q ? 'Save' : 'Create queue'}
      </button>
    </AdminForm>
  );
}

export function QueuePage({
  queue: q,
  lookups: l,
  lifecycles,
}: {
  queue: QueueJson;
  lookups: Lookups;
  lifecycles?: LifecycleChoice[];
}) {
  return (
    <AdminFrame current="/queues" title={`Queue ${q.name}`}>
      <div class="admin-grid">
        <div class="card">
          <QueueFields id="edit-queue" action={`/queues/${q.id}`} l={l} q={q} lifecycles={lifecycles} />
        </div>
        <div class="card">
          {q.team_id === null && (q.admin_cc ?? []).length === 0 && (
            <p class="field-error" role="note">
              Nobody is told of new tickets in this queue until they are assigned: give it a team or an AdminCc.
            </p>
          )}
          <p>
            <a href={`/tickets?queue_id=${q.id}`}>Tickets in this queue →</a>
          </p>
          <AdminForm action={`/queues/${q.id}`} method="DELETE" id="delete-queue" confirm={`Delete queue ${q.name}?`}>
            <button type="submit" class="danger">
              Delete queue
            </button>
            <small class="hint">Only a queue without tickets can be deleted.</small>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}
