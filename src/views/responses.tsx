import type { Lookups } from '../domain/lookups.js';
import type { ResponseJson } from '../domain/responses.js';
import { AdminForm, Area, Check, Choice, Text } from './admin/common.js';
import { queueName, STATUS_LABEL } from './format.js';

// SPEC C4: the canned responses page (decision 034): an agent's own and the shared ones, a form
// for a new one, and a page per response to edit or delete it. What the reader may do and the
// statuses to offer arrive as props, decided by the route (decision 046).

const BODY_HINT =
  'Liquid, as in templates: {{ ticket.id }}, {{ ticket.subject }}, {{ ticket.requester.name }}, {{ ticket.owner.name }}, ' +
  '{{ ticket.queue.name }}, {{ ticket.status }}, {{ ticket.url }}, {{ ticket.custom_fields.<key> }}. Inserted into the reply box, where it can be edited before sending.';

const queueChoices = (l: Lookups): [string, string][] => [
  ['', 'All queues'],
  ...l.queues.map((q): [string, string] => [String(q.id), q.name]),
];
const statusChoices = (statuses: readonly string[]): [string, string][] => [
  ['', 'No change'],
  ...statuses.map((s): [string, string] => [s, STATUS_LABEL[s] ?? s]),
];

/** What both pages are given besides the responses: the route decides it (decision 046). */
export interface ResponsePageProps {
  lookups: Lookups;
  /** The statuses a response may set when sent. */
  statuses: readonly string[];
  /** Whether the reader may make a response shared with all agents (administrators). */
  mayShare: boolean;
  saved?: boolean;
}

function Fields({
  r,
  l,
  statuses,
  mayShare,
}: {
  r?: ResponseJson;
  l: Lookups;
  statuses: readonly string[];
  mayShare: boolean;
}) {
  return (
    <>
      <Text name="name" label="Name" value={r?.name} required />
      <Choice name="queue_id" label="Queue" value={r?.queue_id} options={queueChoices(l)} />
      <Choice name="set_status" label="Set status when sent" value={r?.set_status} options={statusChoices(statuses)} />
      <Area name="body" label="Text" value={r?.body} rows={8} hint={BODY_HINT} />
      {mayShare && <Check name="shared" label="Shared with all agents" checked={r ? r.owner_id === null : false} />}
    </>
  );
}

const scopeOf = (r: ResponseJson) => (r.owner_id === null ? 'Shared' : 'Mine');

export function ResponsesPage({
  responses,
  lookups: l,
  statuses,
  mayShare,
  saved,
}: ResponsePageProps & { responses: ResponseJson[] }) {
  return (
    <section class="responses">
      <header class="page-head">
        <h1>Canned responses</h1>
      </header>
      {saved && (
        <p class="notice" role="status">
          Saved.
        </p>
      )}
      <div class="admin-grid">
        {responses.length === 0 ? (
          <p class="muted">No canned responses yet.</p>
        ) : (
          <table class="plain">
            <thead>
              <tr>
                <th>Name</th>
                <th>Queue</th>
                <th>Sets status</th>
                <th>Scope</th>
              </tr>
            </thead>
            <tbody>
              {responses.map((r) => (
                <tr>
                  <td>
                    <a href={`/responses/${r.id}`}>{r.name}</a>
                  </td>
                  <td>{r.queue_id === null ? 'All' : queueName(l, r.queue_id)}</td>
                  <td>{r.set_status ? (STATUS_LABEL[r.set_status] ?? r.set_status) : '—'}</td>
                  <td>{scopeOf(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div class="card">
          <h2>New canned response</h2>
          <AdminForm action="/responses" id="new-response">
            <Fields l={l} statuses={statuses} mayShare={mayShare} />
            <button type="submit" class="primary">
              Create response
            </button>
          </AdminForm>
        </div>
      </div>
    </section>
  );
}

export function ResponsePage({
  response: r,
  mayManage,
  lookups: l,
  statuses,
  mayShare,
  saved,
}: ResponsePageProps & {
  response: ResponseJson;
  /** Whether the reader may change or delete it: their own, or (administrators) a shared one. */
  mayManage: boolean;
}) {
  return (
    <section class="responses">
      <header class="page-head">
        <h1>Canned response {r.name}</h1>
      </header>
      <p>
        <a href="/responses">← All canned responses</a>
      </p>
      {saved && (
        <p class="notice" role="status">
          Saved.
        </p>
      )}
      {mayManage ? (
        <div class="admin-grid">
          <div class="card">
            <AdminForm action={`/responses/${r.id}`} method="PATCH" id="edit-response">
              <Fields r={r} l={l} statuses={statuses} mayShare={mayShare} />
              <button type="submit" class="primary">
                Save
              </button>
            </AdminForm>
          </div>
          <div class="card">
            <h2>Delete</h2>
            <AdminForm
              action={`/responses/${r.id}`}
              method="DELETE"
              id="delete-response"
              confirm={`Delete the canned response "${r.name}"?`}
            >
              <button type="submit" class="danger">
                Delete response
              </button>
            </AdminForm>
          </div>
        </div>
      ) : (
        <div class="card">
          <p class="muted">{scopeOf(r)} response: only administrators change it.</p>
          <dl>
            <dt>Queue</dt>
            <dd>{r.queue_id === null ? 'All' : queueName(l, r.queue_id)}</dd>
            <dt>Sets status</dt>
            <dd>{r.set_status ? (STATUS_LABEL[r.set_status] ?? r.set_status) : '—'}</dd>
          </dl>
          <pre class="txn-body">{r.body}</pre>
        </div>
      )}
    </section>
  );
}
