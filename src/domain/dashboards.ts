import { checkReportConfig } from './reports/widget.js';
import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { type Db, first, transaction, one } from '../db/port.js';
import { dashboards, dashboardWidgets, savedViews, teamMembers } from '../db/tables.js';
import { type Actor, isAdmin, parseJson, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { forbidden, invalid, notFound } from './errors.js';
import { teamExists } from './teams.js';

export const WIDGET_KINDS = [
  'ticket_list',
  'status_counts',
  'queue_counts',
  'team_workload',
  'my_tickets',
  'report',
] as const;
export type WidgetKind = (typeof WIDGET_KINDS)[number];

export interface WidgetJson {
  id: number;
  dashboard_id: number;
  kind: WidgetKind;
  title: string;
  config: Record<string, unknown>;
  position: number;
  created_at: string;
  updated_at: string;
}
export interface DashboardJson {
  id: number;
  name: string;
  team_id: number | null;
  created_by: number | null;
  widgets: WidgetJson[];
  created_at: string;
  updated_at: string;
}

type Row = typeof dashboards.$inferSelect;
type WidgetRow = typeof dashboardWidgets.$inferSelect;

const widgetJson = (w: WidgetRow): WidgetJson => ({
  id: w.id,
  dashboard_id: w.dashboard_id,
  kind: w.kind as WidgetKind,
  title: w.title,
  config: parseJson(w.config, {}),
  position: w.position,
  created_at: w.created_at,
  updated_at: w.updated_at,
});

async function withWidgets(db: Db, rows: Row[]): Promise<DashboardJson[]> {
  if (rows.length === 0) return [];
  const widgets = await db
    .select()
    .from(dashboardWidgets)
    .where(
      inArray(
        dashboardWidgets.dashboard_id,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(dashboardWidgets.position), asc(dashboardWidgets.id));
  return rows.map((r) => ({ ...r, widgets: widgets.filter((w) => w.dashboard_id === r.id).map(widgetJson) }));
}

/** SPEC A/B3: no team = everyone; a team = its members and administrators. In the query. */
function visibleTo(actor: Actor) {
  if (isAdmin(actor)) return undefined;
  return or(
    isNull(dashboards.team_id),
    inArray(
      dashboards.team_id,
      sql`(SELECT ${teamMembers.team_id} FROM ${teamMembers} WHERE ${teamMembers.user_id} = ${actor.id})`,
    ),
  );
}

/** Anyone who can see a dashboard may read and arrange it. */
async function visibleDashboard(db: Db, actor: Actor, id: number): Promise<Row> {
  requireStaff(actor);
  const row = await first(
    db
      .select()
      .from(dashboards)
      .where(and(eq(dashboards.id, id), visibleTo(actor))),
  );
  if (!row) throw notFound('Dashboard', id);
  return row;
}

export async function listDashboards(db: Db, actor: Actor): Promise<DashboardJson[]> {
  requireStaff(actor);
  return withWidgets(
    db,
    await db.select().from(dashboards).where(visibleTo(actor)).orderBy(asc(dashboards.name), asc(dashboards.id)),
  );
}

export async function getDashboard(db: Db, actor: Actor, id: number): Promise<DashboardJson> {
  return (await withWidgets(db, [await visibleDashboard(db, actor, id)]))[0];
}

export interface WidgetInput {
  kind: WidgetKind;
  title?: string;
  config?: Record<string, unknown>;
  position?: number;
}
export interface DashboardInput {
  name: string;
  team_id?: number | null;
  widgets?: WidgetInput[];
}

async function checkTeamChoice(db: Db, actor: Actor, teamId: number | null | undefined) {
  if (teamId == null) return;
  if (!(await teamExists(db, teamId))) throw invalid('team_id', `Team ${teamId} does not exist`);
  const member = await first(
    db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.team_id, teamId), eq(teamMembers.user_id, actor.id))),
  );
  if (!isAdmin(actor) && !member) throw forbidden('You can only assign a dashboard to a team you belong to');
}

async function checkWidget(db: Db, w: Partial<WidgetInput>, path: string) {
  if (w.kind === 'report') checkReportConfig(w.config, path);
  if (w.kind === 'ticket_list') {
    const viewId = Number(w.config?.view_id);
    if (!Number.isInteger(viewId) || viewId <= 0)
      throw invalid(`${path}config.view_id`, 'A ticket_list widget needs the id of a saved view');
    if (!(await first(db.select({ id: savedViews.id }).from(savedViews).where(eq(savedViews.id, viewId))))) {
      throw invalid(`${path}config.view_id`, `Saved view ${viewId} does not exist`);
    }
  }
}

/** Settings a form left empty (`view_id: ""` on a kind that has no view) are not stored. */
const compact = (config: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(config).filter(([, v]) => v !== '' && v !== null));

async function insertWidget(
  db: Db,
  dashboardId: number,
  w: WidgetInput,
  fallbackPosition: number,
  now: string,
): Promise<WidgetRow> {
  return await transaction(db, (tx) =>
    one(
      tx
        .insert(dashboardWidgets)
        .values({
          dashboard_id: dashboardId,
          kind: w.kind,
          title: w.title ?? '',
          config: JSON.stringify(compact(w.config ?? {})),
          position: w.position ?? fallbackPosition,
          created_at: now,
          updated_at: now,
        })
        .returning(),
    ),
  );
}

