import { type Db, transaction } from '../../db/port.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { ScripResult } from '../../scrips/kinds.js';
import type { Actor } from '../actor.js';
import { AppError } from '../errors.js';
import { checkStatusName } from '../lifecycles/statuses.js';
import { updateTicket, type UpdateTicketInput } from './write.js';
import { changeTagsIn } from '../tags/ticketTags.js';

/** The most tickets one bulk change may name (SPEC C4: triage at speed). */
export const BULK_MAX_IDS = 500;

/** The fields a bulk change may set: the ones an agent triages by. */
export type BulkChanges = Pick<
  UpdateTicketInput,
  'status' | 'owner_id' | 'queue_id' | 'team_id' | 'priority' | 'force'
> & {
  /** SPEC D3: tags to add and to take off (normalized); each that changes is an entry of its own. */
  add_tags?: string[];
  remove_tags?: string[];
};

export interface BulkResult {
  id: number;
  ok: boolean;
  error?: string;
  scrip_results?: ScripResult[];
}

/**
 * PATCH /tickets: the same change to each ticket, in the order given, each in its own unit of
 * work with its scrips — through updateTicket itself, so a ticket's answer (its error above all)
 * is the one the single PATCH gives (a requester's own ticket: "Requesters cannot change tickets",
 * another's: not found). One ticket's failure (not found, not allowed, a change it
 * refuses) is its own result; the others still change. Failures other than an AppError (the
 * database gone) stop the batch: they are not about one ticket.
 */
export async function bulkUpdateTickets(
  db: Db,
  actor: Actor,
  ids: number[],
  changes: BulkChanges,
  notify: NotifySettings,
): Promise<BulkResult[]> {
  // SPEC D3: a status no lifecycle has is refused whole (422); one a ticket's lifecycle lacks or
  // its transitions do not allow is that ticket's result.
  if (changes.status !== undefined) await checkStatusName(db, changes.status, null, 'changes.status');
  const results: BulkResult[] = [];
  const { add_tags, remove_tags, ...fields } = changes;
  const anyField = Object.values(fields).some((v) => v !== undefined);
  const anyTag = (add_tags?.length ?? 0) + (remove_tags?.length ?? 0) > 0;
  for (const id of ids) {
    try {
      // The fields and the tags of one ticket: one unit of work (the tags' entries after the fields').
      const scrip_results = await transaction(db, async (tx) => {
        const out: ScripResult[] = [];
        if (anyField || !anyTag)
          out.push(...(await updateTicket(tx, actor, id, fields, notify, { takeWithoutAsking: true })).scrip_results);
        if (anyTag) out.push(...(await changeTagsIn(tx, actor, id, { add: add_tags, remove: remove_tags }, notify)));
        return out;
      });
      results.push({ id, ok: true, scrip_results });
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      results.push({ id, ok: false, error: e.message });
    }
  }
  return results;
}

/** "Changed 12 tickets; 2 failed: #5 Ticket 5 not found, #9 …" — what the list says after a bulk change. */
export function bulkSummary(results: BulkResult[]): string {
  const ok = results.filter((r) => r.ok).length;
  const failed = results.filter((r) => !r.ok);
  const changed = `Changed ${ok} ticket${ok === 1 ? '' : 's'}`;
  if (failed.length === 0) return changed;
  return `${changed}; ${failed.length} failed: ${failed.map((r) => `#${r.id} ${r.error}`).join(', ')}`;
}
