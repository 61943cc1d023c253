import { Temporal } from 'temporal-polyfill';

// SPEC D4 time worked: the dates of entries and of "My week" are days in the reader's time zone
// (decision 081). An entry's `worked_on` is a plain date; "today" is the date the store's clock
// reads in that zone, and a week is an ISO week, Monday to Sunday, given as `[from, to)`.

/** The date `ms` falls on in `zone` (an IANA name; an unknown one reads as UTC). */
export function dateIn(ms: number, zone: string): string {
  const instant = Temporal.Instant.fromEpochMilliseconds(ms);
  try {
    return instant.toZonedDateTimeISO(zone).toPlainDate().toString();
  } catch {
    return instant.toZonedDateTimeISO('UTC').toPlainDate().toString();
  }
}

/** Whether `s` is a real calendar date written `YYYY-MM-DD`. */
export function isDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  try {
    return Temporal.PlainDate.from(s, { overflow: 'reject' }).toString() === s;
  } catch {
    return false;
  }
}

export const addDays = (date: string, days: number): string => Temporal.PlainDate.from(date).add({ days }).toString();

/** Days from `from` to `to` (negative when `to` comes first). */
export const daysBetween = (from: string, to: string): number =>
  Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to), { largestUnit: 'days' }).days;

/** The Monday of the ISO week `date` is in. */
export const mondayOf = (date: string): string => {
  const d = Temporal.PlainDate.from(date);
  return d.subtract({ days: d.dayOfWeek - 1 }).toString();
};

/** The ISO week of `date` as `[monday, next monday)`. */
export const weekOf = (date: string): { from: string; to: string } => {
  const from = mondayOf(date);
  return { from, to: addDays(from, 7) };
};
