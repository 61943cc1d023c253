import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import { type Db, first, lockAndReadTicketPair, transaction, type Tx, reindexTicketText } from '../../db/port.js';
import {
  ticketCustomValues,
  ticketLinks,
  ticketMerges,
  tickets,
  ticketTags,
  ticketWatchers,
  transactions,
} from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import { forgetThread } from '../../scrips/thread.js';
import { type Actor, parseJson, requireStaff } from '../actor.js';
import { nowIso, nowMs } from '../clock.js';
import { conflict, invalid, MergedError, notFound } from '../errors.js';
import { rearmTimers } from '../time/rearm.js';
import { recordTransactions } from '../transactions.js';
import { getTicketRow, ticketsJson } from '../tickets/serialize.js';
import { DAY_MS, type MergeResult, type Snapshot, UNMERGE_DAYS } from './merge.js';
import { unmergeTimeEntries } from '../timeWorked/merge.js';

// SPEC D3 unmerge (docs/decisions/076): within UNMERGE_DAYS of a merge, one unit of work that
// locks both tickets in id order gives the merged ticket back its own entries (and the mail that
// came through its thread since), people, tags, links, values and status, from the snapshot.

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
      const [from, target] = await lockAndReadTicketPair(tx, ticketId, into);
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
      await rearmTimers(tx, ticketId, from!.sla, r.snoozed_until);
      await tx.update(ticketMerges).set({ unmerged_at: now }).where(eq(ticketMerges.id, merge.id));
      await tx.update(tickets).set({ updated_at: now }).where(eq(tickets.id, into));
      await reindexTicketText(tx, [ticketId, into]);
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
  // SPEC D4: the time entries tied to the history that went back follow it (decision 081).
  await unmergeTimeEntries(tx, id, into);

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
