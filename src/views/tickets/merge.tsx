import { useContext } from 'hono/jsx';
import type { TransactionJson } from '../../domain/transactions.js';
import { Now, STATUS_LABEL } from '../format.js';
import type { TicketPageProps } from './pageProps.js';

// SPEC D3 merge and spam on the ticket page (decisions 076, 077): the actions beside the ticket,
// the merge search and its confirmation, the spam confirmation, and the Unmerge offer on a
// Merge entry of the history. Every control is a link or a plain form: no script needed.

const DAY_MS = 86_400_000;
/** How long a merge can be undone (src/domain/merge/merge.ts UNMERGE_DAYS). */
const UNMERGE_DAYS = 30;

export function TicketActions({ p }: { p: TicketPageProps }) {
  const id = p.ticket.id;
  return (
    <section id="ticket-actions" class="ticket-actions" aria-labelledby="ticket-actions-title">
      <h2 id="ticket-actions-title">More actions</h2>
      <ul class="action-list">
        <li>
          <a href={`/tickets/${id}/merge`}>Merge into another ticket…</a>
        </li>
        <li>
          <a href={`/tickets/${id}/spam`} class="danger-link">
            Mark as spam…
          </a>
        </li>
      </ul>
    </section>
  );
}

/** "from #12" on an entry a merge moved here (or mail that came through #12's thread). */
export function MergedFrom({ t }: { t: TransactionJson }) {
  if (t.merged_from === null) return null;
  return (
    <span class="merged-from muted small">
      from <a href={`/tickets/${t.merged_from}`}>#{t.merged_from}</a>
    </span>
  );
}

/** On a Merge entry: Unmerge, while the merge is not undone and younger than 30 days. */
export function UnmergeOffer({ p, t }: { p: TicketPageProps; t: TransactionJson }) {
  if (!p.staff || t.type !== 'Merge' || t.new_value === null) return null;
  const merged = t.new_value;
  const undone = p.transactions.some((x) => x.type === 'Unmerge' && x.old_value === merged && x.id > t.id);
  const now = useContext(Now);
  if (undone || now - Date.parse(t.created_at) > UNMERGE_DAYS * DAY_MS) return null;
  const url = `/tickets/${p.ticket.id}/unmerge`;
  return (
    <form method="post" action={url} class="unmerge-form">
      <input type="hidden" name="ticket_id" value={merged} />
      <button type="submit" aria-label={`Unmerge #${merged} from this ticket`}>
        Unmerge #{merged}
      </button>
      <span class="muted small"> (possible for {UNMERGE_DAYS} days after the merge)</span>
    </form>
  );
}

export interface MergeCandidate {
  id: number;
  subject: string;
  status: string;
}

/** GET /tickets/:id/merge (a page): find the ticket to merge into, by number or subject. */
export function MergeSearchPage({
  ticket,
  q,
  candidates,
}: {
  ticket: { id: number; subject: string };
  q: string;
  candidates: MergeCandidate[];
}) {
  return (
    <section class="narrow merge-page">
      <h1>
        Merge #{ticket.id} {ticket.subject}
      </h1>
      <p>
        Everything on this ticket — its messages, files, people, tags and links — moves into the ticket you choose. Its
        number, mail and portal links keep working and lead there. A merge can be undone for {UNMERGE_DAYS} days.
      </p>
      <form method="get" action={`/tickets/${ticket.id}/merge`} role="search" class="merge-search">
        <label for="merge-q">Ticket number or subject</label>
        <div class="merge-search-row">
          <input id="merge-q" name="q" type="search" value={q} required maxlength={200} autofocus />
          <button type="submit">Search</button>
        </div>
      </form>
      {q !== '' &&
        (candidates.length === 0 ? (
          <p role="status">No other ticket matches “{q}”.</p>
        ) : (
          <>
            <h2>Merge into</h2>
            <ul class="merge-candidates">
              {candidates.map((c) => (
                <li>
                  <a href={`/tickets/${ticket.id}/merge?into=${c.id}`}>
                    #{c.id} {c.subject}
                  </a>{' '}
                  <span class={`status status-${c.status}`}>{STATUS_LABEL[c.status] ?? c.status}</span>
                </li>
              ))}
            </ul>
          </>
        ))}
      <p>
        <a href={`/tickets/${ticket.id}`}>Back to #{ticket.id}</a>
      </p>
    </section>
  );
}

export interface MergePreviewView {
  ticket: { id: number; subject: string };
  into: { id: number; subject: string };
  entries: number;
  people: number;
  tags: number;
  links: number;
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** GET /tickets/:id/merge?into=N (a page): what will move, and the button that does it. */
export function MergeConfirmPage({ m }: { m: MergePreviewView }) {
  return (
    <section class="narrow merge-page">
      <h1>
        Merge #{m.ticket.id} into #{m.into.id}?
      </h1>
      <p>
        <strong>
          #{m.ticket.id} {m.ticket.subject}
        </strong>{' '}
        will be merged into{' '}
        <strong>
          #{m.into.id} {m.into.subject}
        </strong>
        . What moves:
      </p>
      <ul class="merge-moves">
        <li>{count(m.entries, 'history entry', 'history entries')} (with their files, keeping their dates)</li>
        <li>{count(m.people, 'person', 'people')} (requesters, Cc and AdminCc)</li>
        <li>{count(m.tags, 'tag', 'tags')}</li>
        <li>{count(m.links, 'link', 'links')}</li>
      </ul>
      <p class="muted">
        #{m.ticket.id} then leads to #{m.into.id}. You can undo this from the history of #{m.into.id} for {UNMERGE_DAYS}{' '}
        days.
      </p>
      <form method="post" action={`/tickets/${m.ticket.id}/merge`} class="confirm-actions">
        <input type="hidden" name="into" value={String(m.into.id)} />
        <button type="submit" class="primary">
          Merge into #{m.into.id}
        </button>{' '}
        <a href={`/tickets/${m.ticket.id}/merge`}>Choose another ticket</a>{' '}
        <a href={`/tickets/${m.ticket.id}`}>Cancel</a>
      </form>
    </section>
  );
}

export interface SpamQuestion {
  ticket: { id: number; subject: string };
  requester: { id: number; email: string; staff: boolean } | null;
}

/** GET /tickets/:id/spam (a page): what the Spam action does, and its button. */
export function SpamConfirmPage({ q }: { q: SpamQuestion }) {
  const who = q.requester;
  return (
    <section class="narrow spam-page">
      <h1>Mark #{q.ticket.id} as spam?</h1>
      <p>
        <strong>
          #{q.ticket.id} {q.ticket.subject}
        </strong>{' '}
        will be deleted
        {who && !who.staff ? (
          <>
            {' '}
            and <strong>{who.email}</strong> blocked: their mail will be refused (nothing is sent back) until an
            administrator unblocks them.
          </>
        ) : (
          '.'
        )}
      </p>
      {who?.staff && (
        <p role="alert" class="field-error">
          The requester, {who.email}, is staff: staff cannot be blocked. Change the requester, or delete the ticket.
        </p>
      )}
      <form method="post" action={`/tickets/${q.ticket.id}/spam`} class="confirm-actions">
        <button type="submit" class="danger" disabled={who?.staff}>
          Mark as spam
        </button>{' '}
        <a href={`/tickets/${q.ticket.id}`}>Cancel</a>
      </form>
    </section>
  );
}
