import type { Conn } from '../../db/port.js';
import { AppError, invalid } from '../errors.js';
import { allLifecycles, allowedFrom, type Lifecycle, lifecycleOf } from './categories.js';

// SPEC D3 (decision 073): whether a status may be named — one of the ticket's lifecycle — and
// whether a person may move a ticket there from where it is (the lifecycle's transitions).
// Automatic moves (a customer's reply, snooze, a queue move, scrips, Spam) ask only the first.

const names = (l: Lifecycle) => l.statuses.map((s) => s.name);

/** Every status name of every lifecycle, in order of first appearance (RT's default first). */
export async function anyStatusNames(conn: Conn): Promise<string[]> {
  return [...new Set((await allLifecycles(conn)).flatMap(names))];
}

/** 422 at `path` unless `status` is a status of `l` (naming the ones it has). */
export function requireStatusOf(l: Lifecycle, status: string, path = 'status'): void {
  if (!names(l).includes(status))
    throw invalid(
      path,
      l.id === null
        ? `Expected one of: ${names(l).join(', ')}`
        : `Expected one of: ${names(l).join(', ')} (lifecycle ${l.name} has no status "${status}")`,
    );
}

/** A status of queue `queueId`'s lifecycle, or (no queue) of any lifecycle: 422 at `path` otherwise. */
export async function checkStatusName(conn: Conn, status: string, queueId: number | null, path: string): Promise<void> {
  if (queueId !== null) return requireStatusOf(await lifecycleOf(conn, queueId), status, path);
  const all = await anyStatusNames(conn);
  if (!all.includes(status)) throw invalid(path, `Expected one of: ${all.join(', ')}`);
}

/**
 * A person's move from `from` to `to` in lifecycle `l`: 422 unless `to` is one of its statuses and
 * a transition it allows; `details: [{ path: "status", message, allowed }]`.
 */
export function requireAllowedMove(l: Lifecycle, from: string, to: string): void {
  if (from === to) return;
  requireStatusOf(l, to);
  const allowed = allowedFrom(l, from);
  if (allowed.includes(to)) return;
  const message = `A ticket cannot move from ${from} to ${to} in lifecycle ${l.name}: ${
    allowed.length ? `allowed: ${allowed.join(', ')}` : 'no move is allowed from there'
  }`;
  throw new AppError('validation_failed', message, [{ path: 'status', message, allowed }]);
}
