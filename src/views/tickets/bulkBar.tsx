import type { Lookups } from '../../domain/lookups.js';
import { STATUS_LABEL } from '../format.js';

/** The form the row checkboxes belong to (they sit in the table, outside it: `form="bulk-form"`). */
export const BULK_FORM = 'bulk-form';

const Choice = ({ name, label, options }: { name: string; label: string; options: [string, string][] }) => (
  <label>
    {label}
    <select name={`changes.${name}`}>
      <option value="">No change</option>
      {options.map(([v, text]) => (
        <option value={v}>{text}</option>
      ))}
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
      <Choice name="status" label="Status" options={statuses.map((s): [string, string] => [s, STATUS_LABEL[s]])} />
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
      <button type="submit" class="primary" data-bulk-apply>
        Apply
      </button>
      <div class="field-error" id="bulk-error" role="alert"></div>
      {summary && (
        <p class="bulk-summary" role="status">
          {summary}
        </p>
      )}
    </form>
  );
}
