import type { Lookups } from '../../domain/lookups.js';
import { StatusColors } from './statusColors.js';
import type { Column, SavedViewJson } from '../../domain/savedViews.js';
import type { TicketFilter } from '../../domain/tickets/query.js';
import type { LiveRow } from '../../domain/tickets/list.js';
import type { SortKey } from '../../domain/tickets/query.js';
import { FilterBar } from './filterBar.js';
import { BulkBar } from './bulkBar.js';
import { TicketRows } from './listRow.js';
import { FirstRun } from './firstRun.js';
import type { FirstRunState } from '../../domain/firstRun.js';
import type { ListedTicket } from '../../domain/tickets/requesters.js';

export const DEFAULT_WIDTHS: Record<Column, number> = {
  ID: 80,
  Subject: 0,
  // SPEC D2: room for the SLA badge beside the status ("⚠ overdue 2 min").
  Status: 150,
  Queue: 150,
  Owner: 160,
  Created: 165,
  Updated: 165,
};
const SORT_OF: Partial<Record<Column, string>> = {
  ID: 'id',
  Created: 'created',
  Updated: 'updated',
  Status: 'status',
  Owner: 'owner',
  Queue: 'queue',
};
/** Sorts whose first click is A→Z (names, the lifecycle); the others start newest/highest first. */
const ASCENDING_FIRST = new Set(['status', 'owner', 'queue']);

export interface TicketListProps {
  tickets: ListedTicket[];
  total: number;
  /** Decision 085: false when `total` is "at least" (the count stopped at its bound). */
  total_exact?: boolean;
  limit: number;
  offset: number;
  /** The parameters as given (the URL), and the filters in force (view + parameters). */
  params: Record<string, string>;
  filters: TicketFilter;
  view: SavedViewJson | null;
  columns: Column[];
  widths: Partial<Record<Column, number>>;
  lookups: Lookups;
  /** What the last bulk change said ("Changed 12 tickets; 2 failed: …"). */
  summary?: string;
  /** Whether the reader may change tickets (checkboxes and the bulk bar). */
  bulk?: boolean;
  /** The teams the reader may share a view with (their own; every team for an administrator). */
  shareTeams?: { id: number; name: string }[];
  /** Whether the reader may change the view shown (its owner, or an administrator). */
  canEditView?: boolean;
  // Decided by the route from the domain (decision 046: a view imports no domain at run time).
  /** The statuses the filter and the bulk bar offer (SPEC B3). */
  statuses: readonly string[];
  /** SPEC D3: each status's color (its lifecycle's). */
  colors?: Record<string, string>;
  /** The built-in lists beside the saved views (decision 035), each with its URL. */
  builtinLists: readonly { key: string; name: string; url: string }[];
  /** The built-in list these parameters are, if any. */
  builtin?: { key: string; name: string };
  /** Each listed ticket's key under the list's order, by ticket id: where a live update places rows (SPEC C5). */
  sortKeys: Record<number, SortKey>;
  /** SPEC D6: what to do first on a new install (the page only). */
  firstRun?: FirstRunState | null;
}

/** The URL of this list with some parameters changed. */
function link(p: TicketListProps, change: Record<string, string | number | null>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...p.params, ...change }))
    if (v !== null && v !== '' && v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return `/tickets${s ? `?${s}` : ''}`;
}

/**
 * SPEC D2: the Status column also sorts by due time (its badge), soonest first; no due time last
 * either way. Offered once there is an SLA policy (before, no ticket has a due time).
 */
function DueSort({ p }: { p: TicketListProps }) {
  const current = p.filters.sort ?? '-updated';
  const next = current === 'due' ? '-due' : 'due';
  return (
    <>
      {' · '}
      <a
        href={link(p, { sort: next, offset: null })}
        hx-get={link(p, { sort: next, offset: null })}
        hx-target="#ticket-list"
        hx-swap="outerHTML"
        hx-push-url="true"
        aria-label={`Sort by due time${current === 'due' ? ', latest first' : ', soonest first'}`}
      >
        Due
        {current === 'due' ? ' ▲' : current === '-due' ? ' ▼' : ''}
      </a>
    </>
  );
}

