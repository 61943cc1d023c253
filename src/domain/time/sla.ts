import { categoryIn, lifecycleOf } from '../lifecycles/categories.js';
import { and, asc, eq, sql } from 'drizzle-orm';
import { prepared, type Tx } from '../../db/port.js';
import { lockedTicket } from '../../db/unitMemo.js';
import { customFields, ticketCustomValues, tickets, transactions, users } from '../../db/tables.js';
import { slaHours, slaPolicies } from './slaConfig.js';
import {
  applySlaEvent,
  type ClockState,
  nextDue,
  parseSlaState,
  replaySla,
  SLA_CLOCKS,
  type SlaEvent,
  type SlaState,
  sameTerms,
  startSla,
  type StatusKinds,
} from './slaClock.js';
import { matchesCustomFields, matchPolicy, REMATCH_TYPES, slaEventOf, termsOf } from './slaMatch.js';
import { type ArmTimer, armTimers, disarmTimer } from './timers.js';

// SPEC D2 SLA clocks in the ticket's unit of work (decision 070): after each entry of its history
// the clocks move (./slaClock.ts), `tickets.sla`, `next_due_at` and `next_warn_at` are written,
// and each running clock's warning and breach are armed as 'sla' timers (keys
// `first_response:warning`, `first_response:breach`, …, cycle = the clock's promise). A clock
// that stops (met, paused, halted) keeps its timers at FAR with its cycle, so a warning or breach
// that fired stays fired when the same promise runs again. A due timer writes the `SLA` entry
// (field = the clock, new_value = warning | breached), on which the scrips run (./slaTimer.ts).

/** The due time of a timer that must not fire while its clock does not run. */
export const FAR = '9999-12-31T23:59:59.999Z';
export type Step = 'warning' | 'breach';

/** The entries that may move a ticket's clocks: a message, a status change, a new ticket, a matched field. */
const CLOCK_TYPES = new Set(['Create', 'Correspond', 'Status', ...REMATCH_TYPES]);

type TicketRow = typeof tickets.$inferSelect;

/** What the step reads of an entry (afterEntry's EntryEvent). */
export interface SlaEntry {
  ticketId: number;
  row: typeof transactions.$inferSelect;
  /** A Create's ticket row as its scrips read it (afterEntry's EntryEvent). */
  created?: TicketRow;
  /** The writer's role (undefined: nobody, or a deleted user), read at most once. */
  actorRole: () => Promise<string | undefined>;
  /** Inbound mail that announced itself as automatic. */
  autoSubmitted: boolean;
}

const ticketById = prepared((db) =>
  db
    .select()
    .from(tickets)
    .where(eq(tickets.id, sql.placeholder('id'))),
);
const writeSla = prepared((db) =>
  db
    .update(tickets)
    .set({
      sla: sql`${sql.placeholder('sla')}`,
      next_due_at: sql`${sql.placeholder('due')}`,
      next_warn_at: sql`${sql.placeholder('warn')}`,
    })
    .where(eq(tickets.id, sql.placeholder('id'))),
);
/**
 * Writes a ticket's clocks, and keeps the row its unit of work locked current (the next entry of
 * the same unit of work reads the clocks from it, with no statement: decision 070).
 */
export async function storeSla(tx: Tx, id: number, sla: string | null, due: string | null, warn: string | null) {
  await writeSla(tx).run({ id, sla, due, warn });
  const known = lockedTicket<TicketRow>(id);
  if (known) Object.assign(known, { sla, next_due_at: due, next_warn_at: warn });
}
const valuesOf = prepared((db) =>
  db
    .select({ key: customFields.key, value: ticketCustomValues.value })
    .from(ticketCustomValues)
    .innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id))
    .where(eq(ticketCustomValues.ticket_id, sql.placeholder('id'))),
);
/** What a replay reads of a ticket's history: its messages and status changes, with their writers' roles. */
const historyOf = prepared((db) =>
  db
    .select({
      type: transactions.type,
      created_at: transactions.created_at,
      old_value: transactions.old_value,
      new_value: transactions.new_value,
      outside_sender: transactions.outside_sender,
      role: users.role,
    })
    .from(transactions)
    .leftJoin(users, eq(users.id, transactions.creator_id))
    .where(
      and(eq(transactions.ticket_id, sql.placeholder('id')), sql`${transactions.type} IN ('Correspond', 'Status')`),
    )
    .orderBy(asc(transactions.id)),
);

