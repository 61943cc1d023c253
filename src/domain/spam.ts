import { eq } from 'drizzle-orm';
import { type Db, transaction } from '../db/port.js';
import { tickets, users } from '../db/tables.js';
import type { NotifySettings } from '../scrips/config.js';
import type { ScripResult } from '../scrips/kinds.js';
import { type Actor, requireAdmin, requireStaff } from './actor.js';
import { isStaffRole } from '../scrips/people.js';
import { nowIso } from './clock.js';
import { AppError, invalid, MergedError, notFound } from './errors.js';
import { nextResolvedAt } from './lifecycle.js';
import { statusesIn } from './lifecycles/categories.js';
import { lockForChange } from './merge/guard.js';
import { disarmTimer } from './time/timers.js';
import { recordTransactions } from './transactions.js';
import { getTicketRow, type TicketJson, ticketsJson } from './tickets/serialize.js';
import { getUserRow, type UserJson, userJson } from './users.js';

// SPEC D3 Spam (docs/decisions/077): a ticket's Spam action deletes it (`deleted`, or the first
// inactive status of its lifecycle: not bound by transitions) and blocks its requester, in one
// unit of work; the mail intake then refuses their mail (`rejected`, reason `blocked`).

export interface SpamResult {
  ticket: TicketJson;
  blocked_user_id: number | null;
  scrip_results: ScripResult[];
}

/** The status a Spam action moves a ticket of queue `queueId` to. */
async function spamStatus(conn: Db, queueId: number): Promise<string> {
  const inactive = await statusesIn(conn, queueId, 'inactive');
  if (inactive.includes('deleted')) return 'deleted';
  if (inactive[0] === undefined)
    throw new AppError('conflict', 'The ticket’s lifecycle has no inactive status to put spam in');
  return inactive[0];
}

/** POST /tickets/:id/spam (agents and admins). */
export async function markSpam(db: Db, actor: Actor, id: number, notify: NotifySettings): Promise<SpamResult> {
  requireStaff(actor);
  return transaction(
    db,
    async (tx) => {
      const current = await lockForChange(tx, id);
      const requester = current.requester_id === null ? undefined : await getUserRow(tx, current.requester_id);
      if (requester && isStaffRole(requester.role))
        throw invalid(
          'requester_id',
          `The requester of #${id}, ${requester.email}, is staff: staff cannot be blocked (change the requester, or delete the ticket)`,
        );
      const status = await spamStatus(tx, current.queue_id);
      const now = nowIso(tx);
      const entries = [];
      if (current.status !== status) {
        await tx
          .update(tickets)
          .set({
            status,
            resolved_at: nextResolvedAt(current.status, status, current.resolved_at, now),
            snoozed_until: null,
            replied_while_snoozed: false,
            updated_at: now,
          })
          .where(eq(tickets.id, id));
        if (current.snoozed_until !== null) await disarmTimer(tx, id, 'unsnooze');
        entries.push({ type: 'Status' as const, field: 'status', old_value: current.status, new_value: status });
      }
      if (requester && !requester.blocked)
        await tx.update(users).set({ blocked: true, updated_at: now }).where(eq(users.id, requester.id));
      const { scrip_results } = entries.length
        ? await recordTransactions(tx, id, actor.id, entries, now, {
            notify,
            queueId: current.queue_id,
            actorRole: actor.role,
          })
        : { scrip_results: [] };
      return {
        ticket: (await ticketsJson(tx, [(await getTicketRow(tx, id))!]))[0],
        blocked_user_id: requester?.id ?? null,
        scrip_results,
      };
    },
    { op: 'markSpam' },
  );
}

/** POST /users/:id/unblock (admins): their mail is taken again. */
export async function unblockUser(db: Db, actor: Actor, id: number): Promise<UserJson> {
  requireAdmin(actor);
  return transaction(db, async (tx) => {
    const user = await getUserRow(tx, id);
    if (!user) throw notFound('User', id);
    if (!user.blocked) return userJson(user);
    const now = nowIso(tx);
    await tx.update(users).set({ blocked: false, updated_at: now }).where(eq(users.id, id));
    return userJson({ ...user, blocked: false, updated_at: now });
  });
}

/** The Spam confirmation: the ticket and who would be blocked. */
export async function spamQuestion(db: Db, actor: Actor, id: number) {
  requireStaff(actor);
  const row = await getTicketRow(db, id);
  if (!row) throw notFound('Ticket', id);
  if (row.merged_into !== null) throw new MergedError(id, row.merged_into);
  const requester = row.requester_id === null ? undefined : await getUserRow(db, row.requester_id);
  return {
    ticket: { id, subject: row.subject },
    requester: requester ? { id: requester.id, email: requester.email, staff: isStaffRole(requester.role) } : null,
  };
}
