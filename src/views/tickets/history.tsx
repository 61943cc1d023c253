import type { HtmlEscapedString } from 'hono/utils/html';
import { useContext } from 'hono/jsx';
import type { Lookups } from '../../domain/lookups.js';
import type { TransactionJson } from '../../domain/transactions.js';
import type { Rating } from '../../domain/csat.js';
import type { ScripResult } from '../../scrips/kinds.js';
import { exactTime, h, Now, queueName, teamName, TimeZone, userById, userName, when, whenHtml } from '../format.js';
import { isMarkdown, markdownHtml } from '../markdown.js';
import { statusText } from './statusColors.js';
import { CLOCK_LABEL } from './sla.js';
import { linkWords } from './links.js';
import { MergedFrom, UnmergeOffer } from './merge.js';
import { RATING_LABEL } from '../csat.js';
import { dayText, minutesText } from '../minutes.js';
import { quotable, quoteHead } from './quote.js';
import { scripSummary } from './scripLine.js';
import { isNewEntry } from './unread.js';
import type { TicketPageProps } from './pageProps.js';

// The history of the ticket page (SPEC C5, D6): its entries are the page's most repeated part (a
// long ticket has hundreds), so an entry is written with hono's `html` template (every
// interpolation escaped, as JSX escapes; docs/decisions/086) rather than as a tree of JSX nodes.
// The reader's zone and the render's `now` are read from the context once per history, not per
// entry. The rare parts (a merge's offer, an outside sender's form) stay JSX components.

const WATCHER_ROLE: Record<string, string> = { requester: 'a requester', cc: 'Cc', admin_cc: 'AdminCc' };
const WATCHER_LIST: Record<string, string> = { requester: 'the requesters', cc: 'Cc', admin_cc: 'AdminCc' };

const SYSTEM = 'hxdesk';

/** SPEC D4: " · 15 min" after a reply or note that came with time worked (decision 081). */
function withTime(t: TransactionJson, p: TicketPageProps): string {
  const said = describe(t, p);
  const e = t.type === 'TimeWorked' ? undefined : p.timeEntries?.get(t.id);
  return e ? `${said} · ${minutesText(e.minutes)}` : said;
}

