import { h } from '../format.js';
import type { Lookups } from '../../domain/lookups.js';
import { statusText } from './statusColors.js';
import { BulkTags } from './tagFilter.js';

/** The form the row checkboxes belong to (they sit in the table, outside it: `form="bulk-form"`). */
export const BULK_FORM = 'bulk-form';

const Choice = ({ name, label, options }: { name: string; label: string; options: [string, string][] }) => (
  <label>
    {label}
    <select name={`changes.${name}`}>
      <option value="">No change</option>
      {options.map(([v, text]) => h`<option value="${v}">${text}</option>`)}
    </select>
  </label>
);

/**
 * The bulk action bar (SPEC C4): the change to make to the ticked rows. A plain form POST
 * (`_method=PATCH`) redirected back to the list with its query string; with htmx a PATCH that
 * swaps the list region. `statuses`: those a ticket may be set to; `returnTo`: this list's query string.
 */
export function BulkBar({
  l,
  statuses,
  returnTo,
  summary,
}: {
  l: Lookups;
  statuses: readonly string[];
  returnTo: string;
  summary?: string;
}) {
  const staff = l.users.filter((u) => u.role !== 'requester' && !u.disabled);
  return (
    <form
      id={BULK_FORM}
      class="bulk-bar"
      method="post"
      action="/tickets"
      hx-patch="/tickets"
      hx-target="#ticket-list"
      hx-swap="outerHTML"
      data-error-target="#bulk-error"
      aria-label="Change selected tickets"
    >
      <input type="hidden" name="_method" value="PATCH" />
      <input type="hidden" name="return_to" value={returnTo} />
      <span class="bulk-count" id="bulk-count" aria-live="polite">
        0 selected
      </span>
      <Choice name="status" label="Status" options={statuses.map((s): [string, string] => [s, statusText(s)])} />
      <Choice
        name="owner_id"
        label="Owner"
        options={[['none', 'Unassigned'], ...staff.map((u): [string, string] => [String(u.id), u.name || u.email])]}
      />
      <Choice name="queue_id" label="Queue" options={l.queues.map((q): [string, string] => [String(q.id), q.name])} />
      <Choice
        name="team_id"
        label="Team"
        options={[['none', 'No team'], ...l.teams.map((t): [string, string] => [String(t.id), t.name])]}
      />
      <label>
        Priority{' '}
        <input name="changes.priority" type="number" min="0" max="100" inputmode="numeric" placeholder="No change" />
      </label>
      <BulkTags />
      <button type="submit" class="primary" data-bulk-apply>
        Apply
      </button>
      {/* SPEC D6: one place for the last result (a summary, an error, a question): a new one replaces it. */}
      <div class="field-error bulk-result" id="bulk-error" role="alert">
        {summary && (
          <p class="bulk-summary" role="status">
            {summary}
          </p>
        )}
      </div>
    </form>
  );
}

/**
 * SPEC D6: a bulk change to `deleted` asks first. With htmx the question goes in the bar's result
 * place (its button submits the bar again, with `confirm`); a plain form post gets it as a page
 * of its own that carries the same change.
 */
export function BulkDeleteQuestion({
  ids,
  changes,
  returnTo,
  standalone,
}: {
  ids: number[];
  /** The whole change asked for (status `deleted`, maybe more), carried by the page's form. */
  changes: Record<string, string | number | null | undefined | string[]>;
  returnTo: string;
  standalone?: boolean;
}) {
  const n = ids.length;
  const what = n === 1 ? `ticket #${ids[0]}` : `${n} tickets`;
  const question = (
    <p id="bulk-delete-question">
      {!standalone && <strong>Delete {what}? </strong>}
      {n === 1 ? 'It leaves' : 'They leave'} the lists; a deleted ticket can be restored from its page.
    </p>
  );
  const confirm = (
    <button type="submit" name="confirm" value="true" class="danger" autofocus aria-describedby="bulk-delete-question">
      Delete {what}
    </button>
  );
  if (!standalone)
    return (
      <div class="bulk-confirm">
        {question}
        {confirm}{' '}
        <button type="button" data-bulk-cancel>
          Cancel
        </button>
      </div>
    );
  return (
    <section class="narrow bulk-confirm">
      <h1>Delete {what}?</h1>
      <form method="post" action="/tickets">
        <input type="hidden" name="_method" value="PATCH" />
        {ids.map((id) => (
          <input type="hidden" name="ids" value={String(id)} />
        ))}
        {Object.entries(changes).map(([k, v]) =>
          v === undefined ? null : (
            <input
              type="hidden"
              name={`changes.${k}`}
              value={v === null ? 'none' : Array.isArray(v) ? v.join(',') : String(v)}
            />
          ),
        )}
        <input type="hidden" name="return_to" value={returnTo} />
        {question}
        <p class="confirm-actions">
          {confirm}
          <a href={`/tickets${returnTo}`}>Cancel</a>
        </p>
      </form>
    </section>
  );
}
