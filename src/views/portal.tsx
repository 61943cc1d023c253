import { ConnectionState } from './connection.js';
import type { Child } from 'hono/jsx';
import type { PortalList, PortalTicketJson, PortalTransactionJson, PortalView } from '../domain/portal.js';
import { When } from './format.js';
import { Markdown } from './markdown.js';
import { foldAt } from './tickets/show.js';

// The requester portal (SPEC C2): one plain, phone-sized page layout for customers. It shows
// nothing of the staff side (no owner, queue internals, custom fields or notes) and links
// nowhere a customer cannot go.

export interface PortalUser {
  name: string;
  email: string;
  role: string;
}

/** Customer words for the lifecycle (the JSON keeps the status itself). */
export const CUSTOMER_STATUS: Record<string, string> = {
  new: 'Received',
  open: 'In progress',
  stalled: 'On hold',
  resolved: 'Resolved',
  rejected: 'Closed',
  deleted: 'Closed',
};

const size = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

/** The portal's page shell. `user` is a signed-in customer (their list is one click away). */
export function PortalLayout({ title, user, children }: { title?: string; user: PortalUser | null; children?: Child }) {
  const customer = user && user.role === 'requester' ? user : null;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="htmx-config" content='{"includeIndicatorStyles":false,"historyCacheSize":0}' />
        <title>{title ? `${title} · Support` : 'Support'}</title>
        <link rel="stylesheet" href="/static/app.css" />
        {/* Not deferred: back/forward before htmx is ready still show the address's page (decision 100). */}
        <script src="/static/history-guard.js"></script>
        <script src="/static/htmx.min.js" defer></script>
        <script src="/static/htmx-sse.min.js" defer></script>
        <script src="/static/live.js" defer></script>
        <script src="/static/app.js" defer></script>
        <script src="/static/times.js" defer></script>
        <script src="/static/stream-state.js" defer></script>
      </head>
      <body class="portal-body">
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="portal-top">
          <span class="brand">Support</span>
          {customer && (
            <nav aria-label="Your requests">
              <a href="/portal">My requests</a>
              <a href="/portal/new">New request</a>
              <a href="/portal/settings">Settings</a>
              <form method="post" action="/logout" class="inline-form">
                <button type="submit">Sign out</button>
              </form>
            </nav>
          )}
        </header>
        <ConnectionState />
        <main id="main" class="portal" tabindex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}

function Body({ t }: { t: PortalTransactionJson }) {
  if (!t.body) return null;
  // SPEC D6: text written in hxdesk is Markdown; mail keeps the sender's plain text.
  const text = (s: string) => (t.markdown ? <Markdown source={s} /> : s);
  const cls = t.markdown ? 'txn-body md' : 'txn-body';
  const cut = foldAt(t.body);
  if (cut === null) return <div class={cls}>{text(t.body)}</div>;
  return (
    <div class={cls}>
      {text(t.body.slice(0, cut))}
      <details class="fold">
        <summary>Show the rest ({Math.ceil((t.body.length - cut) / 1024)} KB)</summary>
        {text(t.body.slice(cut))}
      </details>
    </div>
  );
}