function describe(t: TransactionJson, p: TicketPageProps): string {
  const l = p.lookups;
  const by = t.creator_id == null ? SYSTEM : userName(l, t.creator_id);
  const from = (v: string | null, name: (id: number | null) => string) => name(v === null ? null : Number(v));
  switch (t.type) {
    case 'Create':
      return `Ticket created by ${by}`;
    case 'Correspond':
      return `Reply by ${by}`;
    case 'Comment':
      return t.outside_sender ? `Mail from an outside sender, ${sender(l, t.creator_id)}` : `Internal note by ${by}`;
    case 'Status':
      return `Status changed from ${statusText(t.old_value ?? '')} to ${statusText(t.new_value ?? '')} by ${by}`;
    case 'SetOwner':
      return `Owner changed from ${from(t.old_value, (id) => userName(l, id, 'Unassigned'))} to ${from(t.new_value, (id) => userName(l, id, 'Unassigned'))} by ${by}`;
    case 'SetTeam':
      return `Team changed from ${from(t.old_value, (id) => teamName(l, id))} to ${from(t.new_value, (id) => teamName(l, id))} by ${by}`;
    case 'SetQueue':
      return `Queue changed from ${from(t.old_value, (id) => queueName(l, id))} to ${from(t.new_value, (id) => queueName(l, id))} by ${by}`;
    case 'SetSubject':
      return `Subject changed from “${t.old_value}” to “${t.new_value}” by ${by}`;
    case 'SetPriority':
      return `Priority changed from ${t.old_value} to ${t.new_value} by ${by}`;
    case 'AddWatcher':
      return `${by} added ${from(t.new_value, (id) => userName(l, id))} as ${WATCHER_ROLE[t.field ?? ''] ?? t.field}`;
    case 'DelWatcher':
      return `${by} removed ${from(t.old_value, (id) => userName(l, id))} from ${WATCHER_LIST[t.field ?? ''] ?? t.field}`;
    case 'AddTag': // SPEC D3 (decision 074)
      return `Tag ${t.new_value} added by ${by}`;
    case 'DelTag':
      return `Tag ${t.old_value} removed by ${by}`;
    case 'TimeWorked': {
      // SPEC D4 (decision 081): "Ann worked 30 min on 9 Mar: note"; by the one who worked.
      const note = p.timeEntries?.get(t.id)?.note;
      const on = t.old_value ? ` on ${dayText(t.old_value)}` : '';
      return `${by} worked ${minutesText(Number(t.new_value))}${on}${note ? `: ${note}` : ''}`;
    }
    case 'CustomField': {
      const name = l.customFields.find((f) => f.key === t.field)?.name ?? t.field;
      return `${name} changed from ${t.old_value ?? '(empty)'} to ${t.new_value ?? '(empty)'} by ${by}`;
    }
    case 'SLA': {
      // SPEC D2: a clock's warning or breach, written by its timer (old_value: the due time).
      const clock = CLOCK_LABEL[t.field as keyof typeof CLOCK_LABEL] ?? t.field;
      const due = t.old_value ? ` (due ${when(t.old_value)})` : '';
      return t.new_value === 'breached' ? `${clock} breached${due}` : `${clock} due soon${due}`;
    }
    case 'Idle': // SPEC D2: an idle scrip's timer (decision 072)
      return `Idle long enough for scrip #${t.new_value}: no public message or status change`;
    case 'Snooze':
      return t.field === 'unsnooze_on_reply'
        ? `${by} set whether a customer's reply wakes it: ${t.new_value === 'true' ? 'yes' : 'no'}`
        : `Snoozed until ${t.new_value ? exactTime(t.new_value, useContext(TimeZone)) : '—'} by ${by}`;
    case 'Unsnooze':
      return t.new_value === 'manual'
        ? `Woken by ${by}`
        : t.new_value === 'reply'
          ? 'Woken by a reply from the customer'
          : t.new_value === 'late'
            ? `Woke up: its snooze ended at ${t.old_value ? exactTime(t.old_value, useContext(TimeZone)) : '—'} while hxdesk was not running`
            : 'Woke up: its snooze ended';
    case 'AddLink':
    case 'DelLink':
      return linkWords(t, by);
    case 'Rating': // SPEC D4 (decision 082): the requester's comment is the entry's body
      return `${by} rated the answer: ${RATING_LABEL[t.new_value as Rating] ?? t.new_value}`;
    case 'Merge': // SPEC D3 (decision 076)
      return `#${t.new_value} merged into this ticket by ${by}`;
    case 'Unmerge':
      return t.field === 'merged_into'
        ? `Unmerged from #${t.old_value} by ${by}`
        : `#${t.old_value} unmerged from this ticket by ${by}`;
    default:
      return `${t.type} by ${by}`;
  }
}

/** Who wrote a message, with the address: "Dora Lee <dora@example.com>". */
function sender(l: Lookups, id: number | null): string {
  const u = id === null ? undefined : userById(l, id);
  if (!u) return userName(l, id);
  return u.name ? `${u.name} <${u.email}>` : u.email;
}

/**
 * SPEC D0: an outside sender's mail is kept internal; staff let the person in with one action,
 * the existing watchers route (offered while they are not a requester or Cc of the ticket).
 */
function OutsideSender({ p, t }: { p: TicketPageProps; t: TransactionJson }) {
  const id = t.creator_id;
  if (id === null) return null;
  const on = [...p.ticket.requesters, ...p.ticket.cc, ...p.queueWatchers.cc].includes(id);
  const url = `/tickets/${p.ticket.id}/watchers`;
  return (
    <div class="outside-sender">
      <p class="muted small">
        {on
          ? 'They are on the ticket now.'
          : 'Not on this ticket: kept as an internal comment, nobody else was mailed and the portal does not show it.'}
      </p>
      {!on && (
        <form
          method="post"
          action={url}
          hx-post={url}
          hx-target="#people"
          hx-swap="outerHTML"
          data-error-target={`#outside-error-${t.id}`}
        >
          <input type="hidden" name="role" value="cc" />
          <input type="hidden" name="user_id" value={String(id)} />
          <button type="submit" aria-label={`Add as Cc: ${sender(p.lookups, id)}`}>
            Add as Cc
          </button>
          <span class="field-error" id={`outside-error-${t.id}`} role="alert"></span>
        </form>
      )}
    </div>
  );
}

