import { recordTransactions } from '../transactions.js';
import { idleScrips, idleTicket, watches } from './idle.js';
import type { Tx } from '../../db/port.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { TicketRow } from '../tickets/serialize.js';
import type { TimerRow } from './timers.js';

// SPEC D2: an idle timer fell due (decision 072). Still watched by its scrip and still in the idle
// time it was armed for, the ticket gets an `Idle` entry by nobody (new_value: the scrip's id, on
// which only that scrip's on_idle condition holds; old_value: the idle start). Its scrips run on
// it, so close_idle mails and resolves, and a notify_webhook scrip delivers it.
export async function fireIdle({
  tx,
  timer,
  ticket,
  now,
  notify,
}: {
  tx: Tx;
  timer: TimerRow;
  ticket: TicketRow;
  now: string;
  notify: NotifySettings;
}): Promise<void> {
  const scrip = (await idleScrips(tx)).find((s) => String(s.id) === timer.key);
  if (!scrip || !watches(scrip, ticket)) return;
  const t = await idleTicket(tx, ticket.id);
  if (!t || t.start !== timer.cycle) return; // a message or status change since: armed again for it
  await recordTransactions(
    tx,
    ticket.id,
    null,
    [{ type: 'Idle', field: 'idle_since', old_value: t.start, new_value: String(scrip.id) }],
    now,
    { notify, queueId: ticket.queue_id },
  );
}
