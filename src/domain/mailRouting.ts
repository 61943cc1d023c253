import { eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { cachedConfig } from '../db/configCache.js';
import { type Conn, prepared, sameName } from '../db/port.js';
import { outbox, queues, transactions } from '../db/tables.js';
import { AppError, invalid } from './errors.js';
import type { InboundMessage, IntakeOptions } from './inboundMessage.js';
import { lockFollowingMerges } from './merge/guard.js';
import { findQueueByName } from './queues.js';
import { ourAddresses } from '../scrips/people.js';

// Where an inbound message goes (SPEC B7): its queue (a recipient's alias, the queue given, the
// default), its ticket (a Message-ID the ticket knows, the subject tag), and which of the
// addresses it names are ours (SPEC D6: never made a Cc). Read inside the intake's unit of work
// (./mailIntake.ts), which locks what it picks.

// The queries with a fixed shape, compiled once: building a query costs more than running it.
const p = sql.placeholder;

/** `[hxdesk #12]`, also typed by hand: `[hxdesk#12]`, `[HXDESK # 12]`. */
export const TAG_RE = /\[\s*hxdesk\s*#\s*(\d+)\s*\]/i;

/** Addresses mail from which is our own (never processed as a request: no loops). */
export async function ownAddresses(db: Conn, mailFrom: string): Promise<string[]> {
  return [...(await ourAddresses(db, [mailFrom.toLowerCase()]))];
}

const aliasedQueues = prepared((db) =>
  db.select({ id: queues.id, alias: queues.mail_alias }).from(queues).where(isNotNull(queues.mail_alias)),
);
/** The queues with an alias, kept by the process for the configuration's version (decision 067: an intake asks up to three times). */
const queuesWithAliases = (conn: Conn) =>
  cachedConfig(conn, 'aliased-queues', async () => await aliasedQueues(conn).all());
const queueById = prepared((db) =>
  db
    .select()
    .from(queues)
    .where(eq(queues.id, p('id'))),
);
const queueNamedGeneral = prepared((db) =>
  db
    .select()
    .from(queues)
    .where(sameName(db, queues.name, 'General')),
);
const firstQueue = prepared((db) => db.select().from(queues).orderBy(queues.id).limit(1));

export async function resolveQueue(
  conn: Conn,
  m: InboundMessage,
  hint: string | undefined,
): Promise<{ id: number; rule: string }> {
  const byAlias = m.recipients.length ? await queuesWithAliases(conn) : [];
  for (const r of m.recipients) {
    const q = byAlias.find((x) => x.alias === r);
    if (q) return { id: q.id, rule: `queue by recipient ${r}` };
  }
  if (hint) {
    const h = hint.trim();
    const q = /^\d+$/.test(h)
      ? await queueById(conn).get({ id: Number(h) })
      : ((await queuesWithAliases(conn)).find((x) => x.alias === h.toLowerCase()) ?? (await findQueueByName(conn, h)));
    if (!q) throw invalid('queue', `No queue with id, alias or name "${h}"`);
    return { id: q.id, rule: `queue given (${h})` };
  }
  const general = (await queueNamedGeneral(conn).get()) ?? (await firstQueue(conn).get());
  if (!general) throw new AppError('unavailable', 'No queue exists to receive mail');
  return { id: general.id, rule: `default queue ${general.name}` };
}

/**
 * SPEC B7 ladder: a Message-ID the ticket knows (inbound or ours), then the subject tag. SPEC D3:
 * a ticket merged away stands for the one it was merged into (a chain followed, each locked);
 * `mergedFrom` is the merged ticket whose thread the mail came through (decision 076).
 */
export async function resolveTicket(
  conn: Conn,
  m: InboundMessage,
): Promise<{ id: number; rule: string; mergedFrom: number | null } | { id: null; rule: string }> {
  const ids = [...m.inReplyTo, ...[...m.references].reverse()].filter((id, i, all) => all.indexOf(id) === i);
  const merged = (found: { row: { id: number }; mergedFrom: number | null }) =>
    found.mergedFrom === null ? '' : ` (merged into #${found.row.id})`;
  if (ids.length) {
    const inbound = await conn
      .select({ ticket: transactions.ticket_id, mid: transactions.message_id, from: transactions.merged_from })
      .from(transactions)
      .where(inArray(transactions.message_id, ids));
    const ours = await conn
      .select({ ticket: outbox.ticket_id, mid: outbox.message_id, from: sql<number | null>`null` })
      .from(outbox)
      .where(inArray(outbox.message_id, ids));
    for (const id of ids) {
      const hit = [...inbound, ...ours].find((r) => r.mid === id && r.ticket !== null);
      // Locked as it is found (the ticket it picks is locked next anyway, decision 058): one statement (067).
      // An entry moved by a merge threads to the ticket it came from (merged_from), which leads here again.
      const found = hit ? await lockFollowingMerges(conn, hit.from ?? hit.ticket!) : undefined;
      if (found) {
        const by = `${m.inReplyTo.includes(id) ? 'In-Reply-To' : 'References'} ${id}`;
        return {
          id: found.row.id,
          mergedFrom: found.mergedFrom,
          rule: `ticket by ${by}${found.mergedFrom === null ? '' : ` of #${found.mergedFrom}`}${merged(found)}`,
        };
      }
    }
  }
  const tag = TAG_RE.exec(m.subject);
  if (tag) {
    const id = Number(tag[1]);
    const found = await lockFollowingMerges(conn, id);
    if (found)
      return { id: found.row.id, mergedFrom: found.mergedFrom, rule: `ticket by subject tag #${id}${merged(found)}` };
    return { id: null, rule: `subject tag #${id} names no ticket: new ticket` };
  }
  return { id: null, rule: 'new ticket' };
}

/**
 * The address that brought the message here, which is ours whatever it is: its Delivered-To and
 * X-Original-To. A message handed over with an explicit queue (JSON `queue`, `hxdesk-mailgate
 * --queue`) was routed by hand to an address that need not be a queue alias: without those
 * headers, its only To address is that address (SPEC D6), unless it is the sender's own.
 */
export function deliveredHere(m: Pick<InboundMessage, 'deliveredTo' | 'to' | 'from'>, queueGiven: boolean): string[] {
  if (m.deliveredTo.length > 0) return m.deliveredTo;
  // Mail a sender wrote To themselves (and Bcc us) came to us by Bcc: its To is theirs, not ours.
  return queueGiven && m.to.length === 1 && m.to[0] !== m.from.address ? m.to : [];
}

/** Addresses a message names that are ours (queue aliases, MAIL_FROM, the address that brought it): never a Cc. */
export const ownOf = (m: InboundMessage, opts: IntakeOptions) =>
  new Set([...(opts.ownAddresses ?? []), ...deliveredHere(m, opts.queue !== undefined)]);

/**
 * The intake log's words for the recipients a message was taken to name as ours (SPEC D6); read
 * back by `oursOf`. Queue aliases are left out (they are ours on their queue's page, and the rule
 * names the one that picked the queue): what is listed is what an admin could not tell otherwise —
 * MAIL_FROM, MAIL_ADDRESSES, the IMAP user, the admins' list, the address it was delivered to.
 */
const OURS_LABEL = 'recipients taken as ours: ';
const DELIVERED_HERE = ' (delivered here)';
export async function oursNote(
  conn: Conn,
  m: InboundMessage,
  opts: IntakeOptions,
  own: Set<string>,
): Promise<string | null> {
  const here = new Set(deliveredHere(m, opts.queue !== undefined));
  const aliases = new Set((await queuesWithAliases(conn)).map((q) => q.alias));
  const ours = m.recipients.filter((r) => own.has(r) && !aliases.has(r));
  return ours.length ? OURS_LABEL + ours.map((r) => (here.has(r) ? r + DELIVERED_HERE : r)).join(', ') : null;
}
/** The recipients an entry's rule says were taken as ours. */
export function oursOf(rule: string | null): string[] {
  const at = rule?.lastIndexOf(OURS_LABEL) ?? -1;
  if (!rule || at < 0) return [];
  return rule
    .slice(at + OURS_LABEL.length)
    .split(';')[0]
    .split(', ')
    .map((a) => a.replace(DELIVERED_HERE, '').trim())
    .filter(Boolean);
}
