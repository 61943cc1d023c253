// Vertical bars (decision 083): categories along the bottom, one or two series side by side
// (e.g. created and resolved per week); the histogram is the same drawing with touching bars.
import { barPaint, type ChartProps, ChartFrame, describe, GRID, ids, MUTED, Stripes, TEXT } from './parts.js';
import {
  CHAR_W,
  checkData,
  FONT,
  formatNumber,
  formatTick,
  maxOf,
  niceAxis,
  round,
  textWidth,
  truncate,
} from './scale.js';

/** The SVG's width in its own units; CSS scales it to the column (360 px phones up to ~30rem). */
export const WIDTH = 360;
const TOP = 8;
const PLOT_H = 170;
const RIGHT = 8;
/** Category labels longer than this are cut (the full label is in its <title> and in the table). */
const LABEL_CHARS = 12;
/** Horizontal room one rotated (-45°) label line needs. */
const ROTATED_PITCH = FONT * 1.45;

export interface BarLayout {
  left: number;
  band: number;
  rotated: boolean;
  /** Straight labels on two lines (split at a space) where one line is too wide but two fit. */
  lines?: string[][];
  /** Every how many categories a label is drawn (1: all). */
  every: number;
  height: number;
}

/** Where the plot sits and how the category labels fit: straight, or rotated and thinned. */
export function barLayout(labels: string[], tickLabels: string[]): BarLayout {
  const n = Math.max(1, labels.length);
  const labelW = Math.max(...labels.map((l) => textWidth(truncate(l, LABEL_CHARS))), CHAR_W);
  const tickW = Math.max(...tickLabels.map(textWidth));
  let left = Math.ceil(tickW + 8);
  let band = (WIDTH - left - RIGHT) / n;
  if (labelW + 6 <= band) return { left, band, rotated: false, every: 1, height: TOP + PLOT_H + FONT + 12 };
  const lines = labels.map((l) => twoLines(truncate(l, LABEL_CHARS), band - 6));
  if (lines.every((l) => l !== null))
    return { left, band, rotated: false, lines, every: 1, height: TOP + PLOT_H + 2 * FONT + 14 };
  // Rotated labels hang down-left of their bar's middle, by (width + glyph height) × sin 45°: the
  // first one must stay inside the picture.
  left = Math.max(left, Math.ceil((labelW + FONT) * Math.SQRT1_2 - band / 2 + 2));
  band = (WIDTH - left - RIGHT) / n;
  const every = Math.max(1, Math.ceil(ROTATED_PITCH / band));
  return { left, band, rotated: true, every, height: Math.ceil(TOP + PLOT_H + labelW * Math.SQRT1_2 + FONT + 12) };
}

/** `text` as one line, or two split at the space nearest its middle, each within `room`; null if not. */
export function twoLines(text: string, room: number): string[] | null {
  if (textWidth(text) <= room) return [text];
  const spaces = [...text.matchAll(/ /g)].map((m) => m.index);
  spaces.sort((a, b) => Math.abs(a - text.length / 2) - Math.abs(b - text.length / 2));
  for (const at of spaces) {
    const parts = [text.slice(0, at), text.slice(at + 1)];
    if (parts.every((p) => p && textWidth(p) <= room)) return parts;
  }
  return null;
}

export function BarChart(p: ChartProps & { gap?: number; kind?: string }) {
  checkData(p.series, p.data);
  const kind = p.kind ?? 'bar';
  if (p.data.length === 0) return <ChartFrame p={p} kind={kind} children={null} />;
  const fmt = p.format ?? formatNumber;
  const id = ids(p.id);
  const axis = niceAxis(
    maxOf(p.data),
    p.data.every((d) => d.values.every(Number.isInteger)),
  );
  const tickLabels = axis.ticks.map(formatTick);
  const lay = barLayout(
    p.data.map((d) => d.label),
    tickLabels,
  );
  const base = TOP + PLOT_H;
  const gap = p.gap ?? 0.22;
  const groupW = lay.band * (1 - gap);
  const barW = groupW / p.series.length;
  const y = (v: number) => base - (v / axis.top) * PLOT_H;
  const unit = p.unit ? ` ${p.unit}` : '';
  return (
    <ChartFrame p={p} kind={barW < 6 ? `${kind} chart-dense` : kind}>
      <svg
        viewBox={`0 0 ${WIDTH} ${lay.height}`}
        role="img"
        aria-labelledby={id.title}
        aria-describedby={id.desc}
        font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
        font-size={FONT}
      >
        <title id={id.title}>{p.title}</title>
        <desc id={id.desc}>{describe(p)}</desc>
        {p.series.length > 1 && <Stripes id={id.stripes} across={barW < 6} />}
        <g class="chart-axis">
          {axis.ticks.map((t, i) => (
            <g>
              <line
                x1={lay.left}
                x2={WIDTH - RIGHT}
                y1={round(y(t))}
                y2={round(y(t))}
                stroke={i === 0 ? MUTED : GRID}
              />
              <text x={lay.left - 5} y={round(y(t) + FONT * 0.35)} text-anchor="end" fill={MUTED}>
                {tickLabels[i]}
              </text>
            </g>
          ))}
        </g>
        <g class="chart-bars">
          {p.data.map((d, c) => {
            const x0 = lay.left + c * lay.band + (lay.band - groupW) / 2;
            return d.values.map((v, s) => {
              const h = v > 0 ? Math.max(1, (v / axis.top) * PLOT_H) : 0;
              return (
                <rect
                  x={round(x0 + s * barW)}
                  y={round(base - h)}
                  width={round(Math.max(1, barW - (p.series.length > 1 ? 1 : 0)))}
                  height={round(h)}
                  data-series={s}
                  data-value={v}
                  {...barPaint(s, id.stripes)}
                >
                  <title>{`${d.label} — ${p.series[s]}: ${fmt(v)}${unit}`}</title>
                </rect>
              );
            });
          })}
        </g>
        <g class="chart-labels" fill={TEXT}>
          {p.data.map((d, c) => {
            if (c % lay.every !== 0) return null;
            const cx = round(lay.left + c * lay.band + lay.band / 2);
            const shown = truncate(d.label, LABEL_CHARS);
            const ty = base + FONT + 4;
            return lay.rotated ? (
              <text x={cx} y={ty} text-anchor="end" transform={`rotate(-45 ${cx} ${ty})`}>
                {shown !== d.label && <title>{d.label}</title>}
                {shown}
              </text>
            ) : lay.lines && lay.lines[c].length > 1 ? (
              <text x={cx} y={ty} text-anchor="middle">
                {shown !== d.label && <title>{d.label}</title>}
                <tspan x={cx}>{lay.lines[c][0]}</tspan>
                <tspan x={cx} dy={FONT + 2}>
                  {lay.lines[c][1]}
                </tspan>
              </text>
            ) : (
              <text x={cx} y={ty} text-anchor="middle">
                {shown !== d.label && <title>{d.label}</title>}
                {shown}
              </text>
            );
          })}
        </g>
      </svg>
    </ChartFrame>
  );
}

/**
 * A histogram: counts in ordered buckets (e.g. firstResponseBuckets(minutes)), bars touching.
 * One series; its name says what is counted (e.g. 'Tickets').
 */
export function Histogram(p: Omit<ChartProps, 'series'> & { series?: string[] }) {
  return <BarChart {...p} series={p.series ?? ['Tickets']} gap={0.04} kind="histogram" />;
}
