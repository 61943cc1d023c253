import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { dashboards, dashboardWidgets, savedViews, teamMembers } from '../db/schema.js';
import { type Actor, isAdmin, nowIso, parseJson, requireStaff } from './actor.js';
import { forbidden, invalid, notFound } from './errors.js';
import { teamExists } from './teams.js';

export const WIDGET_KINDS = ['ticket_list', 'status_counts', 'queue_counts', 'team_workload', 'my_tickets'] as const;
export type WidgetKind = (typeof WIDGET_KINDS)[number];

export interface WidgetJson { id: number; dashboard_id: number; kind: WidgetKind; title: string; config: Record<string, unknown>; position: number; created_at: string; updated_at: string }
export interface DashboardJson { id: number; name: string; team_id: number | null; created_by: number | null; widgets: WidgetJson[]; created_at: string; updated_at: string }

type Row = typeof dashboards.$inferSelect;
type WidgetRow = typeof dashboardWidgets.$inferSelect;

const widgetJson = (w: WidgetRow): WidgetJson => ({
  id: w.id, dashboard_id: w.dashboard_id, kind: w.kind as WidgetKind, title: w.title, config: parseJson(w.config, {}), position: w.position,
  created_at: w.created_at, updated_at: w.updated_at,
});

function withWidgets(db: Db, rows: Row[]): DashboardJson[] {
  if (rows.length === 0) return [];
  const widgets = db.select().from(dashboardWidgets).where(inArray(dashboardWidgets.dashboard_id, rows.map((r) => r.id)))
    .orderBy(asc(dashboardWidgets.position), asc(dashboardWidgets.id)).all();
  return rows.map((r) => ({ ...r, widgets: widgets.filter((w) => w.dashboard_id === r.id).map(widgetJson) }));
}

/** SPEC A/B3: no team = everyone; a team = its members and administrators. In the query. */
function visibleTo(actor: Actor) {
  if (isAdmin(actor)) return undefined;
  return or(isNull(dashboards.team_id), inArray(dashboards.team_id,
    sql`(SELECT ${teamMembers.team_id} FROM ${teamMembers} WHERE ${teamMembers.user_id} = ${actor.id})`));
}

/** Anyone who can see a dashboard may read and arrange it. */
function visibleDashboard(db: Db, actor: Actor, id: number): Row {
  requireStaff(actor);
  const row = db.select().from(dashboards).where(and(eq(dashboards.id, id), visibleTo(actor))).get();
  if (!row) throw notFound('Dashboard', id);
  return row;
}

export function listDashboards(db: Db, actor: Actor): DashboardJson[] {
  requireStaff(actor);
  return withWidgets(db, db.select().from(dashboards).where(visibleTo(actor)).orderBy(asc(dashboards.name), asc(dashboards.id)).all());
}

export function getDashboard(db: Db, actor: Actor, id: number): DashboardJson {
  return withWidgets(db, [visibleDashboard(db, actor, id)])[0];
}

export interface WidgetInput { kind: WidgetKind; title?: string; config?: Record<string, unknown>; position?: number }
export interface DashboardInput { name: string; team_id?: number | null; widgets?: WidgetInput[] }

function checkTeamChoice(db: Db, actor: Actor, teamId: number | null | undefined) {
  if (teamId == null) return;
  if (!teamExists(db, teamId)) throw invalid('team_id', `Team ${teamId} does not exist`);
  const member = db.select().from(teamMembers).where(and(eq(teamMembers.team_id, teamId), eq(teamMembers.user_id, actor.id))).get();
  if (!isAdmin(actor) && !member) throw forbidden('You can only assign a dashboard to a team you belong to');
}

function checkWidget(db: Db, w: Partial<WidgetInput>, path: string) {
  if (w.kind === 'ticket_list') {
    const viewId = Number(w.config?.view_id);
    if (!Number.isInteger(viewId) || viewId <= 0) throw invalid(`${path}config.view_id`, 'A ticket_list widget needs the id of a saved view');
    if (!db.select({ id: savedViews.id }).from(savedViews).where(eq(savedViews.id, viewId)).get()) {
      throw invalid(`${path}config.view_id`, `Saved view ${viewId} does not exist`);
    }
  }
}

