import type { Conn } from '../../db/port.js';
import { allLifecycles, allowedFrom, lifecycleOf, namesIn } from './categories.js';

// SPEC D3: what the pages offer (decision 073): a ticket's status menu holds its current status
// and the ones a person may move it to, in its lifecycle's order and colors; the list's filter and
// bulk bar offer the statuses of every lifecycle.

export interface StatusMenu {
  /** The current status first-class among the allowed targets, in the lifecycle's order. */
  statuses: string[];
  /** Each status's color (#rrggbb), for badges and menu entries. */
  colors: Record<string, string>;
  /** The Resolve button's target: the first inactive status allowed (RT's default: resolved); none when done already. */
  resolveTo?: string;
}

export async function statusMenu(conn: Conn, t: { queue_id: number; status: string }): Promise<StatusMenu> {
  const lc = await lifecycleOf(conn, t.queue_id);
  const allowed = new Set(allowedFrom(lc, t.status));
  const names = lc.statuses.map((s) => s.name).filter((n) => n === t.status || allowed.has(n));
  if (!names.includes(t.status)) names.unshift(t.status);
  const done = lc.statuses.find((s) => s.name === t.status)?.category === 'inactive';
  const resolveTo =
    lc.id === null
      ? t.status === 'resolved'
        ? undefined
        : 'resolved'
      : done
        ? undefined
        : namesIn(lc, 'inactive').find((n) => n !== 'deleted' && allowed.has(n));
  return { statuses: names, colors: Object.fromEntries(lc.statuses.map((s) => [s.name, s.color])), resolveTo };
}

/** Every status of every lifecycle (RT's default first) and their colors (the first lifecycle's that has it). */
export async function everyStatus(conn: Conn): Promise<{ statuses: string[]; colors: Record<string, string> }> {
  const colors: Record<string, string> = {};
  for (const l of await allLifecycles(conn)) for (const s of l.statuses) colors[s.name] ??= s.color;
  return { statuses: Object.keys(colors), colors };
}
