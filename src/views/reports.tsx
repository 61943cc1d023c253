import type { Lookups } from '../domain/lookups.js';
import type { GroupBy, ReportFigures, ReportSummary } from '../domain/reports/summary.js';
import { Wide } from './admin/common.js';
import { type ReportChartData, ReportCharts } from './reportCharts.js';

// SPEC D4 reports page (decision 079): the filters (a GET form: every report is a link), the
// summary as a table whose counts link to exactly the tickets they count, and the slot where the
// charts (src/views/charts, built beside this) sit above the data tables they draw.

const GROUP_LABEL: Record<GroupBy, string> = {
  queue: 'Queue',
  team: 'Team',
  owner: 'Owner',
  tag: 'Tag',
  week: 'Week',
  day: 'Day',
};

/** Minutes as people read them: 45 min, 3 h 5 min, 2 d 4 h. */
export function duration(m: number | null): string {
  if (m === null) return '–';
  const sign = m < 0 ? '−' : '';
  const a = Math.abs(m);
  if (a < 60) return `${sign}${a} min`;
  if (a < 1440) return `${sign}${Math.floor(a / 60)} h${a % 60 ? ` ${a % 60} min` : ''}`;
  const h = Math.floor((a % 1440) / 60);
  return `${sign}${Math.floor(a / 1440)} d${h ? ` ${h} h` : ''}`;
}
const pct = (v: number | null) => (v === null ? '–' : `${v} %`);

/** The summary table: one row per group and the totals, each count a link to its tickets. */
export function SummaryTable({ report, caption }: { report: ReportSummary; caption: string }) {
  // Business-hours columns only when an SLA policy applies to something counted (docs/metrics.md).
  const business =
    report.totals.first_response_business_minutes.median !== null ||
    report.totals.resolution_business_minutes.median !== null;
  const cells = (f: ReportFigures) => (
    <>
      <td class="num">
        <a href={f.tickets_url}>{f.created}</a>
      </td>
      <td class="num">
        <a href={f.resolved_url}>{f.resolved}</a>
      </td>
      <td class="num">{f.reopened}</td>
      <td class="num">{f.unanswered}</td>
      <td class="num">{duration(f.first_response_minutes.median)}</td>
      <td class="num">{duration(f.first_response_minutes.p90)}</td>
      <td class="num">{duration(f.resolution_minutes.median)}</td>
      <td class="num">{duration(f.resolution_minutes.p90)}</td>
      {business && (
        <>
          <td class="num">{duration(f.first_response_business_minutes.median)}</td>
          <td class="num">{duration(f.resolution_business_minutes.median)}</td>
        </>
      )}
      <td class="num">{pct(f.sla_met_percent.first_response)}</td>
      <td class="num">{pct(f.sla_met_percent.resolution)}</td>
      <td class="num">{duration(f.time_worked_minutes)}</td>
      <td class="num">{f.csat.count === 0 ? '–' : `${pct(f.csat.good_percent)} of ${f.csat.count}`}</td>
    </>
  );
  return (
    <Wide label={caption}>
      <table class="report-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{GROUP_LABEL[report.group_by]}</th>
            <th scope="col">Created</th>
            <th scope="col">Resolved</th>
            <th scope="col">Reopened</th>
            <th scope="col">Unanswered</th>
            <th scope="col">First response, median</th>
            <th scope="col">First response, 90th percentile</th>
            <th scope="col">Resolution, median</th>
            <th scope="col">Resolution, 90th percentile</th>
            {business && (
              <>
                <th scope="col">First response in business hours, median</th>
                <th scope="col">Resolution in business hours, median</th>
              </>
            )}
            <th scope="col">First response SLA met</th>
            <th scope="col">Resolution SLA met</th>
            <th scope="col">Time worked</th>
            <th scope="col">Rated good</th>
          </tr>
        </thead>
        <tbody>
          {report.rows.map((r) => (
            <tr>
              <th scope="row">{r.label}</th>
              {cells(r)}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            {cells(report.totals)}
          </tr>
        </tfoot>
      </table>
    </Wide>
  );
}

/** The report's own fields: the rest of its query string rides along as hidden fields. */
const OWN = new Set(['from', 'to', 'group_by', 'queue_id']);

export function ReportPage({
  report,
  charts,
  params,
  lookups: l,
}: {
  report: ReportSummary;
  /** The same period drawn (src/views/reportCharts.tsx). */
  charts: ReportChartData;
  /** The query as checked (flat), for the form to keep the filters it does not show. */
  params: Record<string, string>;
  lookups: Lookups;
}) {
  const { group_by: _g, ...rest } = params;
  const csv = `/reports/tickets.csv?${new URLSearchParams({ ...rest, from: report.from, to: report.to })}`;
  return (
    <section class="reports">
      <h1>Reports</h1>
      <form class="filters report-filters" method="get" action="/reports">
        <label>
          From <input type="date" name="from" value={report.from} required />
        </label>
        <label>
          To (not included) <input type="date" name="to" value={report.to} required />
        </label>
        <label>
          Group by{' '}
          <select name="group_by">
            {(Object.keys(GROUP_LABEL) as GroupBy[]).map((g) => (
              <option value={g} selected={g === report.group_by}>
                {GROUP_LABEL[g]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Queue{' '}
          <select name="queue_id">
            <option value="">Any queue</option>
            {l.queues.map((q) => (
              <option value={String(q.id)} selected={params.queue_id === String(q.id)}>
                {q.name}
              </option>
            ))}
          </select>
        </label>
        {Object.entries(params)
          .filter(([k]) => !OWN.has(k))
          .map(([k, v]) => (
            <input type="hidden" name={k} value={v} />
          ))}
        <button type="submit">Show</button>
      </form>
      <p class="muted">
        Times in {report.zone}; every figure is defined in the metrics guide (docs/metrics.md).{' '}
        <a href={csv} download>
          Download the tickets as CSV
        </a>
      </p>
      <ReportCharts data={charts} />
      {report.rows.length === 0 ? (
        <p>Nothing happened in this period.</p>
      ) : (
        <SummaryTable
          report={report}
          caption={`By ${GROUP_LABEL[report.group_by].toLowerCase()}, ${report.from} to ${report.to}`}
        />
      )}
    </section>
  );
}
