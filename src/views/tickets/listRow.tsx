import { useContext } from 'hono/jsx';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Lookups, SlaPolicyName } from '../../domain/lookups.js';
import type { Column } from '../../domain/savedViews.js';
import type { SortKey } from '../../domain/tickets/query.js';
import type { ListedTicket } from '../../domain/tickets/requesters.js';
import { h, Now, queueName, TimeZone, userName, whenHtml } from '../format.js';
import { BULK_FORM } from './bulkBar.js';
import { slaBadgeHtml } from './sla.js';
import { snoozeBadgeHtml } from './snooze.js';
import { statusText } from './statusColors.js';

// SPEC D6 "Lists that show who wrote in" and "small screens" (decision 055): the subject cell of a
// list row also names the requester and a priority that is not 0; on a narrow screen
// (static/app.css, "D6 lists") the row is this cell alone, in two lines: subject and requester,
// then status, the SLA badge (SPEC D2) and time — whichever columns the list shows.
// A row is the list's repeated part (50 to a page, and each live update): it is written with
// hono's `html` template (every interpolation escaped, as JSX escapes it), with the reader's zone
// and the render's now read once per list (issue 32, docs/decisions/086).

/** The requester as a list names them: their name, else their address. */
export const requesterLabel = (t: Pick<ListedTicket, 'requester'>) => t.requester?.name || t.requester?.email || '';

/** The reader's zone, the render's now for times ("3 h ago") and for SLA badges (0 outside a request, as they read it). */
interface RowAt {
  zone: string;
  now: number;
  slaNow: number;
}
const rowAt = (): RowAt => {
  const zone = useContext(TimeZone);
  const now = useContext(Now);
  // real time: only a render outside a request (every page and fragment sets Now from the store's clock).
  return { zone, now: now || Date.now(), slaNow: now || 0 };
};

/** The subject cell's content: the link, a priority badge, the requester; a second line for narrow screens. */
function subjectCell(t: ListedTicket, policies: readonly SlaPolicyName[], at: RowAt): HtmlEscapedString {
  const who = requesterLabel(t);
  const email = t.requester?.email;
  const priority =
    t.priority !== 0
      ? h`<span class="priority-badge" title="Priority ${t.priority}"><span class="visually-hidden">Priority </span>P${t.priority}</span>`
      : '';
  const tags =
    (t.tags?.length ?? 0) > 0
      ? h`<span class="list-tags"><span class="visually-hidden">tags: </span>${t.tags!.map((tag) => h`<span class="list-tag">${tag}</span>`)}</span>`
      : '';
  const requester = who
    ? h`<span class="row-requester"${email ? h` title="${email}"` : ''}><span class="visually-hidden">from </span>${who}</span>`
    : '';
  return h`<span class="subject-line"><a href="/tickets/${t.id}" class="subject-link">${t.subject}</a>${priority}${tags}${requester}</span><span class="row-second"><span class="row-status status-${t.status}">${statusText(t.status)}</span>${snoozeBadgeHtml(t, at.zone)} ${slaBadgeHtml(t, policies, at.zone, at.slaNow)} ${whenHtml(t.updated_at, at.zone, at.now)}</span>`;
}

const UNREAD_MARK = h`<span class="unread-dot" title="New activity"><span class="visually-hidden">New activity</span></span>`;

function cell(column: Column, t: ListedTicket, l: Lookups, mark: boolean, at: RowAt): HtmlEscapedString | undefined {
  switch (column) {
    case 'ID':
      return h`<td class="${mark ? 'num unread' : 'num'}">${mark ? UNREAD_MARK : ''}<a href="/tickets/${t.id}">#${t.id}</a></td>`;
    case 'Subject':
      return h`<td class="${mark ? 'subject unread' : 'subject'}">${mark ? UNREAD_MARK : ''}${subjectCell(t, l.slaPolicies, at)}</td>`;
    case 'Status':
      return h`<td><span class="status-cell"><span class="status status-${t.status}">${statusText(t.status)}</span>${snoozeBadgeHtml(t, at.zone)}${slaBadgeHtml(t, l.slaPolicies, at.zone, at.slaNow)}</span></td>`;
    case 'Queue':
      return h`<td>${queueName(l, t.queue_id)}</td>`;
    case 'Owner':
      return h`<td class="${t.owner_id == null ? 'muted' : ''}">${userName(l, t.owner_id, 'Unassigned')}</td>`;
    case 'Created':
      return h`<td class="date">${whenHtml(t.created_at, at.zone, at.now)}</td>`;
    case 'Updated':
      return h`<td class="date">${whenHtml(t.updated_at, at.zone, at.now)}</td>`;
  }
}

/** SPEC D6: the cell that carries a row's unread mark: the subject's, else the number's. */
const markColumn = (columns: Column[]): Column | undefined =>
  columns.includes('Subject') ? 'Subject' : columns.includes('ID') ? 'ID' : undefined;

/** A sort key as the page keeps it on a row (`data-key`): numbers as they are, times as ISO text. */
const keyAttr = (k: SortKey) => JSON.stringify(k);

type RowProps = { bulk?: boolean; columns: Column[]; lookups: Lookups };

function rowHtml(t: ListedTicket, p: RowProps, sortKey: SortKey, match: boolean | undefined, at: RowAt) {
  const marked = t.unread === true ? markColumn(p.columns) : undefined;
  const select = p.bulk
    ? h`<td class="select"><input type="checkbox" name="ids" value="${t.id}" form="${BULK_FORM}" aria-label="Select ticket #${t.id}"/></td>`
    : '';
  return h`<tr data-id="${t.id}" data-key="${keyAttr(sortKey)}"${match === undefined ? '' : h` data-match="${String(match)}"`}>${select}${p.columns.map((c) => cell(c, t, p.lookups, c === marked, at))}</tr>`;
}

/** Rows of a list (the page's, a live update's: SPEC C5), the context read once: `rows` with each one's sort key and whether it matches (a live update's). */
export function TicketRows({
  p,
  rows,
}: {
  p: RowProps;
  rows: { t: ListedTicket; sortKey: SortKey; match?: boolean }[];
}) {
  const at = rowAt();
  return h`${rows.map((r) => rowHtml(r.t, p, r.sortKey, r.match, at))}`;
}