/** The afterEntry step: moves the ticket's clocks for this entry; whether it changed the ticket's row. */
export async function slaAfterEntry(tx: Tx, e: SlaEntry): Promise<boolean> {
  const type = e.row.type;
  if (!CLOCK_TYPES.has(type)) return false;
  // A new ticket with no policy to match: nothing to read (the policies are kept per process).
  if (type === 'Create' && (await slaPolicies(tx)).length === 0) return false;
  // A message or a status change needs only the clocks: those of the row this unit of work
  // locked (kept current by storeSla), when it did; a new ticket or a changed field reads the row.
  let known = lockedTicket<TicketRow>(e.ticketId);
  // A changed field with no policy to match, on a ticket with no clocks: nothing to do.
  if (REMATCH_TYPES.has(type) && known && known.sla === null && (await slaPolicies(tx)).length === 0) return false;
  if (type !== 'Correspond' && type !== 'Status') known = type === 'Create' ? e.created : undefined;
  const ticket = known ?? (await ticketById(tx).get({ id: e.ticketId }));
  if (!ticket) return false;
  const before = parseSlaState(ticket.sla);
  let after: SlaState | null;
  if (type === 'Create' || REMATCH_TYPES.has(type)) {
    after = await matched(tx, ticket, before, type === 'Create');
  } else {
    if (!before) return false;
    // The writer's role is read only for a message (a status change needs none).
    const role = type === 'Correspond' ? await e.actorRole() : undefined;
    const event = slaEventOf({
      type,
      created_at: e.row.created_at,
      new_value: e.row.new_value,
      role,
      autoSubmitted: e.autoSubmitted,
      outsideSender: e.row.outside_sender,
    });
    if (!event) return false;
    after = applySlaEvent(
      before,
      event,
      await slaHours(tx, before.terms.calendar_id),
      await kindsOf(tx, ticket.queue_id),
    );
  }
  return await saveSla(tx, ticket, before, after);
}

/** The clocks under the policy that applies now: started at creation, replayed when another one applies. */
async function matched(
  tx: Tx,
  ticket: TicketRow,
  before: SlaState | null,
  creating: boolean,
): Promise<SlaState | null> {
  const policies = await slaPolicies(tx);
  if (policies.length === 0 && !before) return null;
  const cf: Record<string, string> = {};
  if (matchesCustomFields(policies)) for (const v of await valuesOf(tx).all({ id: ticket.id })) cf[v.key] = v.value;
  const policy = matchPolicy(policies, { queue_id: ticket.queue_id, priority: ticket.priority, cf });
  if (!policy) return null;
  const terms = termsOf(policy);
  if (before && sameTerms(before.terms, terms)) return before;
  const hours = await slaHours(tx, terms.calendar_id);
  const k = await kindsOf(tx, ticket.queue_id);
  if (creating) return startSla(terms, ticket.created_at, ticket.status, hours, k);
  // Another promise: the history again under it, from the creation.
  const history = await historyOf(tx).all({ id: ticket.id });
  const firstStatus = history.find((h) => h.type === 'Status');
  const events: SlaEvent[] = [];
  for (const h of history) {
    const ev = slaEventOf({
      type: h.type,
      created_at: h.created_at,
      new_value: h.new_value,
      role: h.role ?? undefined,
      autoSubmitted: false,
      outsideSender: h.outside_sender,
    });
    if (ev) events.push(ev);
  }
  const s = replaySla(terms, ticket.created_at, firstStatus?.old_value ?? ticket.status, events, hours, before, k);
  return s.status === ticket.status
    ? s
    : applySlaEvent(s, { kind: 'status', at: ticket.updated_at, to: ticket.status }, hours, k);
}

/** What each status of the ticket's queue's lifecycle means to the clocks (SPEC D3). */
async function kindsOf(tx: Tx, queueId: number): Promise<StatusKinds> {
  const l = await lifecycleOf(tx, queueId);
  return (status) => categoryIn(l, status);
}

/** When a clock's timer for `step` falls due (FAR: not while it does not run). */
function timerOf(c: ClockState, step: Step): string {
  if (c.met_at !== null || c.due_at === null || c.breached_at !== null) return FAR;
  return step === 'breach' ? c.due_at : (c.warn_at ?? FAR);
}

/** What a clock waits for next: its warning (once per promise, when it has a window), then its breach. */
export function pendingStep(c: ClockState): Step {
  return c.warn_at !== null && !c.warned_at && c.due_at !== null && c.warn_at < c.due_at ? 'warning' : 'breach';
}

/**
 * The timer of clock `name` (one per clock, decision 070): due at its next step, its cycle the
 * clock's promise and that step — so each step of a promise fires once.
 */
export async function armClock(tx: Tx, ticketId: number, name: string, c: ClockState): Promise<void> {
  await armTimers(tx, [clockTimer(ticketId, name, c)]);
}
function clockTimer(ticketId: number, name: string, c: ClockState): ArmTimer {
  const step = pendingStep(c);
  return { ticketId, kind: 'sla', key: name, dueAt: timerOf(c, step), cycle: `${c.cycle}|${step}` };
}

/** Writes the state and arms what changed; whether anything did. */
async function saveSla(tx: Tx, ticket: TicketRow, before: SlaState | null, after: SlaState | null): Promise<boolean> {
  const stored = after ? JSON.stringify(after) : null;
  if (stored === ticket.sla) return false;
  const { due, warn } = nextDue(after);
  await storeSla(tx, ticket.id, stored, due, warn);
  const arm: ArmTimer[] = []; // in one statement: a new ticket's three clocks cost one
  for (const name of SLA_CLOCKS) {
    const was = before?.[name] ?? null;
    const now = after?.[name] ?? null;
    if (now === null) {
      if (was !== null) await disarmTimer(tx, ticket.id, 'sla', name);
      continue;
    }
    const step = pendingStep(now);
    if (
      was !== null &&
      was.cycle === now.cycle &&
      pendingStep(was) === step &&
      timerOf(was, step) === timerOf(now, step)
    )
      continue;
    arm.push(clockTimer(ticket.id, name, now));
  }
  await armTimers(tx, arm);
  return true;
}
