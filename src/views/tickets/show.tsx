import type { Lookups, Person } from '../../domain/lookups.js';
import { StatusColors, statusText } from './statusColors.js';
import type { TransactionJson } from '../../domain/transactions.js';
import { userById } from '../format.js';
import { Presence } from '../live.js';
import { PeopleBox, publicReplyWords } from './people.js';
import { quoteFor } from './quote.js';
import { SeenMarker, StaleNote, StaleWarning } from './stale.js';
import { Properties } from './properties.js';
import { DeletedBanner, SubjectEdit, SubjectEditButton } from './safeEdits.js';
import type { ReplyDraft, TicketPageProps } from './pageProps.js';
import { DraftSaver, DraftStatus } from './drafts.js';
import { CustomerPanel } from './customer.js';
import { LinksPanel } from './links.js';
import { TicketActions } from './merge.js';
import { TagsBox } from './tags.js';
import { ReplyTime } from './timeWorked.js';

import { History, HistoryEntries, HistoryEntry, TxnBody, foldAt, FOLD_CHARS, FOLD_LINES } from './history.js';

export { Properties, History, HistoryEntry, TxnBody, foldAt, FOLD_CHARS, FOLD_LINES };

export type { ReplyDraft, TicketPageProps };

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
  ids.map((id) => userById(l, id) ?? { id, name: `User #${id}`, email: '', role: 'requester', disabled: false });

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
    const role = id === null ? undefined : userById(l, id)?.role;
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
      <HistoryEntries p={p} entries={stale} copy />
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
      {/* The status comes before Send: its words grow leftwards and never move the button (right-aligned),
          which the pointer may be pressing as the save its blur started comes back (decision 117). */}
      <div class="reply-actions">
        {p.staff && <DraftStatus draft={saved} />}
        <button type="submit" class="primary">
          Send
        </button>
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
        <HistoryEntries p={p} entries={p.transactions} />
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
