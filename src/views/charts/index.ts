/**
 * Server-side SVG charts (decision 083). Pure hono/jsx views of plain arrays: no report types,
 * no script, no dependency. Each draws `<div class="chart">` holding a legend (two series), an
 * `<svg role="img">` named by its `<title>` and described by a `<desc>` sentence of the figures,
 * and below it the same data as a `<table class="chart-data">` (caption, th scope; folded in a
 * `<details>` past 20 rows): the text alternative. No data: one sentence (`empty`), no chart. Values must be finite and ≥ 0 (a
 * ChartDataError otherwise: clamp net time sums with Math.max(0, …) before drawing).
 *
 * Usage on the reports page (the lead wires it; `id` must be unique on the page; rows are
 * SPEC D4 summary rows `{ key, label, created, resolved, first_response_minutes: { median, p90 },
 * tickets_url, resolved_url, … }`):
 *
 *   import { BarChart, durationText, firstResponseBuckets, HBarChart, Histogram } from '../charts/index.js';
 *
 *   // created and resolved per week (the summary with group_by=week), numbers linked to the list
 *   <BarChart id="per-week" title="Created and resolved per week" category="Week" unit="tickets"
 *     series={['Created', 'Resolved']}
 *     data={weekRows.map((r) => ({ label: r.label, values: [r.created, r.resolved],
 *                                  links: [r.tickets_url, r.resolved_url] }))} />
 *
 *   // first-response distribution: the summary has only median/p90, so count the per-ticket
 *   // minutes of the tickets created in the period (the CSV's first_response_minutes; null =
 *   // unanswered, left out) into < 15 min, 15–60 min, 1–4 h, 4–24 h, 1–3 d, > 3 d ([from, to)
 *   // minutes) — or pass six counts computed in SQL, in FIRST_RESPONSE_BUCKETS order, as
 *   // { label, values: [count] }
 *   <Histogram id="first-response" title="First response" category="First response"
 *     unit="tickets" data={firstResponseBuckets(minutes)} />
 *
 *   // per agent (the summary with group_by=owner): one or two series; long names are cut in the
 *   // SVG only (full in a <title> and the table)
 *   <HBarChart id="per-agent" title="Created and resolved per agent" category="Agent"
 *     series={['Created', 'Resolved']}
 *     data={ownerRows.map((r) => ({ label: r.label, values: [r.created, r.resolved],
 *                                   links: [r.tickets_url, r.resolved_url] }))} />
 *   // durations: format={durationText}, no unit; drop rows whose median is null (no answered
 *   // ticket) rather than drawing them as 0:
 *   <HBarChart id="fr-agent" title="First response per agent" category="Agent"
 *     series={['Median', 'p90']} format={durationText}
 *     data={ownerRows.filter((r) => r.first_response_minutes.median != null).map((r) => ({
 *       label: r.label, values: [r.first_response_minutes.median, r.first_response_minutes.p90] }))} />
 *
 * Put several charts in `<div class="charts">` (a grid: side by side where there is room).
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
