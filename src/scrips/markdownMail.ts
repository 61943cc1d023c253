import { eq, sql } from 'drizzle-orm';
import { type Conn, prepared } from '../db/port.js';
import { transactions } from '../db/tables.js';
import { renderMarkdown, splitSignature, writtenHere } from '../markdown.js';
import { htmlDocument, textFragment } from './html.js';

// The HTML part of a mail that carries text written in hxdesk (SPEC D6, docs/decisions/053): the
// template's own words stay plain text made HTML as before (src/scrips/html.ts), the message
// itself is its Markdown rendered, and its signature stays plain text, muted. The text part is
// the row's body as it is: the Markdown source, which reads as it was typed.

const GAP = 'margin:1em 0';

const writtenOf = prepared((db) =>
  db
    .select({
      type: transactions.type,
      body: transactions.body,
      message_id: transactions.message_id,
      outside_sender: transactions.outside_sender,
    })
    .from(transactions)
    .where(eq(transactions.id, sql.placeholder('id'))),
);

/** The Markdown a mail carries: its transaction's text when that was written in hxdesk; null for mail-born or no text. */
export async function markdownOfRow(conn: Conn, transactionId: number | null): Promise<string | null> {
  if (transactionId === null) return null;
  const t = await writtenOf(conn).get({ id: transactionId });
  if (!t || !t.body || !['Create', 'Correspond', 'Comment'].includes(t.type) || !writtenHere(t)) return null;
  return t.body.replace(/\r\n?/g, '\n');
}

/**
 * The HTML document of a mail body that contains `markdown` (the transaction's text, as the
 * template put it in); null when the template changed it on the way (a filter), so it is not
 * found as it is: the caller falls back to the plain text's HTML.
 */
export function markdownMailHtml(mailBody: string, markdown: string): string | null {
  const body = mailBody.replace(/\r\n?/g, '\n');
  const at = markdown.trim() === '' ? -1 : body.indexOf(markdown);
  if (at < 0) return null;
  const before = body.slice(0, at).replace(/\s+$/, '');
  const after = body.slice(at + markdown.length).replace(/^(?:[ \t]*\n)+/, '');
  const { message, signature } = splitSignature(markdown);
  const block = (text: string) => (text.trim() === '' ? '' : `<div style="${GAP}">${textFragment(text)}</div>`);
  return htmlDocument(
    [block(before), renderMarkdown(message, { mail: true }), block(signature), block(after)].join('\n'),
  );
}