function HeaderCell({ column, p }: { column: Column; p: TicketListProps }) {
  const key = SORT_OF[column];
  const current = p.filters.sort ?? '-updated';
  const byDue = column === 'Status' && (current === 'due' || current === '-due');
  const next = !key
    ? ''
    : current === key
      ? `-${key}`
      : current === `-${key}` || ASCENDING_FIRST.has(key)
        ? key
        : `-${key}`;
  const label = key ? (
    <a
      href={link(p, { sort: next, offset: null })}
      hx-get={link(p, { sort: next, offset: null })}
      hx-target="#ticket-list"
      hx-swap="outerHTML"
      hx-push-url="true"
    >
      {column}
      {current === key ? ' ▲' : current === `-${key}` ? ' ▼' : ''}
    </a>
  ) : (
    column
  );
  return (
    <th
      scope="col"
      data-column={column}
      aria-sort={
        current === key || (byDue && current === 'due')
          ? 'ascending'
          : current === `-${key}` || (byDue && current === '-due')
            ? 'descending'
            : undefined
      }
    >
      <span class="th-label">
        {label}
        {column === 'Status' && p.lookups.slaPolicies.length > 0 && <DueSort p={p} />}
      </span>
      {column !== 'Subject' && (
        <span
          class="resizer"
          data-resize={column}
          role="separator"
          aria-orientation="vertical"
          aria-label={`Resize ${column}`}
          tabindex={0}
          aria-valuemin={50}
          aria-valuemax={800}
          aria-valuenow={({ ...DEFAULT_WIDTHS, ...p.widths } as Record<string, number>)[column]}
        ></span>
      )}
    </th>
  );
}

/** The list's own query string (what the live rows are asked under): its parameters, columns included. */
const liveQuery = (p: TicketListProps) =>
  new URLSearchParams(Object.entries(p.params).filter(([, v]) => v !== '')).toString();

/**
 * SPEC C5: new tickets that would make the rows in view jump are not inserted; this bar says how
 * many there are and loads the list again (static/live-list.js). The words are said politely by a
 * status region that is always there; the bar itself floats at the foot of the window, taking no room.
 */
function LiveBar() {
  return (
    <>
      <span class="visually-hidden" role="status" aria-live="polite" data-live-say></span>
      <div class="live-bar" data-live-bar hidden>
        <span data-live-count></span> —{' '}
        <button type="button" data-live-show>
          Show
        </button>
      </div>
    </>
  );
}

/**
 * The answer to a live question (`GET /tickets?…&live_ids=…`, htmx): each asked ticket's row
 * under the list's columns, `data-match` saying whether it is in the list now; tickets the
 * reader may not see are listed as gone (`data-gone`).
 */
export function LiveRows({ rows, p }: { rows: LiveRow[]; p: Pick<TicketListProps, 'bulk' | 'columns' | 'lookups'> }) {
  return (
    <table
      id="live-rows"
      data-gone={rows
        .filter((r) => !r.visible)
        .map((r) => r.id)
        .join(',')}
    >
      <tbody>
        <TicketRows
          p={p}
          rows={rows.filter((r) => r.ticket).map((r) => ({ t: r.ticket!, sortKey: r.sort_key!, match: r.matches }))}
        />
      </tbody>
    </table>
  );
}

