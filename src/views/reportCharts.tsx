import type { ReportSummary } from '../domain/reports/summary.js';
import { BarChart, firstResponseBuckets, HBarChart, Histogram } from './charts/index.js';

// SPEC D4: the reports page's charts (decisions 079, 083), drawn on the server from the same
// period as the table below them: created and resolved per week, how fast tickets got their
// first answer, and created and resolved per agent. Each chart carries its data as a table (its
// text alternative) whose counts link to the tickets, as the summary's do.

export interface ReportChartData {
  /** The period grouped by week. */
  weeks: ReportSummary;
  /** The period grouped by owner. */
  owners: ReportSummary;
  /** The first-response minutes of the period's answered new tickets. */
  firstResponses: number[];
}

export function ReportCharts({ data }: { data: ReportChartData }) {
  const pair = (s: ReportSummary) =>
    s.rows.map((r) => ({
      label: r.label,
      values: [r.created, r.resolved],
      links: [r.tickets_url, r.resolved_url],
    }));
  return (
    <div class="charts report-charts" id="report-charts">
      <BarChart
        id="chart-per-week"
        title="Created and resolved per week"
        category="Week"
        unit="tickets"
        series={['Created', 'Resolved']}
        data={pair(data.weeks).map((d) => ({ ...d, label: d.label.replace(/ \(from .*\)$/, '') }))}
        empty="No ticket was created or resolved in this period."
      />
      <Histogram
        id="chart-first-response"
        title="Time to first response"
        category="First response"
        unit="tickets"
        data={data.firstResponses.length === 0 ? [] : firstResponseBuckets(data.firstResponses)}
        empty="No ticket created in this period has had a first response."
      />
      <HBarChart
        id="chart-per-agent"
        title="Created and resolved per agent"
        category="Agent"
        unit="tickets"
        series={['Created', 'Resolved']}
        data={pair(data.owners)}
        empty="No ticket was created or resolved in this period."
      />
    </div>
  );
}
