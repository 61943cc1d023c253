import type { Lookups, Person } from '../../domain/lookups.js';
import { StatusColors, statusText } from './statusColors.js';
import type { TransactionJson } from '../../domain/transactions.js';
import { useContext } from 'hono/jsx';
import { exactTime, queueName, teamName, TimeZone, userName, When, when } from '../format.js';
import { Presence } from '../live.js';
import { isMarkdown, Markdown } from '../markdown.js';
import { PeopleBox, publicReplyWords } from './people.js';
import { ScripLine } from './scripLine.js';
import { QuoteLink, quoteFor } from './quote.js';
import { SeenMarker, StaleNote, StaleWarning } from './stale.js';
import { Properties } from './properties.js';
import { DeletedBanner, SubjectEdit, SubjectEditButton } from './safeEdits.js';
import type { ReplyDraft, TicketPageProps } from './pageProps.js';
import { DraftSaver, DraftStatus } from './drafts.js';
import { isNewEntry, NewMark } from './unread.js';
import { CustomerPanel } from './customer.js';
import { CLOCK_LABEL } from './sla.js';
import { linkWords, LinksPanel, SplitLink } from './links.js';
import { MergedFrom, TicketActions, UnmergeOffer } from './merge.js';
import { TagsBox } from './tags.js';
import { RATING_LABEL } from '../csat.js';
import type { Rating } from '../../domain/csat.js';
import { ReplyTime } from './timeWorked.js';
import { dayText, minutesText } from '../minutes.js';

export { Properties };

export type { ReplyDraft, TicketPageProps };

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
  const u = id === null ? undefined : l.users.find((x) => x.id === id);
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
}) {
  const body = t.body ?? '';
  const cut = whole ? null : foldAt(body);
  const id = copy ? undefined : `txn-body-${t.id}`;
  // SPEC D6: text written in hxdesk is Markdown; mail keeps the sender's plain text.
  const md = isMarkdown(t);
  const text = (s: string) => (md ? <Markdown source={s} /> : s);
  const cls = md ? 'txn-body md' : 'txn-body';
  if (cut === null)
    return (
      <div class={cls} id={id}>
        {text(body)}
      </div>
    );
  const lines = body.split('\n').length;
  const url = `/tickets/${ticketId}/transactions/${t.id}`;
  // A copy (the stale warning above the reply box) opens the whole text in a new tab: the page keeps the typed reply.
  const how = copy
    ? { target: '_blank', rel: 'noopener', 'hx-boost': 'false' }
    : { 'hx-get': url, 'hx-target': `#${id}`, 'hx-swap': 'outerHTML', 'hx-push-url': 'false' };
  return (
    <div class={`${cls} folded`} id={id}>
      {text(body.slice(0, cut))}
      <p class="fold">
        <a href={url} {...how}>
          Show all ({lines.toLocaleString('en')} lines, {Math.ceil(body.length / 1024).toLocaleString('en')} KB)
        </a>
      </p>
    </div>
  );
}

export function History({ p, oob }: { p: TicketPageProps; oob?: boolean }) {
  return (
    <ol id="history" class="history" aria-label="History" hx-swap-oob={oob ? 'true' : undefined}>
      {p.transactions.map((t) => (
        <HistoryEntry p={p} t={t} />
      ))}
    </ol>
  );
}

/**
 * One entry of the history: the page, a reply's fragment and the live update (SPEC C5) all render
 * it. A `copy` (in the stale warning) has none of the ids of the history's own.
 */
