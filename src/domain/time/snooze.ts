import type { Tx } from '../../db/port.js';
import type { NotifySettings } from '../../scrips/config.js';
import { conflict, invalid } from '../errors.js';
import { categoryIn, DEFAULT_LIFECYCLE, type Lifecycle, namesIn } from '../lifecycles/categories.js';
import type { TicketRow } from '../tickets/serialize.js';
import { type NewTransaction, recordTransactions } from '../transactions.js';
import { type SnoozedRow, wakeTicket } from './snoozeWake.js';
import { Temporal } from 'temporal-polyfill';
import { armTimer, disarmTimer } from './timers.js';

// SPEC D2 snooze (decision 071). A snoozed ticket is `stalled` with `snoozed_until` set and an
// 'unsnooze' timer armed for that instant (its cycle: the instant). It wakes — status `open`,
// `snoozed_until` null, an `Unsnooze` entry on which the on_unsnooze scrips run — when the timer
// fires, when a requester or Cc writes (unsnooze_on_reply; otherwise replied_while_snoozed is
// set and it sleeps on), or when staff wake it by hand (snoozed_until: null). A status change
// that takes it out of `stalled` ends the snooze without an Unsnooze entry (the Status entry says it).

export interface SnoozeInput {
  snoozed_until?: string | null;
  unsnooze_on_reply?: boolean;
  status?: string;
}

/** What a PATCH's snooze fields make of the ticket: its row's changes, entries before and after the field entries, and the timer. */
export interface SnoozePlan {
  patch: Partial<TicketRow>;
  /** The status the snooze implies (stalled; open when woken by hand), unless the PATCH names one. */
  status?: string;
  before: NewTransaction[];
  after: NewTransaction[];
  arm?: string;
  disarm?: boolean;
}

/** The snooze part of PATCH /tickets/:id; null when it asks nothing of the snooze. */
export function planSnooze(
  current: TicketRow,
  input: SnoozeInput,
  now: string,
  zone = 'UTC',
  lc: Lifecycle = DEFAULT_LIFECYCLE,
): SnoozePlan | null {
  const until = input.snoozed_until;
  // SPEC D3: snoozed is the lifecycle's first waiting status; woken, its first active one.
  const waiting = (s: string | undefined) => s !== undefined && categoryIn(lc, s) === 'waiting';
  if (until === undefined) {
    if (input.unsnooze_on_reply === undefined) {
      // Another status than stalled ends a snooze (its Status entry says so).
      if (current.snoozed_until !== null && input.status !== undefined && !waiting(input.status))
        return {
          patch: { snoozed_until: null, replied_while_snoozed: false },
          before: [],
          after: [],
          disarm: true,
        };
      return null;
    }
    if (current.snoozed_until === null)
      throw invalid('unsnooze_on_reply', 'The ticket is not snoozed: send snoozed_until with it');
    if (input.unsnooze_on_reply === current.unsnooze_on_reply) return null;
    return {
      patch: { unsnooze_on_reply: input.unsnooze_on_reply },
      before: [],
      after: [
        {
          type: 'Snooze',
          field: 'unsnooze_on_reply',
          old_value: String(current.unsnooze_on_reply),
          new_value: String(input.unsnooze_on_reply),
        },
      ],
    };
  }
  if (until === null) {
    if (current.snoozed_until === null) return null;
    // Woken by hand: open again, unless the PATCH names another status.
    return {
      patch: { snoozed_until: null, replied_while_snoozed: false },
      status: waiting(current.status) ? namesIn(lc, 'active')[0] : undefined,
      before: [{ type: 'Unsnooze', field: 'snoozed_until', old_value: current.snoozed_until, new_value: 'manual' }],
      after: [],
      disarm: true,
    };
  }
  // A form's local date-time is read in the writer's zone; an instant names its own offset.
  const ms = /[zZ]|[+-]\d{2}:?\d{2}$/.test(until) ? Date.parse(until) : localToInstant(until, zone);
  if (!Number.isFinite(ms)) throw invalid('snoozed_until', 'Expected an instant or a local date-time');
  const at = new Date(ms).toISOString();
  if (at <= now) throw invalid('snoozed_until', `Must be later than now (${now})`);
  if (current.status === 'deleted') throw conflict(`Ticket #${current.id} is deleted: restore it before snoozing it`);
  const firstWaiting = namesIn(lc, 'waiting')[0];
  if (firstWaiting === undefined)
    throw invalid('snoozed_until', `Lifecycle ${lc.name} has no waiting status: a ticket of it cannot be snoozed`);
  if (input.status !== undefined && !waiting(input.status))
    throw invalid(
      'status',
      lc.id === null
        ? 'A snoozed ticket is stalled: leave status out, or send stalled'
        : `A snoozed ticket waits: leave status out, or send a waiting status (${namesIn(lc, 'waiting').join(', ')})`,
    );
  const onReply = input.unsnooze_on_reply ?? true;
  if (at === current.snoozed_until && onReply === current.unsnooze_on_reply) return null;
  return {
    patch: { snoozed_until: at, unsnooze_on_reply: onReply, replied_while_snoozed: false },
    status: waiting(current.status) ? current.status : firstWaiting,
    before: [],
    after: [
      {
        type: 'Snooze',
        field: 'snoozed_until',
        old_value: current.snoozed_until,
        new_value: at,
        body: onReply ? null : 'A reply from the requester or Cc does not wake it',
      },
    ],
    arm: at,
  };
}

/** After the PATCH's row is written: the wake-up timer armed or forgotten, in its unit of work. */
export async function applySnoozeTimer(tx: Tx, ticketId: number, plan: SnoozePlan): Promise<void> {
  if (plan.arm) await armTimer(tx, { ticketId, kind: 'unsnooze', dueAt: plan.arm, cycle: plan.arm });
  else if (plan.disarm) await disarmTimer(tx, ticketId, 'unsnooze');
}

/** TIMER_HANDLERS.unsnooze: the snooze's end came (`late`: it came while no process ran). */
export async function fireUnsnooze(
  tx: Tx,
  ticket: SnoozedRow,
  cycle: string,
  late: boolean,
  now: string,
  notify: NotifySettings,
): Promise<void> {
  // Woken or snoozed again since (both disarm or re-arm it): nothing to do.
  if (ticket.snoozed_until === null || ticket.snoozed_until !== cycle) return;
  const entries = await wakeTicket(tx, ticket, late ? 'late' : 'due', now);
  await recordTransactions(tx, ticket.id, null, entries, now, { notify, queueId: ticket.queue_id });
}

/**
 * The instant a wall-clock time in `zone` names (`2026-12-23T09:00`): a time the clocks skip reads
 * as the same distance past the change, one they repeat as the first (Temporal's "compatible").
 */
function localToInstant(local: string, zone: string): number {
  try {
    return Temporal.PlainDateTime.from(local, { overflow: 'reject' }).toZonedDateTime(zone, {
      disambiguation: 'compatible',
    }).epochMilliseconds;
  } catch {
    return Number.NaN;
  }
}
