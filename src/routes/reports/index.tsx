import { type Context, Hono } from 'hono';
import { ticketsCsv } from '../../domain/reports/csv.js';
import {
  firstResponseMinutes,
  GROUP_BY,
  ReportQuerySchema,
  reportContext,
  summarize,
} from '../../domain/reports/summary.js';
import { flatFilterParams, nestFilterParams } from '../../domain/tickets/query.js';
import { ReportPage } from '../../views/reports.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, dbOf, queryObject, respond, validate } from '../respond.js';
import { ReportSummarySchema } from './schemas.js';

// SPEC D4 reports (decision 079; the definitions: docs/metrics.md): the summary (JSON, and the
// /reports page drawing it), and the per-ticket CSV. Staff only (the domain says 403).

const doc = documented('Reports');

export function reportRoutes() {
  const app = new Hono<AppEnv>();
  const summary = doc({
    summary: 'Summary report (staff)',
    description: `Counts and times of a period [from, to) (dates in your time zone; default the last 30 days) per \`group_by\` (${GROUP_BY.join(', ')}), with any GET /tickets filter. Every field is defined in docs/metrics.md.`,
    query: ReportQuerySchema,
    ok: { 200: ReportSummarySchema },
    errors: [403, 422],
  });
  const readQuery = (c: Context<AppEnv>) => validate(ReportQuerySchema, nestFilterParams(queryObject(c)));

  const page = async (c: Context<AppEnv>) => {
    const query = readQuery(c);
    const by = query.group_by ?? 'queue';
    // Read once; the page groups it three ways (its table, and per week and per owner for its charts).
    const ctx = await reportContext(dbOf(c), actorOf(c), query, { tags: by === 'tag' });
    const report = summarize(ctx, by);
    return respond(c, report, {
      title: 'Reports',
      view: async () => (
        <ReportPage
          report={report}
          charts={{
            weeks: by === 'week' ? report : summarize(ctx, 'week'),
            owners: by === 'owner' ? report : summarize(ctx, 'owner'),
            firstResponses: firstResponseMinutes(ctx),
          }}
          params={flatFilterParams(query)}
          lookups={ctx.names}
        />
      ),
    });
  };
  app.get('/summary', summary, page);
  app.get(
    '/',
    doc({
      summary: 'The reports page (staff)',
      description:
        'The summary as a page: its filters are the query string, so every report is a link. JSON: the summary.',
      query: ReportQuerySchema,
      ok: { 200: ReportSummarySchema },
      errors: [403, 422],
    }),
    page,
  );
  app.get(
    '/tickets.csv',
    doc({
      summary: 'Per-ticket CSV (staff)',
      description:
        "One row per ticket created in the period, the summary’s facts (docs/metrics.md); RFC 4180, streamed; a text cell starting with =, +, -, @, a tab or a carriage return starts with '.",
      query: ReportQuerySchema,
      ok: { 200: { media: 'text/csv', description: 'The tickets, a header line first' } },
      errors: [403, 422],
    }),
    async (c) => {
      const lines = await ticketsCsv(dbOf(c), actorOf(c), readQuery(c));
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        async pull(ctl) {
          const next = await lines.next();
          if (next.done) ctl.close();
          else ctl.enqueue(encoder.encode(next.value));
        },
        async cancel() {
          await lines.return(undefined);
        },
      });
      return c.body(stream, 200, {
        'content-type': 'text/csv; charset=utf-8; header=present',
        'content-disposition': 'attachment; filename="tickets.csv"',
      });
    },
  );
  return app;
}
