// Calendar dates (`YYYY-MM-DD`) in a reader's time zone, for SPEC D4's report periods (decision
// 079) and time worked's days and weeks (decision 081): a date's first instant, an instant's
// date, date arithmetic and ISO weeks (Monday to Sunday). Intl knows every IANA zone (DST
// included); no dependency.

/** One formatter per zone: building one costs ~100 µs, and a report asks for thousands of local days. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const parts = (ms: number, zone: string) => {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  const o: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(ms))) if (p.type !== 'literal') o[p.type] = Number(p.value);
  return o as { year: number; month: number; day: number; hour: number; minute: number; second: number };
};

/** The zone's offset from UTC at instant `ms`, in ms. */
function offsetAt(ms: number, zone: string): number {
  const p = parts(ms, zone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The instant local midnight of `date` (YYYY-MM-DD) begins in `zone` (ISO, UTC). */
export function startOfDay(date: string, zone: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  // Two passes settle on the offset in force at that local midnight (a DST change that day included).
  let ms = guess - offsetAt(guess, zone);
  ms = guess - offsetAt(ms, zone);
  return new Date(ms).toISOString();
}

/** The local date (YYYY-MM-DD) of instant `iso` in `zone`. */
export function localDate(iso: string, zone: string): string {
  const p = parts(Date.parse(iso), zone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** `date` plus `days` (calendar arithmetic on the date alone). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** The ISO week (`2032-W11`) of a date, weeks from Monday. */
export function isoWeek(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  const dow = (t.getUTCDay() + 6) % 7; // Monday 0
  t.setUTCDate(t.getUTCDate() - dow + 3); // the week's Thursday names its year
  const year = t.getUTCFullYear();
  const week = Math.floor((t.getTime() - Date.UTC(year, 0, 1)) / 86400_000 / 7) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The Monday (a date) of the ISO week containing `date`. */
export function mondayOf(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const dow = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
  return addDays(date, -dow);
}

/** The local date of the instant `ms` in `zone`; a zone this Node does not know reads as UTC. */
export function dateIn(ms: number, zone: string): string {
  const iso = new Date(ms).toISOString();
  try {
    return localDate(iso, zone);
  } catch {
    return iso.slice(0, 10);
  }
}

/** Whether `s` is a real calendar date written `YYYY-MM-DD`. */
export const isDate = (s: string): boolean =>
  /^\d{4}-\d{2}-\d{2}$/.test(s) &&
  !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) &&
  new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);

/** Days from `from` to `to` (negative when `to` comes first). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/** The ISO week of `date` as `[monday, next monday)`. */
export const weekOf = (date: string): { from: string; to: string } => {
  const from = mondayOf(date);
  return { from, to: addDays(from, 7) };
};
