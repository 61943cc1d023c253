import { and, asc, count, eq } from 'drizzle-orm';
import { type Db, first } from '../db/port.js';
import { queues, savedViews, teamMembers, tickets, users } from '../db/tables.js';
import type { Actor } from './actor.js';
import { type DashboardJson, getDashboard, type WidgetJson } from './dashboards.js';
import { AppError, notFound } from './errors.js';
import type { Category } from './lifecycles/categories.js';
import { notDoneCondition } from './lifecycles/listStatus.js';
import { MERGED_STATUS } from './merge/guard.js';
import type { ReportSummary } from './reports/summary.js';
import { reportWidgetData } from './reports/widget.js';
import { listByFilter, listTickets } from './tickets/list.js';
import type { TicketJson } from './tickets/serialize.js';
import { staffTickets } from './tickets/serialize.js';
import { sortRanks } from './tickets/sorts.js';

// SPEC C5 dashboards: what each widget shows, computed for its reader (the dashboards and their
// widgets themselves: dashboards.ts).

export type WidgetData =
  | {
      kind: 'ticket_list';
      view_id: number;
      view_name: string;
      tickets: TicketJson[];
      total: number;
      total_exact: boolean;
    }
  | { kind: 'status_counts'; counts: { status: string; count: number }[] }
  | { kind: 'queue_counts'; counts: { queue_id: number; name: string; count: number }[] }
  | { kind: 'team_workload'; team_id: number | null; rows: { user_id: number; name: string; count: number }[] }
  | { kind: 'my_tickets'; tickets: TicketJson[]; total: number; total_exact: boolean }
  | { kind: 'report'; report: ReportSummary }
  | { kind: string; error: string };

/** SPEC D3: not done, whatever the lifecycle calls it (counted by category, never by name). */
const NOT_DONE: Category[] = ['initial', 'active', 'waiting'];

/** What one widget shows, computed for the actor (requesters never reach dashboards). */
export async function widgetData(db: Db, actor: Actor, d: DashboardJson, w: WidgetJson): Promise<WidgetData> {
  const limit = Math.min(50, Math.max(1, Number(w.config.limit) || 10));
  switch (w.kind) {
    case 'ticket_list': {
      const viewId = Number(w.config.view_id);
      const view = await first(db.select({ name: savedViews.name }).from(savedViews).where(eq(savedViews.id, viewId)));
      if (!view) return { kind: w.kind, error: `Saved view ${viewId} no longer exists` };
      let list;
      try {
        list = await listTickets(db, actor, { view_id: viewId, limit });
      } catch (e) {
        // A view's filters can become unusable (a search too broad for the text stored now): that widget says so.
        if (e instanceof AppError && e.code === 'validation_failed')
          return { kind: w.kind, error: `The view "${view.name}" cannot be shown: ${e.message}` };
        throw e;
      }
      return {
        kind: w.kind,
        view_id: viewId,
        view_name: view.name,
        tickets: staffTickets(actor, list.tickets),
        total: list.total,
        total_exact: list.total_exact,
      };
    }
    case 'status_counts': {
      // By category, then each lifecycle's order (RT's default: new, open, stalled, resolved, rejected, deleted).
      const order = await statusRanks(db);
      const rank = (s: string) => order.get(s) ?? order.size;
      return {
        kind: w.kind,
        counts: (await db.select({ status: tickets.status, count: count() }).from(tickets).groupBy(tickets.status))
          // SPEC D3: merged tickets (tombstones) are counted nowhere.
          .filter((r) => r.status !== MERGED_STATUS)
          .sort((a, b) => rank(a.status) - rank(b.status)),
      };
    }
    case 'queue_counts': {
      const active = await notDoneCondition(db);
      return {
        kind: w.kind,
        counts: await db
          .select({ queue_id: queues.id, name: queues.name, count: count(tickets.id) })
          .from(queues)
          .leftJoin(tickets, and(eq(tickets.queue_id, queues.id), active))
          .groupBy(queues.id)
          .orderBy(asc(queues.name)),
      };
    }
    case 'team_workload': {
      const teamId = Number(w.config.team_id) || d.team_id;
      if (!teamId) return { kind: w.kind, error: 'Choose a team (config.team_id) or give the dashboard one' };
      const active = await notDoneCondition(db);
      const rows = await db
        .select({ user_id: users.id, name: users.name, count: count(tickets.id) })
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.user_id))
        .leftJoin(tickets, and(eq(tickets.owner_id, users.id), active))
        .where(eq(teamMembers.team_id, teamId))
        .groupBy(users.id)
        .orderBy(asc(users.name));
      return { kind: w.kind, team_id: teamId, rows };
    }
    case 'my_tickets': {
      const list = await listByFilter(db, actor, { owner_id: actor.id, status_category: NOT_DONE, limit });
      return {
        kind: w.kind,
        tickets: staffTickets(actor, list.tickets),
        total: list.total,
        total_exact: list.total_exact,
      };
    }
    case 'report':
      return await reportWidgetData(db, actor, w.config);
    default:
      return { kind: w.kind, error: `Unknown widget kind ${w.kind}` };
  }
}

async function statusRanks(db: Db): Promise<Map<string, number>> {
  const order = (await sortRanks(db, 'status'))?.values ?? [];
  return new Map(order.map((s, i) => [String(s), i]));
}

/** A dashboard with every widget's contents. */
export async function dashboardWithData(
  db: Db,
  actor: Actor,
  id: number,
): Promise<Omit<DashboardJson, 'widgets'> & { widgets: (WidgetJson & { data: WidgetData })[] }> {
  const d = await getDashboard(db, actor, id);
  const widgets = [];
  for (const w of d.widgets) widgets.push({ ...w, data: await widgetData(db, actor, d, w) });
  return { ...d, widgets };
}

/** One widget of a dashboard the actor may see, with its contents (SPEC C5: a widget loads its own again). */
export async function widgetWithData(
  db: Db,
  actor: Actor,
  dashboardId: number,
  widgetId: number,
): Promise<{ widget: WidgetJson; data: WidgetData }> {
  const d = await getDashboard(db, actor, dashboardId);
  const widget = d.widgets.find((w) => w.id === widgetId);
  if (!widget) throw notFound('Widget', widgetId);
  return { widget, data: await widgetData(db, actor, d, widget) };
}