/** Past these, a message shows its start and a link to the rest (a 100,000-line mail is not a 100,000-line page). */
export const FOLD_LINES = 60;
export const FOLD_CHARS = 8000;

/** Where a long text is folded: after FOLD_LINES lines or FOLD_CHARS characters, whichever comes first. */
export function foldAt(body: string): number | null {
  let at = -1;
  for (let n = 0; n < FOLD_LINES; n++) {
    at = body.indexOf('\n', at + 1);
    if (at < 0) break;
  }
  const cut = Math.min(at < 0 ? body.length : at, FOLD_CHARS);
  return cut < body.length ? cut : null;
}

/**
 * A message's text, folded when long: the start, then "Show all" — a link to the whole text
 * (its own page without JavaScript; with htmx the whole text replaces the fold in place).
 */
export function TxnBody({
  ticketId,
  t,
  whole,
  copy,
}: {
  ticketId: number;
  t: TransactionJson;
  whole?: boolean;
  copy?: boolean;
}): HtmlEscapedString {
  const body = t.body ?? '';
  const cut = whole ? null : foldAt(body);
  const id = copy ? undefined : `txn-body-${t.id}`;
  const idAttr = id === undefined ? '' : h` id="${id}"`;
  // SPEC D6: text written in hxdesk is Markdown; mail keeps the sender's plain text.
  const md = isMarkdown(t);
  const text = (s: string) => (md ? markdownHtml(s) : s);
  const cls = md ? 'txn-body md' : 'txn-body';
  if (cut === null) return h`<div class="${cls}"${idAttr}>${text(body)}</div>`;
  const lines = body.split('\n').length;
  const url = `/tickets/${ticketId}/transactions/${t.id}`;
  // A copy (the stale warning above the reply box) opens the whole text in a new tab: the page keeps the typed reply.
  const how = copy
    ? h` target="_blank" rel="noopener" hx-boost="false"`
    : h` hx-get="${url}" hx-target="#${id}" hx-swap="outerHTML" hx-push-url="false"`;
  return h`<div class="${cls} folded"${idAttr}>${text(body.slice(0, cut))}<p class="fold"><a href="${url}"${how}>Show all (${EN.format(lines)} lines, ${EN.format(Math.ceil(body.length / 1024))} KB)</a></p></div>`;
}

/** Numbers as `toLocaleString('en')` writes them, with one formatter (building one per call costs ~50 µs). */
const EN = new Intl.NumberFormat('en');

export function History({ p, oob }: { p: TicketPageProps; oob?: boolean }) {
  // real time: only a render outside a request (every page and fragment sets Now from the store's clock).
  const at = { zone: useContext(TimeZone), now: useContext(Now) || Date.now() };
  return h`<ol id="history" class="history" aria-label="History"${oob ? h` hx-swap-oob="true"` : ''}>${p.transactions.map((t) => entryHtml(p, t, false, at))}</ol>`;
}

/** The reader's zone and the render's moment (ms), read once for many entries. */
export interface RenderAt {
  zone: string;
  now: number;
}

/**
 * One entry of the history: the page, a reply's fragment and the live update (SPEC C5) all render
 * it. A `copy` (in the stale warning) has none of the ids of the history's own.
 */
export function HistoryEntry({ p, t, copy }: { p: TicketPageProps; t: TransactionJson; copy?: boolean }) {
  // real time: only a render outside a request (every page and fragment sets Now from the store's clock).
  return entryHtml(p, t, !!copy, { zone: useContext(TimeZone), now: useContext(Now) || Date.now() });
}

/** The entries of a list of them (the live update's, the stale warning's copies), the context read once. */
export function HistoryEntries({
  p,
  entries,
  copy,
}: {
  p: TicketPageProps;
  entries: TransactionJson[];
  copy?: boolean;
}) {
  // real time: only a render outside a request (every page and fragment sets Now from the store's clock).
  const at = { zone: useContext(TimeZone), now: useContext(Now) || Date.now() };
  return h`${entries.map((t) => entryHtml(p, t, !!copy, at))}`;
}

