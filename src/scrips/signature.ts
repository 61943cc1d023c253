import { eq, sql } from 'drizzle-orm';
import { type Conn, prepared } from '../db/port.js';
import { queues, tickets, users } from '../db/tables.js';
import { queueRowOf, sampleScope } from './context.js';
import { renderTemplate, templateError } from './templates.js';

// Signatures (SPEC C3): a staff user's own and the queue's, Liquid, closing every public reply
// the user writes on the web or through the API. They are added to the reply when it is written,
// so the stored transaction is what the customer got (and what a later reader sees).

/** What a signature may use: who writes, from which queue, about which ticket. */
export interface SignatureScope {
  user: { name: string; email: string };
  queue: { name: string; mail_alias: string | null };
  ticket: { id: number; subject: string };
}

/** The sign-off delimiter of RFC 3676 (mail programs fold or grey out what follows it). */
export const DELIMITER = '-- \n';

/**
 * The scope a signature is checked against when it is saved: sample values from the template
 * sample, but only the variables a signature has, so `{{ ticket.url }}` or a typo is refused at
 * once rather than rendering as nothing in a customer's mail.
 */
export function signatureSample(): SignatureScope {
  const { ticket } = sampleScope([]);
  return {
    user: { name: ticket.owner!.name, email: ticket.owner!.email },
    queue: { name: ticket.queue.name, mail_alias: ticket.queue.mail_alias },
    ticket: { id: ticket.id, subject: ticket.subject },
  };
}

/** What is wrong with a signature (a Liquid error, or larger than 1 MiB against the sample), or null when it is fine (empty is fine). */
export const signatureError = (source: string): string | null =>
  source.trim() === '' ? null : templateError(source, signatureSample());

/**
 * A rendered signature without surrounding blank lines; '' when empty or when it fails to render.
 * A reply is never refused over its signature (it was checked when saved): one that fails with
 * the real values — a render limit, or larger than 1 MiB (SPEC D0: its render stops there) — is
 * left out and the reply goes, as decision 040 explains (a ticket's subject comes from whoever
 * mailed in, and must not be able to stop every public reply on it).
 */
export function renderSignature(source: string, scope: SignatureScope): string {
  if (source.trim() === '') return '';
  try {
    return renderTemplate(source, scope)
      .replace(/\r\n?/g, '\n')
      .replace(/^(?:[ \t]*\n)+/, '')
      .trimEnd();
  } catch {
    return '';
  }
}

/**
 * The reply as stored and sent: its text, the delimiter, then each non-empty signature. A body
 * whose last lines already are those signatures (pasted, or the same text sent again) is left
 * as it is; "Thanks, Ann" does not count as the signature "Ann".
 */
export function signBody(body: string, signatures: string[]): string {
  const parts = signatures.filter((s) => s !== '');
  if (parts.length === 0) return body;
  const text = parts.join('\n\n');
  const trimmed = body.trimEnd();
  const lines = trimmed.replace(/\r\n?/g, '\n');
  if (lines === text || lines.endsWith(`\n${text}`)) return body;
  return `${trimmed}\n\n${DELIMITER}${text}`;
}

const p = sql.placeholder;
const writer = prepared((db) =>
  db
    .select({ name: users.name, email: users.email, signature: users.signature })
    .from(users)
    .where(eq(users.id, p('id'))),
);
const ticketAndQueue = prepared((db) =>
  db
    .select({
      id: tickets.id,
      subject: tickets.subject,
      queue: queues.name,
      alias: queues.mail_alias,
      signature: queues.signature,
    })
    .from(tickets)
    .innerJoin(queues, eq(queues.id, tickets.queue_id))
    .where(eq(tickets.id, p('id'))),
);

/**
 * Signs a public reply by `userId` on ticket `ticketId` with the user's and the queue's signature.
 * `ticket`: its row, when the caller has it (the queue then comes from the process's cache, decision 067).
 */
export async function signReply(
  conn: Conn,
  ticketId: number,
  userId: number,
  body: string,
  ticket?: { id: number; subject: string; queue_id: number },
): Promise<string> {
  const u = await writer(conn).get({ id: userId });
  const t = ticket ? await withQueue(conn, ticket) : await ticketAndQueue(conn).get({ id: ticketId });
  if (!u || !t || (u.signature.trim() === '' && t.signature.trim() === '')) return body;
  const scope: SignatureScope = {
    user: { name: u.name, email: u.email },
    queue: { name: t.queue, mail_alias: t.alias },
    ticket: { id: t.id, subject: t.subject },
  };
  return signBody(body, [renderSignature(u.signature, scope), renderSignature(t.signature, scope)]);
}

async function withQueue(conn: Conn, ticket: { id: number; subject: string; queue_id: number }) {
  const q = await queueRowOf(conn, ticket.queue_id);
  return q && { id: ticket.id, subject: ticket.subject, queue: q.name, alias: q.mail_alias, signature: q.signature };
}
