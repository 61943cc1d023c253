/**
 * Server-side SVG charts (decision 083). Pure hono/jsx views of plain arrays: no report types,
 * no script, no dependency. Each draws `<div class="chart">` holding a legend (two series), an
 * `<svg role="img" aria-labelledby>` with `<title>` and a `<desc>` sentence of the figures, and
 * below it the same data as a `<table class="chart-data">` (caption, th scope): the text
 * alternative. No data: one sentence (`empty`), no chart. Values must be finite and ≥ 0 (a
 * ChartDataError otherwise: clamp net time sums with Math.max(0, …) before drawing).
 *
 * Usage on the reports page (the lead wires it; `id` must be unique on the page):
 *
 *   import { BarChart, Histogram, HBarChart, firstResponseBuckets, durationText } from '../charts/index.js';
 *
 *   // created and resolved per week (rows of the summary grouped by week)
 *   <BarChart id="per-week" title="Created and resolved per week" category="Week" unit="tickets"
 *     series={['Created', 'Resolved']}
 *     data={rows.map((r) => ({ label: r.key_label, values: [r.created, r.resolved],
 *                              links: [r.tickets_url, r.resolved_url] }))} />
 *
 *   // first-response distribution: buckets < 15 min, 15–60 min, 1–4 h, 4–24 h, 1–3 d, > 3 d
 *   // ([from, to) minutes; from the per-ticket minutes, or pass six counts you computed yourself
 *   // in FIRST_RESPONSE_BUCKETS order as { label, values: [count] })
 *   <Histogram id="first-response" title="First response" category="First response"
 *     unit="tickets" data={firstResponseBuckets(tickets.map((t) => t.first_response_minutes))} />
 *
 *   // per agent (rows grouped by owner): one or two series; long names are cut in the SVG only
 *   <HBarChart id="per-agent" title="Resolved per agent" category="Agent" series={['Resolved']}
 *     data={rows.map((r) => ({ label: r.key_label, values: [r.resolved] }))} />
 *   // durations: format={durationText} and unit omitted, e.g. median first response per agent
 *
 * Props (ChartProps): id, title, series (1 or 2 names), data ({ label, values, links? }[]),
 * category (table's first header), unit (words after each value), format (n → text), empty
 * (sentence when no data), table (false only if an identical table sits right beside it).
 * CSS: the "Charts" block at the end of static/app.css (the SVG scales to its column, ≤ 30rem).
 */
export { BarChart, Histogram } from './bar.js';
export { HBarChart } from './hbar.js';
export type { ChartProps } from './parts.js';
export {
  type ChartDatum,
  ChartDataError,
  checkData,
  durationText,
  FIRST_RESPONSE_BUCKETS,
  firstResponseBuckets,
} from './scale.js';
