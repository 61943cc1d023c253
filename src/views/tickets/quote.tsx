import type { TransactionJson } from '../../domain/transactions.js';
import { splitSignature } from '../../markdown.js';
import { userName, when } from '../format.js';
import type { TicketPageProps } from './pageProps.js';

// SPEC D6, "Reply" on a history entry: its text quoted into the reply box, under "On <date>,
// <name> wrote:". With JavaScript (static/convo.js) the link fills the box in place, reading the
// entry as JSON and quoting it the same way; without, it is a link to the page with
// `?quote=<id>`, whose reply box comes with the quote in it.

/** The entries a reply may quote: the public messages (a new ticket's text, replies) that have text. */
export const quotable = (t: Pick<TransactionJson, 'type' | 'body'>) =>
  (t.type === 'Create' || t.type === 'Correspond') && !!t.body && t.body.trim() !== '';

/** "On 2026-11-21 09:41, Ann Lee wrote:" in the reader's time zone. */
export const quoteHead = (p: TicketPageProps, t: TransactionJson, zone?: string) =>
  `On ${when(t.created_at, zone)}, ${userName(p.lookups, t.creator_id, 'hxdesk')} wrote:`;

/** The quote as it goes into the reply box: the head, then each line of the text (without its signature) after "> ". */
export function quoteText(head: string, body: string): string {
  const text = splitSignature(body).message.replace(/\s+$/, '');
  const lines = text.split('\n').map((l) => (l === '' ? '>' : `> ${l}`));
  return `${head}\n${lines.join('\n')}\n\n`;
}

/** The reply box's text for `?quote=`: the quoted entry, or '' when it is not one of this page's quotable entries. */
export function quoteFor(p: TicketPageProps, id: number | undefined): string {
  const t = id === undefined ? undefined : p.transactions.find((x) => x.id === id);
  return t && quotable(t) ? quoteText(quoteHead(p, t), t.body!) : '';
}

/** The "Reply" link of an entry (none for a copy or an entry without public text). */
export function QuoteLink({ p, t }: { p: TicketPageProps; t: TransactionJson }) {
  if (!quotable(t)) return null;
  const by = userName(p.lookups, t.creator_id, 'hxdesk');
  return (
    <a
      class="txn-quote"
      href={`/tickets/${p.ticket.id}?quote=${t.id}#reply-form`}
      hx-boost="false"
      data-quote={String(t.id)}
      data-quote-head={quoteHead(p, t)}
      aria-label={`Reply quoting the message by ${by}`}
    >
      Reply
    </a>
  );
}
