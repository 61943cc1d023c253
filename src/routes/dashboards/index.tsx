import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { addWidget, createDashboard, dashboardWithData, widgetWithData, deleteDashboard, deleteWidget, listDashboards, updateDashboard, updateWidget, WIDGET_KINDS } from '../../domain/dashboards.js';
import { lookups } from '../../domain/lookups.js';
import { zInt, zJsonObject, zNullableId, zText } from '../../domain/validation.js';
import { DashboardList, DashboardLive, DashboardPage, WidgetBody } from '../../views/dashboards.js';
import type { AppEnv } from '../context.js';
import { actorOf, dbOf, isHtmx, noContent, pathId, readBody, respond } from '../respond.js';

const WidgetSchema = z.strictObject({
  kind: z.enum(WIDGET_KINDS, { error: `Expected one of: ${WIDGET_KINDS.join(', ')}` }),
  title: zText(200).optional(),
  config: zJsonObject.optional(),
  position: zInt(0, 10_000).optional(),
});
const CreateSchema = z.strictObject({ name: zText(200, 1), team_id: zNullableId.optional(), widgets: z.array(WidgetSchema).max(50).optional() });
const UpdateSchema = CreateSchema.omit({ widgets: true }).partial();

/** The dashboard with its widgets' contents, as the page shows it (HTML only). */
const page = (c: Context<AppEnv>, id: number) => async () => <DashboardPage d={await dashboardWithData(dbOf(c), actorOf(c), id)} lookups={await lookups(dbOf(c), actorOf(c))} />;

export function dashboardRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const dashboards = await listDashboards(dbOf(c), actorOf(c));
    return respond(c, { dashboards }, { title: 'Dashboards', view: async () => <DashboardList dashboards={dashboards} lookups={await lookups(dbOf(c), actorOf(c))} /> });
  });
  app.post('/', async (c) => {
    const d = await createDashboard(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
    return respond(c, d, { status: 201, title: d.name, location: `/dashboards/${d.id}?saved`, view: page(c, d.id) });
  });
  app.get('/:id', async (c) => {
    const d = await dashboardWithData(dbOf(c), actorOf(c), pathId(c));
    return respond(c, d, { title: d.name, view: async () => {
      const content = <DashboardPage d={d} lookups={await lookups(dbOf(c), actorOf(c))} />;
      return isHtmx(c) ? content : <DashboardLive>{content}</DashboardLive>;
    } });
  });
  // SPEC C5: one widget's contents, as the dashboard shows them (each widget loads its own while tickets change).
  app.get('/:id/widgets/:widgetId', async (c) => {
    const { widget, data } = await widgetWithData(dbOf(c), actorOf(c), pathId(c), pathId(c, 'widgetId'));
    return respond(c, { ...widget, data }, { title: 'Widget', view: async () => <WidgetBody data={data} l={await lookups(dbOf(c), actorOf(c))} /> });
  });
  app.patch('/:id', async (c) => {
    const id = pathId(c);
    return respond(c, updateDashboard(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), { title: 'Dashboard', location: `/dashboards/${id}?saved`, view: page(c, id) });
  });
  app.delete('/:id', async (c) => {
    await deleteDashboard(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/dashboards');
  });
  app.post('/:id/widgets', async (c) => {
    const id = pathId(c);
    return respond(c, addWidget(dbOf(c), actorOf(c), id, await readBody(c, WidgetSchema)), { status: 201, title: 'Widget', location: `/dashboards/${id}?saved`, view: page(c, id) });
  });
  app.patch('/:id/widgets/:widgetId', async (c) => {
    const id = pathId(c);
    const widgetId = pathId(c, 'widgetId');
    return respond(c, updateWidget(dbOf(c), actorOf(c), id, widgetId, await readBody(c, WidgetSchema.partial())), { title: 'Widget', location: `/dashboards/${id}?saved`, view: page(c, id) });
  });
  app.delete('/:id/widgets/:widgetId', async (c) => {
    const id = pathId(c);
    await deleteWidget(dbOf(c), actorOf(c), id, pathId(c, 'widgetId'));
    return noContent(c, `/dashboards/${id}`);
  });
  return app;
}
