import type { Tx } from '../../db/port.js';
import type { tickets } from '../../db/tables.js';
import type { NotifySettings } from '../../scrips/config.js';
import { recordTransactions } from '../transactions.js';
import { armClock, type Step, storeSla } from './sla.js';
import { breachClock, nextDue, parseSlaState, SLA_CLOCKS, type SlaClock, warnClock } from './slaClock.js';
import type { TimerRow } from './timers.js';

// SPEC D2 (decision 070): what an 'sla' timer does when it falls due — a clock's warning or
// breach, as an `SLA` entry by nobody (field = the clock, old_value = its due time, new_value =
// warning | breached), on which the scrips (on_sla_warning, on_sla_breach) and their webhooks run.

/** TIMER_HANDLERS.sla (its context is timerKinds' FireContext). */
export async function fireSlaTimer({
  tx,
  timer,
  ticket,
  now,
  notify,
}: {
  tx: Tx;
  timer: TimerRow;
  ticket: typeof tickets.$inferSelect;
  now: string;
  notify: NotifySettings;
}): Promise<void> {
  const name = timer.key as SlaClock;
  const step: Step = timer.cycle.endsWith('|warning') ? 'warning' : 'breach';
  const s = parseSlaState(ticket.sla);
  const c = s && (SLA_CLOCKS as readonly string[]).includes(name) ? s[name] : null;
  // Met, stopped, or another promise since it was armed: nothing to say.
  if (
    !s ||
    !c ||
    `${c.cycle}|${step}` !== timer.cycle ||
    c.met_at !== null ||
    c.due_at === null ||
    c.breached_at !== null
  )
    return;
  if (step === 'warning') {
    if (c.warn_at === null || c.warn_at > now || c.warned_at) return;
    // Warned once for this promise; the clock's timer now waits for its breach.
    const after = warnClock(s, name, now);
    const { due, warn } = nextDue(after);
    await storeSla(tx, ticket.id, JSON.stringify(after), due, warn);
    await armClock(tx, ticket.id, name, after[name]!);
  } else {
    if (c.due_at > now) return;
    const after = breachClock(s, name);
    const { due, warn } = nextDue(after);
    await storeSla(tx, ticket.id, JSON.stringify(after), due, warn);
  }
  await recordTransactions(
    tx,
    ticket.id,
    null,
    [{ type: 'SLA', field: name, old_value: c.due_at, new_value: step === 'breach' ? 'breached' : 'warning' }],
    now,
    { notify, queueId: ticket.queue_id },
  );
}
