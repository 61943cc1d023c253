import { asc, count, eq, or, sql } from 'drizzle-orm';
import {
  changes,
  type Db,
  first,
  lockAndReadTicketPair,
  transaction,
  type Tx,
  reindexTicketText,
} from '../../db/port.js';
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
import type { ScripResult } from '../../scrips/kinds.js';
import { forgetThread } from '../../scrips/thread.js';
import { type Actor, requireStaff } from '../actor.js';
import { nowIso } from '../clock.js';
import { allCustomFields, appliesToQueue } from '../customFields.js';
import { conflict, invalid, MergedError, notFound } from '../errors.js';
import { recordTransactions } from '../transactions.js';
import { getTicketRow, type TicketJson, type TicketRow, ticketsJson } from '../tickets/serialize.js';
import { listTickets } from '../tickets/list.js';
import { MERGED_STATUS } from './guard.js';
import { mergeTimeEntries } from '../timeWorked/merge.js';

// SPEC D3 merge and unmerge (docs/decisions/076). A merge moves every entry of ticket `id` (with
// its files), its people, tags, links and the custom values the target lacks into `into`, and
// leaves `id` a tombstone (`merged_into`, the reserved status `merged`). What an unmerge needs
// to put back is kept in ticket_merges.snapshot. Both are one unit of work that locks the two
// tickets in id order: a mail or a reply to either waits, then sees the result.

/** How long a merge can be undone. */
export const UNMERGE_DAYS = 30;
export const DAY_MS = 86_400_000;

type LinkRow = typeof ticketLinks.$inferSelect;
export interface Snapshot {
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
      const [from, target] = await lockAndReadTicketPair(tx, id, into);
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
      await reindexTicketText(tx, [id, into]);
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
  // SPEC D4: the time entries go with the history (decision 081).
  await mergeTimeEntries(tx, id, into);

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

/** Ticket JSON of a tombstone (SPEC D3): its number and where it lives now. */
export const tombstoneJson = (id: number, mergedInto: number) => ({ ticket: { id, merged_into: mergedInto } });

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
