import type { Tx } from '../../db/port.js';
import type { NotifySettings } from '../../scrips/config.js';
import type { TicketRow } from '../tickets/serialize.js';
import { fireIdle } from './idleFire.js';
import { fireUnsnooze } from './snooze.js';
import { fireSlaTimer } from './slaTimer.js';
import type { TimerKind, TimerRow } from './timers.js';

// What each kind of timer does when it falls due (decision 069): one line per kind.

export interface FireContext {
  /** The unit of work of the timer's ticket, which is locked; the timer is already marked fired in it. */
  tx: Tx;
  timer: TimerRow;
  ticket: TicketRow;
  /** Now, by the store's clock (ISO). */
  now: string;
  /** It fell due while no process was running (more than TIMER_LATE_MS before this process's timers started). */
  late: boolean;
  /** The app's settings, for the scrips of the entries it writes. */
  notify: NotifySettings;
}

export type FireTimer = (c: FireContext) => Promise<void>;

export const TIMER_HANDLERS: Partial<Record<TimerKind, FireTimer>> = {
  sla: fireSlaTimer,
  idle: (c) => fireIdle(c),
  unsnooze: (c) => fireUnsnooze(c.tx, c.ticket, c.timer.cycle, c.late, c.now, c.notify),
};
