import { z } from 'zod';
import { ReportSummarySchema } from '../reports/schemas.js';
import { WIDGET_KINDS } from '../../domain/dashboards.js';
import { zInt, zJsonObject, zNullableId, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';
import { TicketSchema } from '../tickets/schemas.js';

export const WidgetInputSchema = z.strictObject({
  kind: z.enum(WIDGET_KINDS, { error: `Expected one of: ${WIDGET_KINDS.join(', ')}` }),
  title: zText(200).optional(),
  config: zJsonObject.optional(),
  position: zInt(0, 10_000).optional(),
});
export const UpdateWidgetSchema = WidgetInputSchema.partial();
export const CreateDashboardSchema = z.strictObject({
  name: zText(200, 1),
  team_id: zNullableId.optional(),
  widgets: z.array(WidgetInputSchema).max(50).optional(),
});
export const UpdateDashboardSchema = CreateDashboardSchema.omit({ widgets: true }).partial();

export const WidgetSchema = z
  .strictObject({
    id: zRowId,
    dashboard_id: zRowId,
    kind: z.enum(WIDGET_KINDS),
    title: z.string(),
    config: z.record(z.string(), z.unknown()),
    position: z.number().int(),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'Widget' });
export const DashboardSchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    team_id: zRowId.nullable().describe('null: visible to everyone'),
    created_by: zRowId.nullable(),
    widgets: z.array(WidgetSchema),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'Dashboard' });

const count = z.number().int().min(0);
/** What one widget shows, by its kind (or why it cannot show it). */
export const WidgetDataSchema = z
  .union([
    z.strictObject({
      kind: z.literal('ticket_list'),
      view_id: zRowId,
      view_name: z.string(),
      tickets: z.array(TicketSchema),
      total: count,
      total_exact: z.boolean().describe('false: at least `total` (decision 085)'),
    }),
    z.strictObject({
      kind: z.literal('status_counts'),
      counts: z.array(z.strictObject({ status: z.string(), count })),
    }),
    z.strictObject({
      kind: z.literal('queue_counts'),
      counts: z.array(z.strictObject({ queue_id: zRowId, name: z.string(), count })),
    }),
    z.strictObject({
      kind: z.literal('team_workload'),
      team_id: zRowId.nullable(),
      rows: z.array(z.strictObject({ user_id: zRowId, name: z.string(), count })),
    }),
    z.strictObject({
      kind: z.literal('my_tickets'),
      tickets: z.array(TicketSchema),
      total: count,
      total_exact: z.boolean().describe('false: at least `total` (decision 085)'),
    }),
    z.strictObject({ kind: z.literal('report'), report: ReportSummarySchema }),
    z.strictObject({ kind: z.string(), error: z.string() }),
  ])
  .meta({ id: 'WidgetData' });
export const WidgetWithDataSchema = WidgetSchema.extend({ data: WidgetDataSchema }).meta({ id: 'WidgetWithData' });
export const DashboardWithDataSchema = DashboardSchema.extend({ widgets: z.array(WidgetWithDataSchema) }).meta({
  id: 'DashboardWithData',
});
