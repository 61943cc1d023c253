// What every chart shares (decision 083): its props, its colours and the pattern of the second
// series, the sentence of its <desc>, the legend, and the data table below it.
import type { Child } from 'hono/jsx';
import { type ChartDatum, formatNumber, safeId } from './scale.js';

export interface ChartProps {
  /** Unique on the page: the SVG's title and desc ids and the pattern id derive from it. */
  id: string;
  /** The chart's name: the SVG's <title> and the data table's caption. */
  title: string;
  /** One or two series names, in the order of each datum's values (e.g. ['Created', 'Resolved']). */
  series: string[];
  data: ChartDatum[];
  /** The header of the label column of the table (e.g. 'Week', 'Agent'); default 'Category'. */
  category?: string;
  /** The unit of the values as words (e.g. 'tickets', 'min'), said in the description and the table head. */
  unit?: string;
  /** How the table, the description and the bar labels say a value; default 1,234.5. */
  format?: (n: number) => string;
  /** The sentence shown instead of a chart when there is no data. */
  empty?: string;
  /** false leaves the data table out: only when the same numbers are in a table right beside it. */
  table?: boolean;
}

/** Series colours on white: 6.5:1 and 5.4:1 (WCAG 1.4.11 wants 3:1 for graphics). */
export const COLOURS = ['#2456c7', '#b54708'];
/** The light fill between the stripes of the second series' pattern. */
export const STRIPE_BG = '#fff3e0';
export const TEXT = '#1d2330';
export const MUTED = '#5d6679';
export const GRID = '#e4e7ec';

export const ids = (id: string) => {
  const base = safeId(id);
  return { base, title: `${base}-title`, desc: `${base}-desc`, stripes: `${base}-stripes` };
};

/**
 * The SVG <defs>: the stripes that tell the second series apart without colour. Diagonal; across
 * (horizontal bands) when bars are too narrow for a diagonal to show (a year by week).
 */
export function Stripes({ id, across = false }: { id: string; across?: boolean }) {
  return (
    <defs>
      <pattern
        id={id}
        width="6"
        height="6"
        patternUnits="userSpaceOnUse"
        patternTransform={across ? 'rotate(90)' : 'rotate(45)'}
      >
        <rect width="6" height="6" fill={STRIPE_BG} />
        <rect width="3" height="6" fill={COLOURS[1]} />
      </pattern>
    </defs>
  );
}

/** The fill and outline of series `i`'s bars. */
export function barPaint(i: number, stripesId: string): { fill: string; stroke?: string; 'stroke-width'?: string } {
  return i === 0 ? { fill: COLOURS[0] } : { fill: `url(#${stripesId})`, stroke: COLOURS[1], 'stroke-width': '1.5' };
}

const withUnit = (text: string, unit?: string) => (unit ? `${text} ${unit}` : text);

/**
 * The <desc> sentence: every figure when there are up to 12 categories, else per series its total,
 * highest and lowest with where they fall.
 */
export function describe(p: ChartProps): string {
  const fmt = p.format ?? formatNumber;
  const say = (v: number) => withUnit(fmt(v), p.unit);
  const n = p.data.length;
  const head = `${p.title}: ${n} ${n === 1 ? 'category' : 'categories'}`;
  if (n <= 12) {
    const parts = p.data.map((d) =>
      p.series.length === 1
        ? `${d.label} ${say(d.values[0])}`
        : `${d.label}: ${p.series.map((s, i) => `${s} ${say(d.values[i])}`).join(', ')}`,
    );
    return `${head}. ${parts.join('; ')}.`;
  }
  const perSeries = p.series.map((s, i) => {
    let hi = p.data[0];
    let lo = p.data[0];
    let total = 0;
    for (const d of p.data) {
      total += d.values[i];
      if (d.values[i] > hi.values[i]) hi = d;
      if (d.values[i] < lo.values[i]) lo = d;
    }
    return `${s}: total ${say(total)}, highest ${say(hi.values[i])} (${hi.label}), lowest ${say(lo.values[i])} (${lo.label})`;
  });
  return `${head}, from ${p.data[0].label} to ${p.data[n - 1].label}. ${perSeries.join('. ')}.`;
}

/** The series names with their swatches (the second striped like its bars); shown for two series. */
export function Legend({ series }: { series: string[] }) {
  if (series.length < 2) return null;
  return (
    <ul class="chart-legend">
      {series.map((s, i) => (
        <li>
          <span class={`chart-swatch chart-swatch-${i + 1}`} aria-hidden="true" />
          {s}
        </li>
      ))}
    </ul>
  );
}

/** The same data as a table: the chart's text alternative, numbers linked when the data carries links. */
export function DataTable(p: ChartProps) {
  const fmt = p.format ?? formatNumber;
  return (
    <table class="chart-data">
      <caption>
        {p.title}
        {p.unit && <span class="chart-unit"> ({p.unit})</span>}
      </caption>
      <thead>
        <tr>
          <th scope="col">{p.category ?? 'Category'}</th>
          {p.series.map((s) => (
            <th scope="col" class="num">
              {s}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {p.data.map((d) => (
          <tr>
            <th scope="row">{d.label}</th>
            {d.values.map((v, i) => {
              const link = d.links?.[i];
              return <td class="num">{link ? <a href={link}>{fmt(v)}</a> : fmt(v)}</td>;
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A table longer than this sits folded under the chart (a <details> the reader opens). */
export const TABLE_OPEN_ROWS = 20;

/** The frame of every chart: the sentence when empty, else the legend, the SVG and the table. */
export function ChartFrame({ p, kind, children }: { p: ChartProps; kind: string; children: Child }) {
  const { base } = ids(p.id);
  if (p.data.length === 0)
    return (
      <div class={`chart chart-${kind}`} id={base}>
        <p class="chart-empty">{p.empty ?? `${p.title}: nothing to show for this period.`}</p>
      </div>
    );
  return (
    <div class={`chart chart-${kind}`} id={base}>
      <Legend series={p.series} />
      {children}
      {p.table !== false &&
        (p.data.length > TABLE_OPEN_ROWS ? (
          <details class="chart-more">
            <summary>
              Table of the {p.data.length} rows of “{p.title}”
            </summary>
            <DataTable {...p} />
          </details>
        ) : (
          <DataTable {...p} />
        ))}
    </div>
  );
}
