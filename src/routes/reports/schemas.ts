import { z } from 'zod';

// SPEC D4 report answers (decision 079), as the API document says them.

const spread = z.strictObject({ median: z.number().int().nullable(), p90: z.number().int().nullable() });

export const ReportFiguresSchema = z.strictObject({
  created: z.number().int(),
  resolved: z.number().int(),
  reopened: z.number().int(),
  unanswered: z.number().int(),
  first_response_minutes: spread,
  resolution_minutes: spread,
  first_response_business_minutes: spread.describe(
    'first_response_minutes in business minutes of the SLA policy’s calendar, over the tickets a policy applies to',
  ),
  resolution_business_minutes: spread.describe(
    'resolution_minutes in business minutes of the SLA policy’s calendar, over the tickets a policy applies to',
  ),
  sla_met_percent: z.strictObject({ first_response: z.number().nullable(), resolution: z.number().nullable() }),
  time_worked_minutes: z.number().int(),
  csat: z.strictObject({ count: z.number().int(), good_percent: z.number().nullable() }),
  tickets_url: z.string().describe('GET /tickets listing exactly the tickets counted in `created`'),
  resolved_url: z.string().describe('GET /tickets listing exactly the tickets counted in `resolved`'),
});

export const ReportSummarySchema = z.strictObject({
  from: z.string(),
  to: z.string(),
  zone: z.string(),
  group_by: z.string(),
  rows: z.array(ReportFiguresSchema.extend({ key: z.union([z.string(), z.number(), z.null()]), label: z.string() })),
  totals: ReportFiguresSchema,
});
