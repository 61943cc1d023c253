import type { LinkName } from '../../domain/links.js';

import type { LinkedTicket } from '../../domain/linksPanel.js';
import type { OpenDependency } from '../../domain/links.js';
import type { SplitPlan } from '../../domain/split.js';
import type { TransactionJson } from '../../domain/transactions.js';
import type { Lookups } from '../../domain/lookups.js';
import { queueName, STATUS_LABEL, userName, When } from '../format.js';
import type { TicketPageProps } from './pageProps.js';

// SPEC D3 links and split on the ticket page (docs/decisions/075): the Links panel (each kind
// with number, subject and status; an add form by number or subject search; remove buttons),
// the history's words for AddLink / DelLink, a message's "Split" action and its confirmation,
// and the question a move to an inactive status asks while dependencies are not done.

export const LINK_LABEL: Record<LinkName, string> = {
  depends_on: 'Depends on',
  depended_on_by: 'Depended on by',
  refers_to: 'Refers to',
  referred_to_by: 'Referred to by',
  parent_of: 'Parent of',
  child_of: 'Child of',
};
/** The six names in the order the panel shows them (the domain's order). */
const LINK_NAMES = Object.keys(LINK_LABEL) as LinkName[];

/** The history's words for a link entry: "Depends on #12 (linked by Ann)", "Split into #40 by Ann". */
export function linkWords(t: TransactionJson, by: string): string {
  const name = (t.field ?? '') as LinkName;
  const label = LINK_LABEL[name] ?? t.field;
  if (t.type === 'AddLink') {
    const other = `#${t.new_value}`;
    // A split's entries carry the message split off (old_value).
    if (t.old_value && name === 'referred_to_by') return `Split into ${other} by ${by} (message #${t.old_value})`;
    if (t.old_value && name === 'refers_to') return `Split off from ${other} by ${by} (message #${t.old_value})`;
    return `${label} ${other} (linked by ${by})`;
  }
  return `No longer ${label.charAt(0).toLowerCase()}${label.slice(1)} #${t.old_value} (unlinked by ${by})`;
}

const statusWord = (s: string) => STATUS_LABEL[s] ?? s;

function LinkRow({ ticketId, name, other }: { ticketId: number; name: LinkName; other: LinkedTicket }) {
  const url = `/tickets/${ticketId}/links/${name}/${other.id}`;
  return (
    <li class="person link-row">
      <span class="person-who">
        <span class="person-name">
          <a href={`/tickets/${other.id}`}>#{other.id}</a> {other.subject}
        </span>
        <span class="person-note">
          <span class={`status status-${other.status}`}>{statusWord(other.status)}</span>
        </span>
      </span>
      <form
        method="post"
        action={url}
        hx-post={url}
        hx-target="#links"
        hx-swap="outerHTML"
        data-error-target="#links-error"
      >
        <input type="hidden" name="_method" value="DELETE" />
        <button
          type="submit"
          class="link-button"
          aria-label={`Remove link: ${LINK_LABEL[name].toLowerCase()} #${other.id}`}
        >
          Remove
        </button>
      </form>
    </li>
  );
}

/** The Links panel (staff): every kind that has links, then the add form. */
export function LinksPanel({ p, oob }: { p: TicketPageProps; oob?: boolean }) {
  const t = p.ticket;
  const known = new Map((p.linked ?? []).map((x) => [x.id, x]));
  const kinds = LINK_NAMES.filter((n) => t.links[n].length > 0);
  const add = `/tickets/${t.id}/links`;
  return (
    <section id="links" class="people links" aria-labelledby="links-title" hx-swap-oob={oob ? 'true' : undefined}>
      <h2 id="links-title">Links</h2>
      {kinds.length === 0 && <p class="muted small">No linked tickets</p>}
      {kinds.map((name) => (
        <div class="people-role">
          <h3 id={`links-${name}`}>
            {LINK_LABEL[name]} ({t.links[name].length})
          </h3>
          <ul aria-labelledby={`links-${name}`}>
            {t.links[name].map((id) => (
              <LinkRow
                ticketId={t.id}
                name={name}
                other={known.get(id) ?? { id, subject: `Ticket #${id}`, status: '' }}
              />
            ))}
          </ul>
        </div>
      ))}
      <form
        class="people-add"
        method="post"
        action={add}
        hx-post={add}
        hx-target="#links"
        hx-swap="outerHTML"
        data-error-target="#links-error"
      >
        <h3>Link a ticket</h3>
        <label for="links-add-type">This ticket</label>
        <select id="links-add-type" name="type">
          {LINK_NAMES.map((n) => (
            <option value={n}>{LINK_LABEL[n].toLowerCase()}</option>
          ))}
        </select>
        <label for="links-add-ticket">Ticket</label>
        <input
          id="links-add-ticket"
          name="ticket_id"
          type="text"
          inputmode="search"
          autocomplete="off"
          required
          placeholder="#12 or words of its subject"
          list="links-candidates"
          aria-describedby="links-add-hint"
          hx-get={`/tickets/${t.id}/link-search`}
          hx-trigger="input changed delay:250ms"
          hx-target="#links-candidates"
          hx-swap="innerHTML"
          hx-sync="this:replace"
          hx-push-url="false"
        />
        <datalist id="links-candidates"></datalist>
        <small class="hint" id="links-add-hint">
          A ticket number; or type words of its subject and pick one of the suggestions.
        </small>
        <button type="submit">Link</button>
      </form>
      <div id="links-error" class="field-error people-error" role="alert" aria-live="polite"></div>
    </section>
  );
}