/** One public entry: who wrote what, when, with their files (the page and its live update render it). */
export function PortalEntry({ t, base }: { t: PortalTransactionJson; base: string }) {
  return (
    <li
      id={`txn-${t.id}`}
      class={`txn txn-${t.type.toLowerCase()}${t.author.staff ? ' from-staff' : ''}`}
      data-txn-id={String(t.id)}
    >
      <div class="txn-head">
        <span class="txn-what">
          <strong>{t.author.name}</strong>
          {t.type === 'Create' ? ' opened this request' : ' wrote'}
        </span>
        <When iso={t.created_at} />
      </div>
      <Body t={t} />
      {t.attachments.length > 0 && (
        <ul class="attachments" aria-label="Files">
          {t.attachments.map((a) => (
            <li>
              <a href={`${base}/attachments/${a.id}`} download={a.filename} rel="noreferrer">
                {a.filename}
              </a>{' '}
              <span class="muted">{size(a.size)}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The public history. htmx swaps it after a reply. */
export function PortalHistory({ view, base }: { view: PortalView; base: string }) {
  return (
    <ol id="portal-history" class="history" aria-label="Messages">
      {view.transactions.map((t) => (
        <PortalEntry t={t} base={base} />
      ))}
    </ol>
  );
}

/** The request's number, status and age under its subject. */
function PortalStatus({ ticket: t, oob }: { ticket: PortalTicketJson; oob?: boolean }) {
  return (
    <p class="muted" id="portal-status" hx-swap-oob={oob ? 'true' : undefined}>
      Request #{t.id} · <span class={`status status-${t.status}`}>{CUSTOMER_STATUS[t.status] ?? t.status}</span> ·
      opened <When iso={t.created_at} />
    </p>
  );
}

/** `…/live?after=` (SPEC C5): the new public entries, appended to the history, and the status now. */
export function PortalLive({ view, base }: { view: PortalView; base: string }) {
  return (
    <>
      <ol class="history" hx-swap-oob="beforeend:#portal-history">
        {view.transactions.map((t) => (
          <PortalEntry t={t} base={base} />
        ))}
      </ol>
      <PortalStatus ticket={view.ticket} oob />
    </>
  );
}

export function PortalReplyForm({ base, maxBytes, maxFiles }: { base: string; maxBytes: number; maxFiles: number }) {
  const action = `${base}/reply`;
  return (
    <form
      id="portal-reply"
      class="reply"
      method="post"
      action={action}
      enctype="multipart/form-data"
      hx-post={action}
      hx-encoding="multipart/form-data"
      hx-target="#portal-history"
      hx-swap="outerHTML"
      data-error-target="#reply-error"
      data-reset-on-success
    >
      <h2>Add to this request</h2>
      <label for="reply-body">Your message</label>
      <textarea id="reply-body" name="body" rows={6} placeholder="Write your reply…"></textarea>
      <label for="reply-files">
        Attach files{' '}
        <span class="hint">
          (optional, up to {maxFiles} files and {size(maxBytes)} in all)
        </span>
      </label>
      <input id="reply-files" type="file" name="attachments" multiple />
      <div class="reply-actions">
        <button type="submit" class="primary">
          Send
        </button>
      </div>
      <div id="reply-error" class="error reply-error" role="alert" aria-live="polite"></div>
    </form>
  );
}

/** `maxBytes`, `maxFiles`: what one reply may carry (the route's limits: decision 046). */
export interface PortalPageProps {
  view: PortalView;
  base: string;
  maxBytes: number;
  maxFiles: number;
}

export function PortalTicketPage({ view, base, maxBytes, maxFiles }: PortalPageProps) {
  const t = view.ticket;
  return (
    <article
      class="portal-ticket"
      data-ticket-id={String(t.id)}
      hx-ext="sse"
      sse-connect={`${base}/events`}
      data-live-root
    >
      {/* The live update (SPEC C5): new public replies appear as they are written (static/live.js). */}
      <div
        hidden
        hx-get={`${base}/live`}
        hx-trigger={`sse:ticket-${t.id}, live:refresh`}
        hx-swap="none"
        hx-sync="this:queue last"
        data-live-refresh
        data-ticket-live
      ></div>
      <header class="portal-head">
        <h1>{t.subject}</h1>
        <PortalStatus ticket={t} />
      </header>
      <PortalHistory view={view} base={base} />
      <PortalReplyForm base={base} maxBytes={maxBytes} maxFiles={maxFiles} />
      <p class="hint portal-foot">You can also reply to any of our e-mails about this request.</p>
    </article>
  );
}

/** GET /portal: a signed-in customer's requests, every status, newest first, a page at a time (decision 050). */
export function PortalListPage({ list }: { list: PortalList }) {
  const { tickets, total, limit, offset } = list;
  const page = (o: number) => (o > 0 ? `/portal?offset=${o}` : '/portal');
  return (
    <section class="portal-list">
      <div class="portal-list-head">
        <h1>Your requests</h1>
        <a class="button primary" href="/portal/new">
          New request
        </a>
      </div>
      {total === 0 ? (
        <p class="muted">You have no requests with us yet.</p>
      ) : (
        <ul class="portal-tickets">
          {tickets.map((t) => (
            <li>
              <a href={`/portal/tickets/${t.id}`}>{t.subject}</a>
              <span class="muted">
                {' '}
                #{t.id} · <span class={`status status-${t.status}`}>{CUSTOMER_STATUS[t.status] ?? t.status}</span> ·
                updated <When iso={t.updated_at} />
              </span>
            </li>
          ))}
        </ul>
      )}
      {total > limit && (
        <nav class="pager" aria-label="Pages of your requests">
          <span>
            {Math.min(offset + 1, total)}–{Math.min(offset + tickets.length, total)} of {total}
          </span>
          {offset > 0 && (
            <a href={page(Math.max(0, offset - limit))} rel="prev">
              Newer
            </a>
          )}
          {offset + limit < total && (
            <a href={page(offset + limit)} rel="next">
              Older
            </a>
          )}
        </nav>
      )}
    </section>
  );
}

export interface PortalErrorProps {
  status: number;
  headline: string;
  message: string;
  details?: { path: string; message: string }[];
  back?: string;
}

/** A refusal or failure in words, with the way back when there is one. */
export function PortalErrorPage({ status, headline, message, details, back }: PortalErrorProps) {
  return (
    <section class="error-page portal-error" role="alert" data-status={String(status)}>
      <h1>{headline}</h1>
      {/* SPEC D6: each refused field said once, in words (the details name their fields). */}
      {!(details?.length && details.map((d) => d.message).join('; ') === message) && <p>{message}</p>}
      {details && details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li>{d.message}</li>
          ))}
        </ul>
      )}
      {back && (
        <p>
          <a href={back}>Back to your request</a>
        </p>
      )}
    </section>
  );
}
