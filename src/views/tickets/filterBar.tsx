import type { Lookups } from '../../domain/lookups.js';
import type { Column, SavedViewJson } from '../../domain/savedViews.js';
import type { TicketFilter } from '../../domain/tickets/query.js';
import { h } from '../format.js';
import { statusText } from './statusColors.js';
import { TagFilterFields } from './tagFilter.js';

// The ticket list's filter bar (SPEC B1, C1, D3): one form whose every change loads the list
// region (#ticket-list) and pushes its address; the column picker is part of it.

export const ALL_COLUMNS: Column[] = ['ID', 'Subject', 'Status', 'Queue', 'Owner', 'Created', 'Updated'];

/** What the filter bar shows: the filters in force, the install's people and queues, the columns. */
export interface FilterBarProps {
  filters: TicketFilter;
  lookups: Lookups;
  /** The statuses the filter offers (SPEC B3). */
  statuses: readonly string[];
  view: SavedViewJson | null;
  columns: Column[];
}

const SELECTED = h` selected=""`;

/** A filter's select; its options (the people, queues… of the install: hundreds) as `h` parts (decision 086). */
const Select = ({
  name,
  label,
  value,
  options,
}: {
  name: string;
  label: string;
  value: string;
  options: [string, string][];
}) => (
  <label>
    {label}
    <select name={name}>
      {options.map(([v, text]) => h`<option value="${v}"${v === value ? SELECTED : ''}>${text}</option>`)}
    </select>
  </label>
);

/** The filter bar: search, the selects, the tag and custom-field filters, the column picker. */
export function FilterBar({ p }: { p: FilterBarProps }) {
  const l = p.lookups;
  const f = p.filters;
  const staff = l.users.filter((u) => u.role !== 'requester' && !u.disabled);
  const status = f.status?.join(',') ?? '';
  const statusOptions: [string, string][] = [
    ['', 'Any status'],
    ...p.statuses.map((s): [string, string] => [s, statusText(s)]),
  ];
  if (status && !statusOptions.some(([v]) => v === status)) statusOptions.push([status, status]);
  const stage = f.status_category?.join(',') ?? '';
  const stageOptions: [string, string][] = [
    ['', 'Any stage'],
    ['initial,active,waiting', 'Not done'],
    ['initial,active', 'To do'],
    ['waiting', 'Waiting'],
    ['inactive', 'Done'],
  ];
  if (stage && !stageOptions.some(([v]) => v === stage)) stageOptions.push([stage, stage]);
  return (
    <form
      id="filters"
      class="filters"
      method="get"
      action="/tickets"
      hx-get="/tickets"
      hx-target="#ticket-list"
      hx-swap="outerHTML"
      hx-push-url="true"
      hx-trigger="change, input from:#q delay:300ms, submit"
    >
      {p.view && <input type="hidden" name="view_id" value={String(p.view.id)} />}
      {/* SPEC D4 drill-down (decision 079): a report's period stays while other filters change. */}
      {(['created_from', 'created_to', 'resolved_from', 'resolved_to'] as const).map(
        (k) => f[k] !== undefined && <input type="hidden" name={k} value={f[k]} />,
      )}
      {f.untagged && <input type="hidden" name="untagged" value="true" />}
      {(f.created_from || f.resolved_from) && (
        <p class="notice">
          From a report: tickets {f.resolved_from ? 'resolved' : 'created'} from {f.resolved_from ?? f.created_from} to{' '}
          {f.resolved_to ?? f.created_to ?? 'now'}
          {f.untagged ? ', untagged' : ''}. <a href="/tickets">Clear</a>
        </p>
      )}
      <label class="search">
        Search{' '}
        <input
          id="q"
          type="search"
          name="q"
          value={f.q ?? ''}
          placeholder="Subject or message text"
          autocomplete="off"
        />
      </label>
      <Select
        name="queue_id"
        label="Queue"
        value={String(f.queue_id ?? '')}
        options={[['', 'Any queue'], ...l.queues.map((q): [string, string] => [String(q.id), q.name])]}
      />
      {/* SPEC D3: what a status means in each queue's lifecycle, whatever its name. */}
      <Select name="status_category" label="Stage" value={stage} options={stageOptions} />
      <Select name="status" label="Status" value={status} options={statusOptions} />
      <Select
        name="owner_id"
        label="Owner"
        value={String(f.owner_id ?? '')}
        options={[
          ['', 'Anyone'],
          ['me', 'Me'],
          ['none', 'Unassigned'],
          ...staff.map((u): [string, string] => [String(u.id), u.name || u.email]),
        ]}
      />
      <label class="check">
        <input type="checkbox" name="my_teams" value="true" checked={f.my_teams === true} /> In my teams’ queues
      </label>
      <Select
        name="snoozed"
        label="Snoozed"
        value={f.snoozed === undefined ? '' : String(f.snoozed)}
        options={[
          ['', 'Snoozed or not'],
          ['false', 'Not snoozed'],
          ['true', 'Snoozed'],
        ]}
      />
      <Select
        name="team_id"
        label="Owner's team"
        value={String(f.team_id ?? '')}
        options={[['', 'Any team'], ...l.teams.map((t): [string, string] => [String(t.id), t.name])]}
      />
      <Select
        name="ticket_team_id"
        label="Ticket team"
        value={String(f.ticket_team_id ?? '')}
        options={[
          ['', 'Any team'],
          ['none', 'No team'],
          ...l.teams.map((t): [string, string] => [String(t.id), t.name]),
        ]}
      />
      <TagFilterFields tag={f.tag} tagAny={f.tag_any} />
      {l.customFields.map((cf) =>
        cf.type === 'select' ? (
          <Select
            name={`cf.${cf.key}`}
            label={cf.name}
            value={f.cf?.[cf.key] ?? ''}
            options={[['', 'Any'], ...cf.options.map((o): [string, string] => [o, o])]}
          />
        ) : (
          <label>
            {cf.name}{' '}
            <input
              name={`cf.${cf.key}`}
              value={f.cf?.[cf.key] ?? ''}
              type={cf.type === 'number' ? 'number' : cf.type === 'date' ? 'date' : 'text'}
            />
          </label>
        ),
      )}
      <details class="column-picker">
        <summary>Columns</summary>
        <fieldset>
          <legend>Visible columns</legend>
          {ALL_COLUMNS.map((c) => (
            <label>
              <input type="checkbox" name="columns" value={c} checked={p.columns.includes(c)} /> {c}
            </label>
          ))}
          <small class="hint" id="columns-hint" role="status"></small>
        </fieldset>
      </details>
      <noscript>
        <button type="submit">Apply</button>
      </noscript>
    </form>
  );
}
