import type { LifecycleJson } from '../../domain/lifecycles/admin.js';
import type { Category, Lifecycle } from '../../domain/lifecycles/categories.js';
import type { Lookups } from '../../domain/lookups.js';
import { queueName } from '../format.js';
import { AdminForm, AdminFrame, Text, Wide } from './common.js';

// SPEC D3 lifecycles in the admin area (decision 073): the list, and the editor — statuses as rows
// (name, category, color), on_customer_reply, and the transitions as a grid of checkboxes (from a
// row's status to a column's). Field names follow the API's paths, so an error lands by its field.

const CATEGORY_LABEL: Record<Category, string> = {
  initial: 'Initial',
  active: 'Active',
  waiting: 'Waiting',
  inactive: 'Inactive',
};
/** Blank status rows the editor offers for new statuses. */
const BLANK_ROWS = 3;

export const statusLabel = (name: string) => name.replace(/_/g, ' ');

/** A status as a badge in its lifecycle's color. */
export function StatusBadge({ name, color }: { name: string; color?: string }) {
  return (
    <span class="status-badge" style={color ? `--status-color:${color}` : undefined}>
      {statusLabel(name)}
    </span>
  );
}

function StatusRows({ l }: { l?: Lifecycle }) {
  const rows = [
    ...(l?.statuses ?? []),
    ...Array.from({ length: BLANK_ROWS }, () => ({ name: '', category: 'active' as Category, color: '#4b5563' })),
  ];
  return (
    <fieldset class="lifecycle-statuses">
      <legend>Statuses (in order; a blank name drops the row)</legend>
      {rows.map((s, i) => (
        <div class="status-row">
          <label>
            Name
            <input name={`statuses.${i}.name`} value={s.name} pattern="[a-z][a-z_]{0,39}" maxlength={40} />
          </label>
          <label>
            Category
            <select name={`statuses.${i}.category`}>
              {(Object.keys(CATEGORY_LABEL) as Category[]).map((c) => (
                <option value={c} selected={s.category === c}>
                  {CATEGORY_LABEL[c]}
                </option>
              ))}
            </select>
          </label>
          <label>
            Color
            <input name={`statuses.${i}.color`} type="color" value={s.color} />
          </label>
        </div>
      ))}
      <small class="hint">
        Names: lower-case letters and _ (waiting_on_parts). Exactly one status is initial; a new ticket starts there.
      </small>
    </fieldset>
  );
}

function TransitionGrid({ l }: { l: Lifecycle }) {
  const names = l.statuses.map((s) => s.name);
  return (
    <fieldset class="transitions">
      <legend>Transitions people may make</legend>
      <label class="checkbox">
        <input type="hidden" name="any_transition" value="" />
        <input type="checkbox" name="any_transition" value="on" checked={l.transitions === null} /> Any status may move
        to any other (the grid below is ignored)
      </label>
      <Wide label="Transitions">
        <table class="plain transition-grid">
          <caption>From a row’s status to a column’s</caption>
          <thead>
            <tr>
              <th scope="col">From \ to</th>
              {names.map((n) => (
                <th scope="col">{statusLabel(n)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {names.map((from) => (
              <tr>
                <th scope="row">
                  {statusLabel(from)}
                  <input type="hidden" name={`transitions.${from}`} value="" />
                </th>
                {names.map((to) =>
                  to === from ? (
                    <td>—</td>
                  ) : (
                    <td>
                      <input
                        type="checkbox"
                        name={`transitions.${from}`}
                        value={to}
                        aria-label={`${statusLabel(from)} to ${statusLabel(to)}`}
                        checked={l.transitions === null || (l.transitions[from] ?? []).includes(to)}
                      />
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </Wide>
      <small class="hint">
        Automatic moves (a customer’s reply, snooze, a queue move, scrips, Spam) are not bound.
      </small>
    </fieldset>
  );
}

function ReplyChoice({ l }: { l: Lifecycle }) {
  return (
    <label>
      When a requester writes to a waiting or inactive ticket, move it to
      <select name="on_customer_reply">
        <option value="" selected={l.on_customer_reply === null}>
          The first active status
        </option>
        {l.statuses
          .filter((s) => s.category === 'active')
          .map((s) => (
            <option value={s.name} selected={l.on_customer_reply === s.name}>
              {statusLabel(s.name)}
            </option>
          ))}
      </select>
    </label>
  );
}

function StatusTable({ l }: { l: Lifecycle }) {
  return (
    <ul class="status-list">
      {l.statuses.map((s) => (
        <li>
          <StatusBadge name={s.name} color={s.color} /> <span class="muted">{CATEGORY_LABEL[s.category]}</span>
        </li>
      ))}
    </ul>
  );
}

export function LifecyclesPage({
  lifecycles,
  standard,
  lookups: l,
}: {
  lifecycles: LifecycleJson[];
  standard: Lifecycle;
  lookups: Lookups;
}) {
  return (
    <AdminFrame current="/lifecycles" title="Lifecycles">
      <p class="muted">
        A queue’s lifecycle names its statuses, what each one means (initial, active, waiting, inactive) and where
        people may move a ticket. A queue without one uses the default: <StatusTable l={standard} />
      </p>
      <div class="admin-grid">
        <Wide label="Lifecycles">
          <table class="plain">
            <thead>
              <tr>
                <th>Lifecycle</th>
                <th>Statuses</th>
                <th>Queues</th>
              </tr>
            </thead>
            <tbody>
              {lifecycles.map((c) => (
                <tr>
                  <td>
                    <a href={`/lifecycles/${c.id}`}>{c.name}</a>
                  </td>
                  <td>
                    {c.statuses.map((s) => (
                      <>
                        <StatusBadge name={s.name} color={s.color} />{' '}
                      </>
                    ))}
                  </td>
                  <td>{c.queue_ids.map((id) => queueName(l, id)).join(', ') || '—'}</td>
                </tr>
              ))}
              {lifecycles.length === 0 && (
                <tr>
                  <td colspan={3}>No lifecycles yet: every queue uses the default.</td>
                </tr>
              )}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New lifecycle</h2>
          <AdminForm action="/lifecycles" id="new-lifecycle">
            <Text name="name" label="Name" required />
            <StatusRows l={{ ...standard, statuses: standard.statuses.filter((s) => s.name !== 'deleted') }} />
            <button type="submit" class="primary">
              Create lifecycle
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}

export function LifecyclePage({ lifecycle: c, lookups: l }: { lifecycle: LifecycleJson; lookups: Lookups }) {
  const used = c.queue_ids.map((id) => queueName(l, id));
  return (
    <AdminFrame current="/lifecycles" title={`Lifecycle ${c.name}`}>
      <div class="admin-grid">
        <div class="card">
          <AdminForm action={`/lifecycles/${c.id}`} method="PATCH" id="edit-lifecycle">
            <Text name="name" label="Name" value={c.name} required />
            <StatusRows l={c} />
            <ReplyChoice l={c} />
            <TransitionGrid l={c} />
            <button type="submit" class="primary">
              Save
            </button>
          </AdminForm>
        </div>
        <div class="card">
          <StatusTable l={c} />
          <p>{used.length ? `Used by ${used.join(', ')}.` : 'No queue uses it yet (choose it on a queue’s page).'}</p>
          <AdminForm
            action={`/lifecycles/${c.id}`}
            method="DELETE"
            id="delete-lifecycle"
            confirm={`Delete lifecycle ${c.name}?`}
          >
            <button type="submit" class="danger">
              Delete lifecycle
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}