const MARKDOWN_TYPES = new Set(['Create', 'Correspond', 'Comment']);

function entryHtml(p: TicketPageProps, t: TransactionJson, copy: boolean, at: RenderAt): HtmlEscapedString {
  const attrs = copy
    ? h` class="txn txn-${t.type.toLowerCase()}"`
    : h` id="txn-${t.id}" class="txn txn-${t.type.toLowerCase()}" data-txn-id="${t.id}"`;
  const newMark = !copy && isNewEntry(t, p) ? NEW_MARK : '';
  const merged = t.merged_from === null ? '' : MergedFrom({ t });
  const links = copy ? '' : [quoteLink(p, t, at.zone), splitLink(p, t)];
  const body = t.body && t.type !== 'Merge' && t.type !== 'Unmerge' ? TxnBody({ ticketId: p.ticket.id, t, copy }) : '';
  const unmerge = !copy && t.type === 'Merge' ? UnmergeOffer({ p, t }) : '';
  const outside = p.staff && t.outside_sender && !copy ? OutsideSender({ p, t }) : '';
  const files =
    t.attachments.length > 0
      ? h`<ul class="attachments">${t.attachments.map(
          (a) =>
            h`<li><a href="/attachments/${a.id}" download="${a.filename}">${a.filename}</a> <span class="muted">${a.content_type}, ${formatSize(a.size)}</span></li>`,
        )}</ul>`
      : '';
  return h`<li${attrs}><div class="txn-head"><span class="txn-what">${newMark}${withTime(t, p)}${merged}</span>${whenHtml(t.created_at, at.zone, at.now)}${links}</div>${body}${unmerge}${outside}${files}${p.staff ? scripLine(t.scrip_results) : ''}</li>`;
}

const NEW_MARK = h`<span class="txn-new">New</span>`;

/** The "Reply" link of an entry (none for a copy or an entry without public text). */
function quoteLink(p: TicketPageProps, t: TransactionJson, zone: string) {
  if (!quotable(t)) return '';
  const by = userName(p.lookups, t.creator_id, 'hxdesk');
  return h`<a class="txn-quote" href="/tickets/${p.ticket.id}?quote=${t.id}#reply-form" hx-boost="false" data-quote="${t.id}" data-quote-head="${quoteHead(p, t, zone)}" aria-label="Reply quoting the message by ${by}">Reply</a>`;
}

/** SPEC D3: "Split" on a message: staff make a new ticket of it (decision 075). */
function splitLink(p: TicketPageProps, t: TransactionJson) {
  if (!p.staff || !MARKDOWN_TYPES.has(t.type)) return '';
  return h`<a class="txn-split" href="/tickets/${p.ticket.id}/split?transaction_id=${t.id}" aria-label="Split entry #${t.id} off into a new ticket">Split</a>`;
}

/** The scrips' quiet line under an entry (src/views/tickets/scripLine.tsx says what it shows). */
function scripLine(results: ScripResult[]) {
  const s = scripSummary(results);
  if (!s) return '';
  return h`<details class="${s.failed ? 'scrip-line has-failed' : 'scrip-line'}"${s.failed !== null ? h` open=""` : ''}><summary>${s.failed && h`<strong class="scrip-failed">${s.failed}</strong>`}${s.failed && s.words.length > 0 && ' · '}${s.words.join(' · ')}</summary><ul class="scrip-results" aria-label="Scrips">${results.map(
    (r) =>
      h`<li class="${r.ok ? 'ok' : 'failed'}">${r.ok ? '✓' : '✗ Failed:'} ${r.key} <span class="muted">(${r.action}${r.notifications ? `, ${r.notifications} notification${r.notifications > 1 ? 's' : ''}` : ''})</span>${r.error && h`<span class="error"> ${r.error}</span>`}${r.withheld && h`<span class="withheld"> Not mailed to ${r.withheld.recipients.join(', ')}: ${r.withheld.reason}.</span>`}</li>`,
  )}</ul></details>`;
}

const formatSize = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
