// The arithmetic behind the charts (decision 083): checking the data, a value axis with round
// ticks, label sizes and truncation, number wording. No markup here; the components draw.

/** One category of a chart: its label and one value per series (same order as `series`). */
export interface ChartDatum {
  label: string;
  values: number[];
  /** Optional drill-down links, one per value (null: no link); the data table links the number. */
  links?: (string | null)[];
}

/** Thrown for data a chart cannot draw truthfully (a negative or non-finite value, a wrong count). */
export class ChartDataError extends RangeError {}

/** Checks the data against the series: 1 or 2 series, one finite value ≥ 0 per series per category. */
export function checkData(series: string[], data: ChartDatum[]): void {
  if (series.length < 1 || series.length > 2) throw new ChartDataError('a chart draws one or two series');
  for (const d of data) {
    if (d.values.length !== series.length)
      throw new ChartDataError(`"${d.label}" has ${d.values.length} values for ${series.length} series`);
    for (const v of d.values) {
      if (!Number.isFinite(v)) throw new ChartDataError(`"${d.label}" has a value that is not a number`);
      if (v < 0) throw new ChartDataError(`"${d.label}" has a negative value (${v}); charts draw counts and durations`);
    }
  }
}

/** The largest value of the data (0 when there is none). */
export function maxOf(data: ChartDatum[]): number {
  let m = 0;
  for (const d of data) for (const v of d.values) if (v > m) m = v;
  return m;
}

/**
 * A value axis from 0 with 3–5 round steps (1, 2, 2.5 or 5 × 10ⁿ) reaching at least `max`.
 * Counts keep whole steps: a largest value of 1 gives the ticks 0 and 1, not 0, 0.25, ….
 */
export function niceAxis(max: number, integers = true): { top: number; ticks: number[] } {
  if (!(max > 0)) return { top: 1, ticks: [0, 1] };
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  let step = power * 10;
  for (const m of [1, 2, 2.5, 5, 10]) {
    if (power * m >= raw) {
      step = power * m;
      break;
    }
  }
  if (integers) step = Math.max(1, Math.ceil(step));
  const count = Math.max(1, Math.ceil(max / step - 1e-9));
  const ticks: number[] = [];
  for (let i = 0; i <= count; i++) ticks.push(round(i * step));
  return { top: ticks[ticks.length - 1], ticks };
}

/** Rounds to 2 decimals for coordinates (short markup, stable tests). */
export function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const whole = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** A value as the table and the description say it: 1,234 or 12.5. */
export function formatNumber(n: number): string {
  return whole.format(n);
}

/** A value as an axis tick says it, short: 950, 1.2K, 3M. */
export function formatTick(n: number): string {
  return n < 10_000 ? whole.format(n) : compact.format(n);
}

/** The font size of chart text, in the SVG's units (the charts are drawn 360 units wide). */
export const FONT = 12;
/**
 * A glyph width of the system sans at FONT, on the wide side: DejaVu Sans (Debian's default)
 * draws "2026-W01" 61.5 units wide, 7.7 a character; narrower fonts only leave more room.
 */
export const CHAR_W = FONT * 0.66;

/** The width `text` takes at FONT, estimated. */
export function textWidth(text: string): number {
  return [...text].length * CHAR_W;
}

/** `text` cut to `max` characters with an ellipsis; the full text goes into a `<title>`. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
}

/** An id safe to use in `id` and `aria-labelledby` (letters, digits, dashes). */
export function safeId(id: string): string {
  const s = id.replace(/[^A-Za-z0-9_-]+/g, '-');
  return /^[A-Za-z]/.test(s) ? s : `chart-${s}`;
}

/**
 * The first-response buckets of the reports page (SPEC D4): each bucket is [from, to) minutes.
 */
export const FIRST_RESPONSE_BUCKETS: { label: string; from: number; to: number }[] = [
  { label: '< 15 min', from: 0, to: 15 },
  { label: '15–60 min', from: 15, to: 60 },
  { label: '1–4 h', from: 60, to: 240 },
  { label: '4–24 h', from: 240, to: 1440 },
  { label: '1–3 d', from: 1440, to: 4320 },
  { label: '> 3 d', from: 4320, to: Number.POSITIVE_INFINITY },
];

/** Counts minutes into FIRST_RESPONSE_BUCKETS: the histogram's data (null and negative left out). */
export function firstResponseBuckets(minutes: (number | null | undefined)[]): ChartDatum[] {
  const counts = FIRST_RESPONSE_BUCKETS.map(() => 0);
  for (const m of minutes) {
    if (m == null || !Number.isFinite(m) || m < 0) continue;
    const i = FIRST_RESPONSE_BUCKETS.findIndex((b) => m >= b.from && m < b.to);
    counts[i]++;
  }
  return FIRST_RESPONSE_BUCKETS.map((b, i) => ({ label: b.label, values: [counts[i]] }));
}

/** Minutes in words for durations (a median may be fractional): "45 min", "1 h 30 min", "2 d 3 h". */
export function durationText(minutes: number): string {
  const m = Math.round(minutes);
  if (m < 60) return `${m} min`;
  if (m < 1440) return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
  const h = Math.round((m % 1440) / 60);
  const d = Math.floor(m / 1440) + (h === 24 ? 1 : 0);
  return `${d} d${h % 24 ? ` ${h % 24} h` : ''}`;
}
