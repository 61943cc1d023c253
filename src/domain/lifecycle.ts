// The ticket lifecycle, a domain rule: which statuses there are, which are active, what a move
// does to resolved_at. A leaf (it imports nothing), so the scrip engine below the domain may read
// it too; views get the statuses they offer as props (ARCHITECTURE.md, decision 046).
/** RT's default lifecycle (SPEC B3). Any status may move to any other. */
export const STATUSES = ['new', 'open', 'stalled', 'resolved', 'rejected', 'deleted'] as const;
export type Status = (typeof STATUSES)[number];
export const isStatus = (s: unknown): s is Status => (STATUSES as readonly unknown[]).includes(s);
export const ACTIVE_STATUSES: readonly Status[] = ['new', 'open', 'stalled'];
export const INACTIVE_STATUSES: readonly Status[] = ['resolved', 'rejected', 'deleted'];

/** resolved_at after a move from `from` to `to`: set on resolving, cleared on reopening. */
export function nextResolvedAt(from: string, to: string, current: string | null, now: string): string | null {
  if (to === 'resolved' && from !== 'resolved') return now;
  if (ACTIVE_STATUSES.includes(to as Status)) return null;
  return current;
}

/** SPEC D3: a status name of any lifecycle (lower-case letters and `_`; the list's sort writes them into SQL). */
export const STATUS_NAME = /^[a-z][a-z_]{0,39}$/;
export const STATUS_NAME_HINT = 'Expected a status: 1–40 lower-case letters or _';
