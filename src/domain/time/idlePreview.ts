import { and, eq, isNotNull } from 'drizzle-orm';
import type { Db } from '../../db/port.js';
import { timers } from '../../db/tables.js';
import type { Actor } from '../actor.js';
import { nowMs } from '../clock.js';
import { invalid } from '../errors.js';
import { getScrip } from '../scrips.js';
import { idleConfigOf, type IdleScrip, watchedTickets } from './idle.js';
import { idleDueMs } from './idleCalendar.js';

// SPEC D2 `GET /scrips/:id/preview` (decision 072): the tickets an on_idle scrip would fire on
// now — those it watches (its queue, its statuses) idle for its hours, and not fired on yet for
// their current idle start — so an admin sees what enabling "Close idle tickets" would do.

/** At most this many are listed (the oldest idle first); `count` says how many there are. */
export const PREVIEW_LIMIT = 100;

export interface IdlePreviewTicket {
  id: number;
  subject: string;
  status: string;
  queue_id: number;
  /** Its idle start: last public message or status change. */
  idle_since: string;
  /** When the scrip's hours (business hours when `business`) after it ended. */
  idle_due_at: string;
}

export interface ScripPreview {
  scrip_id: number;
  enabled: boolean;
  /** The time the preview was made at (the store's clock). */
  now: string;
  count: number;
  tickets: IdlePreviewTicket[];
}

export async function previewScrip(db: Db, actor: Actor, id: number): Promise<ScripPreview> {
  const scrip = await getScrip(db, actor, id); // admins only; 404 for no such scrip
  if (scrip.condition !== 'on_idle')
    throw invalid(
      'condition',
      `Only an on_idle scrip fires by itself; this one runs on_${scrip.condition.slice(3)} entries`,
    );
  const config = idleConfigOf(scrip.config);
  if (!config) throw invalid('config', 'This scrip has no valid on_idle config (statuses, hours, business)');
  const s: IdleScrip = { id, queue_id: scrip.queue_id, ...config };
  const now = nowMs(db);
  const fired = new Map(
    (
      await db
        .select({ ticket: timers.ticket_id, cycle: timers.cycle })
        .from(timers)
        .where(and(eq(timers.kind, 'idle'), eq(timers.key, String(id)), isNotNull(timers.fired_at)))
    ).map((r) => [r.ticket, r.cycle]),
  );
  const due: IdlePreviewTicket[] = [];
  for (const t of await watchedTickets(db, s)) {
    if (t.start === null || fired.get(t.id) === t.start) continue;
    const at = await idleDueMs(db, t, Date.parse(t.start), s.hours, s.business);
    if (at > now) continue;
    due.push({
      id: t.id,
      subject: t.subject,
      status: t.status,
      queue_id: t.queue_id,
      idle_since: t.start,
      idle_due_at: new Date(at).toISOString(),
    });
  }
  return {
    scrip_id: id,
    enabled: scrip.enabled,
    now: new Date(now).toISOString(),
    count: due.length,
    tickets: due.slice(0, PREVIEW_LIMIT),
  };
}