export async function createDashboard(db: Db, actor: Actor, input: DashboardInput): Promise<DashboardJson> {
  requireStaff(actor);
  await checkTeamChoice(db, actor, input.team_id);
  for (const [i, w] of (input.widgets ?? []).entries()) await checkWidget(db, w, `widgets.${i}.`);
  const now = nowIso(db);
  return transaction(db, async (tx) => {
    const row = await one(
      tx
        .insert(dashboards)
        .values({
          name: input.name,
          team_id: input.team_id ?? null,
          created_by: actor.id,
          created_at: now,
          updated_at: now,
        })
        .returning(),
    );
    for (const [i, w] of (input.widgets ?? []).entries()) await insertWidget(tx, row.id, w, i, now);
    return (await withWidgets(tx, [row]))[0];
  });
}

export async function updateDashboard(
  db: Db,
  actor: Actor,
  id: number,
  input: Partial<Omit<DashboardInput, 'widgets'>>,
): Promise<DashboardJson> {
  await visibleDashboard(db, actor, id);
  if (input.team_id !== undefined) await checkTeamChoice(db, actor, input.team_id);
  const row = await transaction(db, (tx) =>
    one(
      tx
        .update(dashboards)
        .set({ ...input, updated_at: nowIso(db) })
        .where(eq(dashboards.id, id))
        .returning(),
    ),
  );
  return (await withWidgets(db, [row]))[0];
}

export async function deleteDashboard(db: Db, actor: Actor, id: number): Promise<void> {
  await visibleDashboard(db, actor, id);
  await transaction(db, async (tx) => {
    await tx.delete(dashboards).where(eq(dashboards.id, id));
  });
}

export async function addWidget(db: Db, actor: Actor, dashboardId: number, input: WidgetInput): Promise<WidgetJson> {
  await visibleDashboard(db, actor, dashboardId);
  await checkWidget(db, input, '');
  const next = (await first(
    db
      .select({ n: sql<number>`coalesce(max(${dashboardWidgets.position}) + 1, 0)` })
      .from(dashboardWidgets)
      .where(eq(dashboardWidgets.dashboard_id, dashboardId)),
  ))!.n;
  return widgetJson(await transaction(db, (tx) => insertWidget(tx, dashboardId, input, next, nowIso(db))));
}

async function widgetOf(db: Db, dashboardId: number, widgetId: number): Promise<WidgetRow> {
  const w = await first(db.select().from(dashboardWidgets).where(eq(dashboardWidgets.id, widgetId)));
  if (!w || w.dashboard_id !== dashboardId) throw notFound('Widget', widgetId);
  return w;
}

export async function updateWidget(
  db: Db,
  actor: Actor,
  dashboardId: number,
  widgetId: number,
  input: Partial<WidgetInput>,
): Promise<WidgetJson> {
  await visibleDashboard(db, actor, dashboardId);
  const current = await widgetOf(db, dashboardId, widgetId);
  await checkWidget(
    db,
    { kind: input.kind ?? (current.kind as WidgetKind), config: input.config ?? parseJson(current.config, {}) },
    '',
  );
  const set: Partial<WidgetRow> = { updated_at: nowIso(db) };
  if (input.kind !== undefined) set.kind = input.kind;
  if (input.title !== undefined) set.title = input.title;
  if (input.config !== undefined) set.config = JSON.stringify(compact(input.config));
  return transaction(db, async (tx) => {
    // Two moves on one dashboard take turns (its row locked by a write first, decision 058): each
    // reads the order the other left, and neither renumbers over the other.
    if (input.position !== undefined)
      await tx.update(dashboards).set({ updated_at: set.updated_at }).where(eq(dashboards.id, dashboardId));
    const row = await one(tx.update(dashboardWidgets).set(set).where(eq(dashboardWidgets.id, widgetId)).returning());
    if (input.position === undefined) return widgetJson(row);
    // `position` is the widget's place in the dashboard's order: the others close ranks around it.
    const others = (
      await tx
        .select({ id: dashboardWidgets.id })
        .from(dashboardWidgets)
        .where(eq(dashboardWidgets.dashboard_id, dashboardId))
        .orderBy(asc(dashboardWidgets.position), asc(dashboardWidgets.id))
    ).filter((w) => w.id !== widgetId);
    others.splice(Math.min(input.position, others.length), 0, { id: widgetId });
    for (const [i, w] of others.entries())
      await tx.update(dashboardWidgets).set({ position: i }).where(eq(dashboardWidgets.id, w.id));
    return widgetJson((await first(tx.select().from(dashboardWidgets).where(eq(dashboardWidgets.id, widgetId))))!);
  });
}

export async function deleteWidget(db: Db, actor: Actor, dashboardId: number, widgetId: number): Promise<void> {
  await visibleDashboard(db, actor, dashboardId);
  await widgetOf(db, dashboardId, widgetId);
  await transaction(db, (tx) => tx.delete(dashboardWidgets).where(eq(dashboardWidgets.id, widgetId)));
}