/** The part htmx swaps: table, pager and the save-view forms that carry the current state. */
export function TicketListRegion(p: TicketListProps) {
  const { tickets, total, limit, offset } = p;
  // Decision 085: a total past the bound is "at least": 1–50 of 1,000+.
  const totalText = `${total.toLocaleString('en')}${p.total_exact === false ? '+' : ''}`;
  const widths = { ...DEFAULT_WIDTHS, ...p.widths };
  const filtersJson = JSON.stringify(
    Object.fromEntries(Object.entries(p.filters).filter(([k]) => k !== 'limit' && k !== 'offset')),
  );
  const widthsJson = JSON.stringify(
    Object.fromEntries(p.columns.filter((c) => c !== 'Subject').map((c) => [c, widths[c]])),
  );
  const returnTo = link(p, {}).slice('/tickets'.length);
  const span = p.columns.length + (p.bulk ? 1 : 0);
  return (
    <div
      id="ticket-list"
      class="ticket-list"
      data-columns={p.columns.join(',')}
      data-live-list
      data-live-refresh
      hx-trigger="sse:ticket"
      data-live-query={liveQuery(p)}
      data-sort={p.filters.sort ?? '-updated'}
      data-offset={String(offset)}
      data-limit={String(limit)}
    >
      {p.bulk ? (
        <BulkBar l={p.lookups} statuses={p.statuses} returnTo={returnTo} summary={p.summary} />
      ) : (
        p.summary && (
          <p class="bulk-summary" role="status">
            {p.summary}
          </p>
        )
      )}
      {/* The filter form's sort lives here so that a header click (which swaps only this region) updates it too. */}
      {p.filters.sort && <input type="hidden" name="sort" value={p.filters.sort} form="filters" />}
      <div class="live-wrap">
        <LiveBar />
        <div class="table-scroll">
          <table class="tickets" id="tickets-table">
            <colgroup>
              {p.bulk && <col class="select-col" />}
              {p.columns.map((c) => (
                <col data-col={c} style={c === 'Subject' ? undefined : `width:${widths[c]}px`} />
              ))}
            </colgroup>
            <thead>
              <tr>
                {p.bulk && (
                  <th scope="col" class="select">
                    <input type="checkbox" data-select-all aria-label="Select all tickets on this page" />
                  </th>
                )}
                {p.columns.map((c) => (
                  <HeaderCell column={c} p={p} />
                ))}
              </tr>
            </thead>
            <tbody>
              {tickets.length === 0 ? (
                <tr>
                  <td colspan={span} class="empty">
                    No tickets match these filters.
                  </td>
                </tr>
              ) : (
                <TicketRows p={p} rows={tickets.map((t) => ({ t, sortKey: p.sortKeys[t.id] }))} />
              )}
            </tbody>
          </table>
        </div>
      </div>
      <nav class="pager" aria-label="Pages">
        <span>{total === 0 ? '0 tickets' : `${offset + 1}–${Math.min(offset + limit, total)} of ${totalText}`}</span>
        {offset > 0 && (
          <a
            href={link(p, { offset: Math.max(0, offset - limit) || null })}
            hx-get={link(p, { offset: Math.max(0, offset - limit) || null })}
            hx-target="#ticket-list"
            hx-swap="outerHTML"
            hx-push-url="true"
          >
            ← Previous
          </a>
        )}
        {offset + limit < total && (
          <a
            href={link(p, { offset: offset + limit })}
            hx-get={link(p, { offset: offset + limit })}
            hx-target="#ticket-list"
            hx-swap="outerHTML"
            hx-push-url="true"
          >
            Next →
          </a>
        )}
      </nav>
      <div class="view-actions">
        <details>
          <summary>Save as new view</summary>
          <form method="post" action="/saved-views" class="inline-form">
            <input type="hidden" name="filters" value={filtersJson} />
            <input type="hidden" name="columns" value={p.columns.join(',')} />
            <input type="hidden" name="column_widths" value={widthsJson} data-widths />
            <label>
              Name <input name="name" required maxlength={100} />
            </label>
            {(p.shareTeams?.length ?? 0) > 0 && (
              <label>
                Share with team
                <select name="team_id">
                  <option value="">Only me</option>
                  {p.shareTeams!.map((t) => (
                    <option value={String(t.id)}>{t.name}</option>
                  ))}
                </select>
              </label>
            )}
            <button type="submit">Save view</button>
          </form>
        </details>
        {p.view && p.canEditView && (
          <form method="post" action={`/saved-views/${p.view.id}`} class="inline-form">
            <input type="hidden" name="_method" value="PATCH" />
            <input type="hidden" name="filters" value={filtersJson} />
            <input type="hidden" name="columns" value={p.columns.join(',')} />
            <input type="hidden" name="column_widths" value={widthsJson} data-widths />
            <button type="submit">Update “{p.view.name}”</button>
          </form>
        )}
        {p.view && p.canEditView && (
          <form
            method="post"
            action={`/saved-views/${p.view.id}`}
            class="inline-form"
            hx-confirm={`Delete the view “${p.view.name}”?`}
          >
            <input type="hidden" name="_method" value="DELETE" />
            <button type="submit" class="danger">
              Delete view
            </button>
          </form>
        )}
      </div>
    </div>
  );
}

/** The whole ticket list screen: view picker, filter bar (./filterBar.tsx), and the list region. */
export function TicketListPage(p: TicketListProps) {
  const l = p.lookups;
  const builtin = p.builtin;
  const title = p.view ? p.view.name : builtin && builtin.key !== 'all' ? builtin.name : 'Tickets';
  return (
    // SPEC C5: the page's live stream; the list region (swapped by filters, sorting and paging) listens inside it.
    <section class="tickets-page" hx-ext="sse" sse-connect="/events" data-live-root>
      <StatusColors colors={p.colors} />
      <header class="page-head">
        <h1>{title}</h1>
        <nav class="views" aria-label="Lists and saved views">
          {p.builtinLists.map((b) => (
            <a
              href={b.url}
              class={!p.view && builtin?.key === b.key ? 'current' : ''}
              aria-current={!p.view && builtin?.key === b.key ? 'page' : undefined}
            >
              {b.name}
            </a>
          ))}
          {l.savedViews.map((v) => (
            <a
              href={`/tickets?view_id=${v.id}`}
              class={p.view?.id === v.id ? 'current' : ''}
              aria-current={p.view?.id === v.id ? 'page' : undefined}
            >
              {v.name}
              {v.shared && <span class="shared-by"> (shared by {v.owner_name})</span>}
            </a>
          ))}
        </nav>
        <a
          class="button primary"
          href="/tickets/new"
          data-open-dialog="new-ticket"
          hx-get="/tickets/new"
          hx-target="#new-ticket-body"
          hx-push-url="false"
        >
          New ticket
        </a>
      </header>
      {p.firstRun && <FirstRun s={p.firstRun} />}
      <FilterBar p={p} />
      <TicketListRegion {...p} />
      <dialog id="new-ticket" aria-labelledby="new-ticket-title">
        <div id="new-ticket-body">
          <p class="muted">Loading…</p>
        </div>
      </dialog>
    </section>
  );
}
