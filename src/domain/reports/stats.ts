// SPEC D4 (docs/metrics.md): the figures of a report row, as pure functions of whole minutes.

/** Whole minutes from `from` to `to` (ISO instants), rounded. */
export const minutesBetween = (from: string, to: string): number =>
  Math.round((Date.parse(to) - Date.parse(from)) / 60_000);

/** The median: the middle value, or the mean of the two middle ones of an even count, rounded; null for none. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : Math.round(((s[mid - 1] as number) + (s[mid] as number)) / 2);
}

/** The 90th percentile by nearest rank: the value at rank ⌈0.9·n⌉ (1-based) in order; null for none. */
export function p90(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.ceil(0.9 * s.length) - 1] as number;
}

/** `part` of `whole` in whole percent, rounded; null when whole is 0. */
export const percent = (part: number, whole: number): number | null =>
  whole === 0 ? null : Math.round((100 * part) / whole);

export interface Spread {
  median: number | null;
  p90: number | null;
}
export const spread = (values: number[]): Spread => ({ median: median(values), p90: p90(values) });

/** An SLA clock as ticket JSON has it (D2). */
export interface ClockFacts {
  due_at: string | null;
  met_at: string | null;
  breached_at: string | null;
}
/**
 * Whether a clock was met in time: true when met by its due time and never breached, false when
 * breached or met late, null while it is still running (or there is no such clock).
 */
export function metInTime(c: ClockFacts | null | undefined): boolean | null {
  if (!c || (c.met_at === null && c.breached_at === null)) return null;
  return c.breached_at === null && c.met_at !== null && (c.due_at === null || c.met_at <= c.due_at);
}