export function HistoryEntry({ p, t, copy }: { p: TicketPageProps; t: TransactionJson; copy?: boolean }) {
  return (
    <li
      id={copy ? undefined : `txn-${t.id}`}
      class={`txn txn-${t.type.toLowerCase()}`}
      data-txn-id={copy ? undefined : String(t.id)}
    >
      <div class="txn-head">
        <span class="txn-what">
          {!copy && isNewEntry(t, p) && <NewMark />}
          {withTime(t, p)}
          <MergedFrom t={t} />
        </span>
        <When iso={t.created_at} />
        {!copy && <QuoteLink p={p} t={t} />}
        {!copy && <SplitLink p={p} t={t} />}
      </div>
      {t.body && t.type !== 'Merge' && t.type !== 'Unmerge' && <TxnBody ticketId={p.ticket.id} t={t} copy={copy} />}
      {!copy && <UnmergeOffer p={p} t={t} />}
      {p.staff && t.outside_sender && !copy && <OutsideSender p={p} t={t} />}
      {t.attachments.length > 0 && (
        <ul class="attachments">
          {t.attachments.map((a) => (
            <li>
              <a href={`/attachments/${a.id}`} download={a.filename}>
                {a.filename}
              </a>{' '}
              <span class="muted">
                {a.content_type}, {formatSize(a.size)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {p.staff && <ScripLine results={t.scrip_results} />}
    </li>
  );
}

const formatSize = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

export function TicketHead({ p, oob }: { p: TicketPageProps; oob?: boolean }) {
  const t = p.ticket;
  return (
    <header id="ticket-head" class="page-head ticket-head" hx-swap-oob={oob ? 'true' : undefined}>
      <h1>
        <span class="muted">#{t.id}</span> {p.staff ? <SubjectEdit p={p} /> : t.subject}
      </h1>
      {p.staff && <SubjectEditButton p={p} />}
      <span class={`status status-${t.status}`}>{statusText(t.status)}</span>
      <DeletedBanner p={p} />
      <StatusColors colors={p.colors} />
    </header>
  );
}

const peopleOf = (l: Lookups, ids: number[]): Person[] =>
  ids.map(
    (id) =>
      l.users.find((u) => u.id === id) ?? { id, name: `User #${id}`, email: '', role: 'requester', disabled: false },
  );

/** The ticket's people by role, as the People box and the reply choice show them. */
function ticketPeople(p: TicketPageProps) {
  const { ticket: t, lookups: l } = p;
  return {
    requesters: peopleOf(l, t.requesters),
    cc: peopleOf(l, t.cc),
    adminCc: peopleOf(l, t.admin_cc),
    queueCc: peopleOf(l, p.queueWatchers.cc),
    queueAdminCc: peopleOf(l, p.queueWatchers.admin_cc),
  };
}

/**
 * SPEC D0: whether what a customer writes is still held back from the other customers: the ticket
 * has more than one customer and no staff member has written publicly on it yet.
 */
function relayHeld(p: TicketPageProps): boolean {
  const { ticket: t, lookups: l } = p;
  if (new Set([...t.requesters, ...t.cc, ...p.queueWatchers.cc]).size < 2) return false;
  const staff = (id: number | null) => {
    const role = l.users.find((u) => u.id === id)?.role;
    return role === 'admin' || role === 'agent';
  };
  return !p.transactions.some((x) => (x.type === 'Create' || x.type === 'Correspond') && staff(x.creator_id));
}

/** "(mailed to Ann Lee, Cc Bob)": requesters (To) and Cc, the ticket's and the queue's, without the writer and disabled people. */
export function ReplyRecipients({ p, oob }: { p: TicketPageProps; oob?: boolean }) {
  const people = ticketPeople(p);
  const mailed = (u: Person) => u.id !== p.actorId && !u.disabled;
  const to = people.requesters.filter(mailed);
  const cc = [...people.cc, ...people.queueCc].filter(
    (u, i, all) =>
      mailed(u) && !people.requesters.some((r) => r.id === u.id) && all.findIndex((x) => x.id === u.id) === i,
  );
  return (
    <span id="reply-recipients" hx-swap-oob={oob ? 'true' : undefined}>
      {publicReplyWords(to, cc)}
    </span>
  );
}

export function People({ p, oob }: { p: TicketPageProps; oob?: boolean }) {
  return (
    <PeopleBox
      ticketId={p.ticket.id}
      {...ticketPeople(p)}
      notAdded={p.notAdded ?? []}
      relayHeld={relayHeld(p)}
      oob={oob}
    />
  );
}

/** After someone was added or removed: the People box (target), the history and who a reply goes to. */
export function PeopleChanged({ p }: { p: TicketPageProps }) {
  return (
    <>
      <People p={p} />
      <History p={p} oob />
      <ReplyRecipients p={p} oob />
    </>
  );
}

/** The canned response picker (SPEC C4): type a name, pick it, and its text is inserted (static/reply-box.js). */
function CannedPicker({ p }: { p: TicketPageProps }) {
  const responses = p.responses ?? [];
  if (!p.staff || responses.length === 0) return null;
  return (
    <div class="canned-picker">
      <label for="canned-response">Canned response</label>
      <div class="canned-row">
        <input
          id="canned-response"
          list="canned-responses"
          autocomplete="off"
          placeholder="Type a name…"
          data-canned-picker
          data-ticket-id={String(p.ticket.id)}
          aria-describedby="canned-hint"
        />
        <button type="button" data-canned-insert>
          Insert
        </button>
      </div>
      <datalist id="canned-responses">
        {responses.map((r) => (
          <option value={r.name} data-id={String(r.id)} data-set-status={r.set_status ?? ''} />
        ))}
      </datalist>
      <small class="hint" id="canned-hint">
        Enter inserts it into the message, where it can be edited before sending.
      </small>
    </div>
  );
}

const MIB = 1024 * 1024;
const limitText = (n: number) => (n >= MIB ? `${+(n / MIB).toFixed(1)} MiB` : `${+(n / 1024).toFixed(1)} KiB`);

/** The newest history entry a reader has been shown: the reply box's marker (SPEC C5). */
const newestId = (entries: TransactionJson[]) => (entries.length ? Math.max(...entries.map((t) => t.id)) : undefined);

/** The new entries above the reply box (none: the empty place they go). */
function Stale({ p, stale, oob }: { p: TicketPageProps; stale: TransactionJson[]; oob?: boolean }) {
  return (
    <StaleWarning count={stale.length} files={p.reply?.files} oob={oob}>
      {stale.map((t) => (
        <HistoryEntry p={p} t={t} copy />
      ))}
    </StaleWarning>
  );
}

/** Where the reply box's errors are said (`data-error-target`); emptied out of band by a sent message. */
const ReplyErrorPlace = ({ oob }: { oob?: boolean }) => (
  <div
    id="reply-error"
    class="error reply-error"
    role="alert"
    aria-live="polite"
    hx-swap-oob={oob ? 'true' : undefined}
  ></div>
);

export function ReplyBox({ p }: { p: TicketPageProps }) {
  const id = p.ticket.id;
  const draft = p.reply;
  // SPEC D6: without a refused message to show again, the reader's saved draft fills the box.
  // An explicit Reply-quote (`?quote=`) comes before the saved draft, after a refused message.
  const saved = draft || p.quote ? null : (p.savedDraft ?? null);
  const internal = draft ? draft.internal : saved?.kind === 'note';
  const text = draft?.body ?? (p.quote ? quoteFor(p, p.quote) : saved?.body);
  // The marker is the newest entry this page showed; live updates of the history do not move it
  // (the writer has not necessarily read them): only a sent message or the stale warning does.
  const seen = draft ? newestId(draft.stale) : newestId(p.transactions);
  return (
    <form
      id="reply-form"
      class="reply"
      method="post"
      action={`/tickets/${id}/comment`}
      enctype="multipart/form-data"
      hx-post={`/tickets/${id}/comment`}
      hx-encoding="multipart/form-data"
      hx-target="#history"
      hx-swap="outerHTML"
      data-error-target="#reply-error"
      data-reset-on-success
      data-reply-box
      data-errors-in-box
    >
      <h2>Respond</h2>
      <Stale p={p} stale={draft?.stale ?? []} />
      <SeenMarker value={seen} />
      {p.staff ? (
        <fieldset class="reply-kind">
          <legend class="visually-hidden">Kind of message</legend>
          <label>
            <input type="radio" name="internal" value="false" checked={!internal} />{' '}
            <span>
              Public reply <ReplyRecipients p={p} />
            </span>
          </label>
          <label>
            <input type="radio" name="internal" value="true" checked={internal} /> Internal note (owner and AdminCc
            only)
          </label>
        </fieldset>
      ) : (
        <input type="hidden" name="internal" value="false" />
      )}
      <CannedPicker p={p} />
      <label for="reply-body" class="visually-hidden">
        Message
      </label>
      <textarea id="reply-body" name="body" rows={6} placeholder="Write a message…">
        {text !== undefined ? `\n${text}` /* the parser drops one leading newline */ : ''}
      </textarea>
      {p.staff && (
        <>
          <input type="hidden" name="set_status" value={draft?.set_status ?? ''} id="reply-set-status" />
          <p id="reply-status-note" class="reply-status-note" role="status" hidden={!draft?.set_status}>
            <span>{draft?.set_status ? `Will set status to ${draft.set_status}.` : ''}</span>{' '}
            <button type="button" data-clear-status>
              Keep the status
            </button>
          </p>
        </>
      )}
      {p.staff && <ReplyTime ticketId={id} minutes={draft?.time_minutes} />}
      <div class="reply-files">
        <label for="reply-attachments">Attach files</label>
        <input type="file" id="reply-attachments" name="attachments" multiple aria-describedby="reply-files-hint" />
        <ul id="reply-file-list" class="reply-file-list" aria-label="Files to send"></ul>
        <small class="hint" id="reply-files-hint">
          Or drop files on the reply box, or paste them into the message.
          {p.maxAttachmentBytes ? ` At most ${limitText(p.maxAttachmentBytes)} in all.` : ''}
        </small>
      </div>
      <div class="reply-actions">
        <button type="submit" class="primary">
          Send
        </button>
        {p.staff && <DraftStatus draft={saved} />}
      </div>
      <ReplyErrorPlace />
    </form>
  );
}

/**
 * After a PATCH: the properties (target) plus the head and history, swapped out of band; for
 * staff also the People box and who a reply goes to (a new queue brings its own Cc and AdminCc).
 */
export function TicketChanged({ p }: { p: TicketPageProps }) {
  return (
    <>
      <Properties p={p} />
      <TicketHead p={p} oob />
      <History p={p} oob />
      {p.staff && (
        <>
          <People p={p} oob />
          <ReplyRecipients p={p} oob />
        </>
      )}
    </>
  );
}

/**
 * After a reply: the history (target) plus the properties (a reply may reopen the ticket); the
 * reply box's marker moves to the newest entry, and a stale warning or an earlier error goes (SPEC C5).
 */
export function TicketReplied({ p }: { p: TicketPageProps }) {
  return (
    <>
      <History p={p} />
      <Properties p={p} oob />
      <TicketHead p={p} oob />
      <Stale p={p} stale={[]} oob />
      <SeenMarker value={newestId(p.transactions)} oob />
      <ReplyErrorPlace oob />
      {p.staff && <DraftStatus draft={null} oob />}
    </>
  );
}

/**
 * A reply refused as stale (htmx, 409): a line for the reply box's error place (the target),
 * the new entries above the text and the marker moved past them, out of band. The text, files
 * and kind stay as they are: the form is not swapped.
 */
export function ReplyRefused({ p, stale }: { p: TicketPageProps; stale: TransactionJson[] }) {
  return (
    <>
      <StaleNote />
      <Stale p={p} stale={stale} oob />
      <SeenMarker value={newestId(stale)} oob />
    </>
  );
}

/**
 * GET /tickets/:id/live (SPEC C5): what changed since the page's last entry. `p.transactions` are
 * the new entries only, appended to the history; the other parts are swapped whole, out of band
 * (static/live.js leaves a part alone while the agent is using a control in it, and loads it
 * again once they leave). The reply box is never part of it: only who a reply goes to.
 */
export function TicketLive({ p }: { p: TicketPageProps }) {
  return (
    <>
      <ol class="history" hx-swap-oob="beforeend:#history">
        {p.transactions.map((t) => (
          <HistoryEntry t={t} p={p} />
        ))}
      </ol>
      <Properties p={p} oob />
      <TicketHead p={p} oob />
      {p.staff && (
        <>
          <People p={p} oob />
          <LinksPanel p={p} oob />
          <ReplyRecipients p={p} oob />
          <TagsBox ticketId={p.ticket.id} tags={p.ticket.tags} oob />
        </>
      )}
    </>
  );
}

/**
 * The ticket page, its live root (SPEC C5): one stream (`/events?ticket=`) for presence and for
 * this ticket's changes; on each, the hidden #ticket-live loads what is new (static/live.js adds
 * `after`, the page's last entry, to its request).
 */
export function TicketPage({ p }: { p: TicketPageProps }) {
  const id = p.ticket.id;
  return (
    <section
      id="ticket"
      class="ticket-page"
      data-ticket-id={String(id)}
      hx-ext="sse"
      sse-connect={`/events?ticket=${id}`}
      data-live-root
      data-typing-url={p.staff ? `/tickets/${id}/typing` : undefined}
    >
      <div
        id="ticket-live"
        hidden
        hx-get={`/tickets/${id}/live`}
        hx-trigger={`sse:ticket-${id}, live:refresh`}
        hx-swap="none"
        hx-sync="this:queue last"
        data-live-refresh
        data-ticket-live
      ></div>
      <TicketHead p={p} />
      {p.staff && (
        <div class="presence-slot" role="status" aria-live="polite">
          <Presence viewers={[]} />
        </div>
      )}
      <div class="ticket-grid">
        <div class="ticket-main">
          <History p={p} />
          {p.ticket.status !== 'deleted' && <ReplyBox p={p} />}
          {p.staff && p.ticket.status !== 'deleted' && <DraftSaver ticketId={id} />}
        </div>
        <div class="ticket-side">
          <Properties p={p} />
          {p.staff && <TagsBox ticketId={id} tags={p.ticket.tags} />}
          {p.staff && <People p={p} />}
          {p.staff && <LinksPanel p={p} />}
          {p.customer && <CustomerPanel c={p.customer} />}
          {p.staff && <TicketActions p={p} />}
        </div>
      </div>
    </section>
  );
}