function insertWidget(db: Db, dashboardId: number, w: WidgetInput, fallbackPosition: number, now: string): WidgetRow {
  return db.insert(dashboardWidgets).values({
    dashboard_id: dashboardId, kind: w.kind, title: w.title ?? '', config: JSON.stringify(w.config ?? {}),
    position: w.position ?? fallbackPosition, created_at: now, updated_at: now,
  }).returning().get();
}

export function createDashboard(db: Db, actor: Actor, input: DashboardInput): DashboardJson {
  requireStaff(actor);
  checkTeamChoice(db, actor, input.team_id);
  (input.widgets ?? []).forEach((w, i) => checkWidget(db, w, `widgets.${i}.`));
  const now = nowIso();
  return db.transaction(() => {
    const row = db.insert(dashboards).values({ name: input.name, team_id: input.team_id ?? null, created_by: actor.id, created_at: now, updated_at: now }).returning().get();
    (input.widgets ?? []).forEach((w, i) => insertWidget(db, row.id, w, i, now));
    return withWidgets(db, [row])[0];
  });
}

export function updateDashboard(db: Db, actor: Actor, id: number, input: Partial<Omit<DashboardInput, 'widgets'>>): DashboardJson {
  visibleDashboard(db, actor, id);
  if (input.team_id !== undefined) checkTeamChoice(db, actor, input.team_id);
  const row = db.update(dashboards).set({ ...input, updated_at: nowIso() }).where(eq(dashboards.id, id)).returning().get();
  return withWidgets(db, [row])[0];
}

export function deleteDashboard(db: Db, actor: Actor, id: number): void {
  visibleDashboard(db, actor, id);
  db.delete(dashboards).where(eq(dashboards.id, id)).run();
}

export function addWidget(db: Db, actor: Actor, dashboardId: number, input: WidgetInput): WidgetJson {
  visibleDashboard(db, actor, dashboardId);
  checkWidget(db, input, '');
  const next = db.select({ n: sql<number>`coalesce(max(${dashboardWidgets.position}) + 1, 0)` }).from(dashboardWidgets)
    .where(eq(dashboardWidgets.dashboard_id, dashboardId)).get()!.n;
  return widgetJson(insertWidget(db, dashboardId, input, next, nowIso()));
}

function widgetOf(db: Db, dashboardId: number, widgetId: number): WidgetRow {
  const w = db.select().from(dashboardWidgets).where(eq(dashboardWidgets.id, widgetId)).get();
  if (!w || w.dashboard_id !== dashboardId) throw notFound('Widget', widgetId);
  return w;
}

export function updateWidget(db: Db, actor: Actor, dashboardId: number, widgetId: number, input: Partial<WidgetInput>): WidgetJson {
  visibleDashboard(db, actor, dashboardId);
  const current = widgetOf(db, dashboardId, widgetId);
  checkWidget(db, { kind: input.kind ?? (current.kind as WidgetKind), config: input.config ?? parseJson(current.config, {}) }, '');
  const set: Partial<WidgetRow> = { updated_at: nowIso() };
  if (input.kind !== undefined) set.kind = input.kind;
  if (input.title !== undefined) set.title = input.title;
  if (input.config !== undefined) set.config = JSON.stringify(input.config);
  if (input.position !== undefined) set.position = input.position;
  return widgetJson(db.update(dashboardWidgets).set(set).where(eq(dashboardWidgets.id, widgetId)).returning().get());
}

export function deleteWidget(db: Db, actor: Actor, dashboardId: number, widgetId: number): void {
  visibleDashboard(db, actor, dashboardId);
  widgetOf(db, dashboardId, widgetId);
  db.delete(dashboardWidgets).where(eq(dashboardWidgets.id, widgetId)).run();
}
