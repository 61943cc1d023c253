// SPEC D4 report periods (decision 079): dates in the reader's time zone, the period [from, to),
// turned into UTC instants; a moment's local day and ISO week in that zone. Intl knows every
// IANA zone (DST included); no dependency.

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