/** The add form's suggestions (GET /tickets/:id/link-search, htmx): options of its datalist. */
export function LinkCandidates({ tickets }: { tickets: LinkedTicket[] }) {
  return (
    <>
      {tickets.map((x) => (
        <option value={`#${x.id}`} label={`#${x.id} ${x.subject} (${statusWord(x.status)})`}>
          #{x.id} {x.subject} ({statusWord(x.status)})
        </option>
      ))}
    </>
  );
}

/** "Split…" on a message of the history (staff): the confirmation page says what the new ticket gets. */
export function SplitLink({ p, t }: { p: TicketPageProps; t: TransactionJson }) {
  if (!p.staff || !['Create', 'Correspond', 'Comment'].includes(t.type)) return null;
  return (
    <a
      class="txn-split"
      href={`/tickets/${p.ticket.id}/split?transaction_id=${t.id}`}
      aria-label={`Split entry #${t.id} off into a new ticket`}
    >
      Split
    </a>
  );
}

const PREVIEW_CHARS = 2000;

/** GET /tickets/:id/split?transaction_id=: what a split makes, and the button that makes it. */
export function SplitConfirm({ ticketId, plan, lookups }: { ticketId: number; plan: SplitPlan; lookups: Lookups }) {
  const m = plan.message;
  const text = m.body.length > PREVIEW_CHARS ? `${m.body.slice(0, PREVIEW_CHARS)}…` : m.body;
  return (
    <section class="narrow split-confirm">
      <h1>Split into a new ticket?</h1>
      <p>
        A new ticket in <strong>{queueName(lookups, plan.queue_id)}</strong> starts with this message of ticket{' '}
        <a href={`/tickets/${ticketId}#txn-${m.id}`}>#{ticketId}</a> and refers to #{ticketId}. The message also stays
        in #{ticketId}'s history.
      </p>
      <form method="post" action={`/tickets/${ticketId}/split`} class="split-form">
        <input type="hidden" name="transaction_id" value={String(m.id)} />
        <label for="split-subject">Subject of the new ticket</label>
        <input id="split-subject" name="subject" type="text" value={plan.subject} maxlength={500} required />
        <dl class="split-what">
          <dt>Requester</dt>
          <dd>{plan.requester_id === null ? 'None' : userName(lookups, plan.requester_id)}</dd>
          <dt>Message</dt>
          <dd>
            by {userName(lookups, m.creator_id, 'hxdesk')}, <When iso={m.created_at} />
            {m.type === 'Comment' && (
              <p class="muted small">
                An internal note: it becomes the new ticket's description, which its requester can read.
              </p>
            )}
          </dd>
          <dt>Files</dt>
          <dd>
            {plan.files.length === 0 ? (
              'None'
            ) : (
              <ul class="split-files">
                {plan.files.map((f) => (
                  <li>
                    {f.filename} <span class="muted">({f.content_type})</span>
                  </li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Text</dt>
          <dd>
            <div class="split-text">{text || <span class="muted">(no text)</span>}</div>
          </dd>
        </dl>
        <p class="confirm-actions">
          <button type="submit" class="primary">
            Split into a new ticket
          </button>{' '}
          <a href={`/tickets/${ticketId}#txn-${m.id}`}>Cancel</a>
        </p>
      </form>
    </section>
  );
}

/**
 * SPEC D3: "Resolve anyway?" — a move to an inactive status refused while the ticket depends on
 * tickets not done. With htmx it is shown where the status form says its errors; without
 * JavaScript, a page with a form. Either sends the change again with `force`.
 */
export function DependsQuestion({
  ticketId,
  status,
  open,
  standalone,
}: {
  ticketId: number;
  status: string;
  open: OpenDependency[];
  standalone?: boolean;
}) {
  const word = statusWord(status);
  const list = (
    <>
      <p id={`depends-${ticketId}`}>
        Ticket #{ticketId} depends on {open.length === 1 ? 'a ticket that is' : `${open.length} tickets that are`} not
        done yet:
      </p>
      <ul class="depends-open">
        {open.map((d) => (
          <li>
            <a href={`/tickets/${d.id}`}>#{d.id}</a> {d.subject} <span class="muted">({statusWord(d.status)})</span>
          </li>
        ))}
      </ul>
    </>
  );
  if (!standalone)
    return (
      <div class="take-confirm depends-confirm">
        {list}
        <button
          type="button"
          class="primary"
          autofocus
          aria-describedby={`depends-${ticketId}`}
          hx-patch={`/tickets/${ticketId}`}
          hx-vals={JSON.stringify({ status, force: 'true' })}
          hx-target="#properties"
          hx-swap="outerHTML"
        >
          {word} anyway
        </button>{' '}
        <button type="button" data-take-cancel>
          Cancel
        </button>
      </div>
    );
  return (
    <section class="narrow take-confirm depends-confirm">
      <h1>{word} anyway?</h1>
      <form method="post" action={`/tickets/${ticketId}`}>
        <input type="hidden" name="_method" value="PATCH" />
        <input type="hidden" name="status" value={status} />
        <input type="hidden" name="force" value="true" />
        {list}
        <p class="confirm-actions">
          <button type="submit" class="primary" autofocus>
            {word} anyway
          </button>{' '}
          <a href={`/tickets/${ticketId}`}>Cancel</a>
        </p>
      </form>
    </section>
  );
}
