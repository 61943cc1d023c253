import { and, asc, count, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { changes, type Conn, type Db, first, lockAndReadTicket, transaction, type Tx } from '../../db/port.js';
import {
  ticketCustomValues,
  ticketLinks,
  ticketMerges,
  tickets,
  ticketTags,
  ticketWatchers,
  timers,
  transactions,
} from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { ScripResult } from '../../scrips/engine.js';
import { forgetThread } from '../../scrips/thread.js';
import { type Actor, parseJson, requireStaff } from '../actor.js';
import { nowIso, nowMs } from '../clock.js';
import { allCustomFields, appliesToQueue } from '../customFields.js';
import { conflict, invalid, MergedError, notFound } from '../errors.js';
import { recordTransactions } from '../transactions.js';
import { getTicketRow, type TicketJson, type TicketRow, ticketsJson } from '../tickets/serialize.js';
import { listTickets } from '../tickets/list.js';
import { MERGED_STATUS } from './guard.js';

// SPEC D3 merge and unmerge (docs/decisions/076). A merge moves every entry of ticket `id` (with
// its files), its people, tags, links and the custom values the target lacks into `into`, and
// leaves `id` a tombstone (`merged_into`, the reserved status `merged`). What an unmerge needs
// to put back is kept in ticket_merges.snapshot. Both are one unit of work that locks the two
// tickets in id order: a mail or a reply to either waits, then sees the result.

/** How long a merge can be undone. */
export const UNMERGE_DAYS = 30;
const DAY_MS = 86_400_000;

type LinkRow = typeof ticketLinks.$inferSelect;
interface Snapshot {
  /** The tombstone's own row as it was (status, clocks, snooze…). */
  row: TicketRow;
  watchers: { role: 'requester' | 'cc' | 'admin_cc'; user_id: number; position: number }[];
  tags: string[];
  links: LinkRow[];
  custom_values: { field_id: number; value: string }[];
  /** What the merge added to the target (and an unmerge takes away again when still there). */
  added: {
    watchers: { role: 'requester' | 'cc' | 'admin_cc'; user_id: number }[];
    tags: string[];
    links: { base_id: number; type: LinkRow['type']; target_id: number }[];
    custom_values: { field_id: number; value: string }[];
  };
}

export interface MergeResult {
  ticket: TicketJson;
  merged: { id: number; merged_into: number };
  scrip_results: ScripResult[];
}

/** The two tickets locked in id order (two merges of a pair never wait on each other in a circle). */
async function lockPair(tx: Tx, a: number, b: number): Promise<[TicketRow | undefined, TicketRow | undefined]> {
  const [lo, hi] = a < b ? [a, b] : [b, a];
  const rowLo = await lockAndReadTicket(tx, lo);
  const rowHi = await lockAndReadTicket(tx, hi);
  return a < b ? [rowLo, rowHi] : [rowHi, rowLo];
}

/** What a merge of `id` into `into` would move: the confirmation page's figures. */
export async function mergePreview(db: Db, actor: Actor, id: number, into: number) {
  requireStaff(actor);
  const [from, target] = [await getTicketRow(db, id), await getTicketRow(db, into)];
  checkPair(id, into, from, target);
  const n = async (q: PromiseLike<{ n: number }[]>) => Number((await first(q))?.n ?? 0);
  return {
    ticket: { id: from!.id, subject: from!.subject },
    into: { id: target!.id, subject: target!.subject },
    entries: await n(db.select({ n: count() }).from(transactions).where(eq(transactions.ticket_id, id))),
    people: await n(db.select({ n: count() }).from(ticketWatchers).where(eq(ticketWatchers.ticket_id, id))),
    tags: await n(db.select({ n: count() }).from(ticketTags).where(eq(ticketTags.ticket_id, id))),
    links: await n(
      db
        .select({ n: count() })
        .from(ticketLinks)
        .where(or(eq(ticketLinks.base_id, id), eq(ticketLinks.target_id, id))),
    ),
  };
}

function checkPair(id: number, into: number, from?: TicketRow, target?: TicketRow): void {
  if (id === into) throw invalid('into', `A ticket cannot be merged into itself (#${id})`);
  if (!from) throw notFound('Ticket', id);
  if (!target) throw invalid('into', `Ticket #${into} does not exist`);
  if (from.merged_into !== null) throw new MergedError(id, from.merged_into);
  if (target.merged_into !== null)
    throw conflict(`Ticket #${into} was merged into #${target.merged_into}: merge into #${target.merged_into} instead`);
}

/** POST /tickets/:id/merge { into } (staff). */
export async function mergeTickets(
  db: Db,
  actor: Actor,
  id: number,
  into: number,
  notify: NotifySettings,
): Promise<MergeResult> {
  requireStaff(actor);
  return transaction(
    db,
    async (tx) => {
      const [from, target] = await lockPair(tx, id, into);
      checkPair(id, into, from, target);
      const now = nowIso(tx);
      const snapshot = await takeOver(tx, from!, target!);
      await tx
        .update(tickets)
        .set({
          merged_into: into,
          status: MERGED_STATUS,
          snoozed_until: null,
          next_due_at: null,
          next_warn_at: null,
          updated_at: now,
        })
        .where(eq(tickets.id, id));
      // The tombstone's clocks and wake-up are the target's business now.
      await tx.delete(timers).where(eq(timers.ticket_id, id));
      await tx.insert(ticketMerges).values({
        ticket_id: id,
        into_id: into,
        merged_by: actor.id,
        merged_at: now,
        snapshot: JSON.stringify(snapshot),
      });
      await tx.update(tickets).set({ updated_at: now }).where(eq(tickets.id, into));
      forgetThread(id);
      forgetThread(into);
      const { scrip_results } = await recordTransactions(
        tx,
        into,
        actor.id,
        [
          {
            type: 'Merge',
            field: 'merged_from',
            new_value: String(id),
            body: `#${id} merged into this ticket`,
          },
        ],
        now,
        { notify, queueId: target!.queue_id, actorRole: actor.role },
      );
      // Read again: the merge may have given it a requester, a scrip its status.
      const row = (await getTicketRow(tx, into))!;
      return { ticket: (await ticketsJson(tx, [row]))[0], merged: { id, merged_into: into }, scrip_results };
    },
    { op: 'mergeTickets' },
  );
}

/** Moves what ticket `from` has into `target` and returns what an unmerge restores. */
async function takeOver(tx: Tx, from: TicketRow, target: TicketRow): Promise<Snapshot> {
  const id = from.id;
  const into = target.id;
  // Every entry keeps its date; merged_from says where it came from (an entry that came from a
  // ticket merged earlier into this one keeps that older origin: an unmerge follows the chain).
  await tx
    .update(transactions)
    .set({ ticket_id: into, merged_from: sql`coalesce(${transactions.merged_from}, ${id})` })
    .where(eq(transactions.ticket_id, id));

  const watchers = await tx
    .select({ role: ticketWatchers.role, user_id: ticketWatchers.user_id, position: ticketWatchers.position })
    .from(ticketWatchers)
    .where(eq(ticketWatchers.ticket_id, id))
    .orderBy(asc(ticketWatchers.position));
  const addedWatchers: Snapshot['added']['watchers'] = [];
  for (const w of watchers) {
    const r = await tx
      .insert(ticketWatchers)
      .values({
        ticket_id: into,
        role: w.role,
        user_id: w.user_id,
        created_at: nowIso(tx),
        position: sql`(SELECT coalesce(max(${sql.identifier('position')}), 0) + 1 FROM ${ticketWatchers} WHERE ${sql.identifier('ticket_id')} = ${into})`,
      })
      .onConflictDoNothing();
    if (changes(r) > 0) addedWatchers.push({ role: w.role, user_id: w.user_id });
  }
  await tx.delete(ticketWatchers).where(eq(ticketWatchers.ticket_id, id));
  if (target.requester_id === null && from.requester_id !== null)
    await tx.update(tickets).set({ requester_id: from.requester_id }).where(eq(tickets.id, into));

  const tags = (await tx.select({ tag: ticketTags.tag }).from(ticketTags).where(eq(ticketTags.ticket_id, id))).map(
    (t) => t.tag,
  );
  const addedTags: string[] = [];
  for (const tag of tags) {
    const r = await tx
      .insert(ticketTags)
      .values({ ticket_id: into, tag, created_at: nowIso(tx) })
      .onConflictDoNothing();
    if (changes(r) > 0) addedTags.push(tag);
  }
  await tx.delete(ticketTags).where(eq(ticketTags.ticket_id, id));

  // Links re-pointed to the target; a link between the two would join the target to itself: dropped.
  const links = await tx
    .select()
    .from(ticketLinks)
    .where(or(eq(ticketLinks.base_id, id), eq(ticketLinks.target_id, id)));
  const addedLinks: Snapshot['added']['links'] = [];
  for (const l of links) {
    const base = l.base_id === id ? into : l.base_id;
    const other = l.target_id === id ? into : l.target_id;
    if (base === other) continue;
    const r = await tx
      .insert(ticketLinks)
      .values({ base_id: base, type: l.type, target_id: other, creator_id: l.creator_id, created_at: l.created_at })
      .onConflictDoNothing();
    if (changes(r) > 0) addedLinks.push({ base_id: base, type: l.type, target_id: other });
  }
  await tx.delete(ticketLinks).where(or(eq(ticketLinks.base_id, id), eq(ticketLinks.target_id, id)));

  // Custom values the target lacks (and that apply to its queue) are copied; the target's own win.
  const values = await tx
    .select({ field_id: ticketCustomValues.field_id, value: ticketCustomValues.value })
    .from(ticketCustomValues)
    .where(eq(ticketCustomValues.ticket_id, id));
  const addedValues: Snapshot['added']['custom_values'] = [];
  if (values.length > 0) {
    const fields = await allCustomFields(tx);
    for (const v of values) {
      const field = fields.find((f) => f.id === v.field_id);
      if (!field || !appliesToQueue(field, target.queue_id)) continue;
      const r = await tx
        .insert(ticketCustomValues)
        .values({ ticket_id: into, field_id: v.field_id, value: v.value })
        .onConflictDoNothing();
      if (changes(r) > 0) addedValues.push(v);
    }
  }
  return {
    row: from,
    watchers,
    tags,
    links,
    custom_values: values,
    added: { watchers: addedWatchers, tags: addedTags, links: addedLinks, custom_values: addedValues },
  };
}

/** The tickets whose entries are `id`'s own: itself and those merged into it (a chain), still merged. */
async function mergedInto(tx: Tx, id: number): Promise<number[]> {
  const all = [id];
  for (let next = [id], hops = 0; next.length > 0 && hops < 50; hops++) {
    next = (await tx.select({ id: tickets.id }).from(tickets).where(inArray(tickets.merged_into, next))).map(
      (r) => r.id,
    );
    all.push(...next);
  }
  return all;
}

/** POST /tickets/:into/unmerge { ticket_id } (staff), within UNMERGE_DAYS of the merge. */
export async function unmergeTicket(
  db: Db,
  actor: Actor,
  into: number,
  ticketId: number,
  notify: NotifySettings,
): Promise<MergeResult> {
  requireStaff(actor);
  return transaction(
    db,
    async (tx) => {
      const [from, target] = await lockPair(tx, ticketId, into);
      if (!target) throw notFound('Ticket', into);
      if (target.merged_into !== null) throw new MergedError(into, target.merged_into);
      if (!from) throw invalid('ticket_id', `Ticket #${ticketId} does not exist`);
      const merge = await first(
        tx
          .select()
          .from(ticketMerges)
          .where(
            and(eq(ticketMerges.ticket_id, ticketId), eq(ticketMerges.into_id, into), isNull(ticketMerges.unmerged_at)),
          )
          .orderBy(desc(ticketMerges.id))
          .limit(1),
      );
      if (!merge || from.merged_into !== into)
        throw conflict(`Ticket #${ticketId} is not merged into #${into}: nothing to unmerge`);
      const age = nowMs(tx) - Date.parse(merge.merged_at);
      if (age > UNMERGE_DAYS * DAY_MS)
        throw conflict(
          `Ticket #${ticketId} was merged into #${into} on ${merge.merged_at.slice(0, 10)}: a merge can be undone only within ${UNMERGE_DAYS} days`,
        );
      const snap = parseJson<Snapshot | null>(merge.snapshot, null);
      if (!snap) throw conflict(`The merge of #${ticketId} into #${into} kept nothing to restore`);
      const now = nowIso(tx);
      await giveBack(tx, ticketId, into, snap);
      const r = snap.row;
      await tx
        .update(tickets)
        .set({
          merged_into: null,
          status: r.status,
          snoozed_until: r.snoozed_until,
          next_due_at: r.next_due_at,
          next_warn_at: r.next_warn_at,
          requester_id: r.requester_id,
          updated_at: now,
        })
        .where(eq(tickets.id, ticketId));
      await tx.update(ticketMerges).set({ unmerged_at: now }).where(eq(ticketMerges.id, merge.id));
      await tx.update(tickets).set({ updated_at: now }).where(eq(tickets.id, into));
      forgetThread(ticketId);
      forgetThread(into);
      const onTarget = await recordTransactions(
        tx,
        into,
        actor.id,
        [
          {
            type: 'Unmerge',
            field: 'merged_from',
            old_value: String(ticketId),
            body: `#${ticketId} unmerged from this ticket`,
          },
        ],
        now,
        { notify, queueId: target.queue_id, actorRole: actor.role },
      );
      const onTicket = await recordTransactions(
        tx,
        ticketId,
        actor.id,
        [{ type: 'Unmerge', field: 'merged_into', old_value: String(into), body: `Unmerged from #${into}` }],
        now,
        { notify, queueId: r.queue_id, actorRole: actor.role },
      );
      return {
        ticket: (await ticketsJson(tx, [(await getTicketRow(tx, ticketId))!]))[0],
        merged: { id: ticketId, merged_into: into },
        scrip_results: [...onTarget.scrip_results, ...onTicket.scrip_results],
      };
    },
    { op: 'unmergeTicket' },
  );
}

/** Puts back what the merge took from `id` (and what came through its thread since), from `snap`. */
async function giveBack(tx: Tx, id: number, into: number, snap: Snapshot): Promise<void> {
  const own = await mergedInto(tx, id);
  await tx
    .update(transactions)
    .set({ ticket_id: id })
    .where(and(eq(transactions.ticket_id, into), inArray(transactions.merged_from, own)));
  await tx
    .update(transactions)
    .set({ merged_from: null })
    .where(and(eq(transactions.ticket_id, id), eq(transactions.merged_from, id)));

  for (const w of snap.added.watchers)
    await tx
      .delete(ticketWatchers)
      .where(
        and(eq(ticketWatchers.ticket_id, into), eq(ticketWatchers.role, w.role), eq(ticketWatchers.user_id, w.user_id)),
      );
  for (const w of snap.watchers)
    await tx
      .insert(ticketWatchers)
      .values({ ticket_id: id, role: w.role, user_id: w.user_id, position: w.position, created_at: nowIso(tx) })
      .onConflictDoNothing();

  if (snap.added.tags.length > 0)
    await tx.delete(ticketTags).where(and(eq(ticketTags.ticket_id, into), inArray(ticketTags.tag, snap.added.tags)));
  for (const tag of snap.tags)
    await tx
      .insert(ticketTags)
      .values({ ticket_id: id, tag, created_at: nowIso(tx) })
      .onConflictDoNothing();

  for (const l of snap.added.links)
    await tx
      .delete(ticketLinks)
      .where(
        and(eq(ticketLinks.base_id, l.base_id), eq(ticketLinks.type, l.type), eq(ticketLinks.target_id, l.target_id)),
      );
  for (const l of snap.links) {
    const other = l.base_id === id ? l.target_id : l.base_id;
    if (!(await getTicketRow(tx, other))) continue; // the other end is gone
    await tx.insert(ticketLinks).values(l).onConflictDoNothing();
  }

  for (const v of snap.added.custom_values)
    await tx
      .delete(ticketCustomValues)
      .where(
        and(
          eq(ticketCustomValues.ticket_id, into),
          eq(ticketCustomValues.field_id, v.field_id),
          eq(ticketCustomValues.value, v.value),
        ),
      );
  // The tombstone kept its own values: nothing to put back there.
}

/** Ticket JSON of a tombstone (SPEC D3): its number and where it lives now. */
export const tombstoneJson = (id: number, mergedInto: number) => ({ ticket: { id, merged_into: mergedInto } });

/** The open merges into ticket `into` that can still be undone (the Unmerge offers on its page). */
export async function undoableMerges(conn: Conn, into: number): Promise<{ ticket_id: number; merged_at: string }[]> {
  const since = new Date(nowMs(conn) - UNMERGE_DAYS * DAY_MS).toISOString();
  const rows = await conn
    .select({ ticket_id: ticketMerges.ticket_id, merged_at: ticketMerges.merged_at })
    .from(ticketMerges)
    .where(and(eq(ticketMerges.into_id, into), isNull(ticketMerges.unmerged_at)));
  return rows.filter((r) => r.merged_at >= since);
}

/** The merge page's search: live tickets other than `id` by number or subject (at most 10). */
export async function mergeCandidates(db: Db, actor: Actor, id: number, q: string) {
  requireStaff(actor);
  const from = await getTicketRow(db, id);
  if (!from) throw notFound('Ticket', id);
  if (from.merged_into !== null) throw new MergedError(id, from.merged_into);
  const term = q.trim();
  if (term === '') return { ticket: { id, subject: from.subject }, candidates: [] };
  const list = await listTickets(db, actor, { q: term, limit: 11 });
  return {
    ticket: { id, subject: from.subject },
    candidates: list.tickets
      .filter((t) => t.id !== id)
      .slice(0, 10)
      .map((t) => ({ id: t.id, subject: t.subject, status: t.status })),
  };
}
