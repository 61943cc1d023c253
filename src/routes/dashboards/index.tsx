import { Hono, type Context } from 'hono';
import { z } from 'zod';
import {
  addWidget,
  createDashboard,
  deleteDashboard,
  deleteWidget,
  listDashboards,
  updateDashboard,
  updateWidget,
} from '../../domain/dashboards.js';
import { dashboardWithData, widgetWithData } from '../../domain/dashboardData.js';
import { lookups } from '../../domain/lookups.js';
import { DashboardList, DashboardLive, DashboardPage, WidgetBody } from '../../views/dashboards.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import {
  CreateDashboardSchema as CreateSchema,
  DashboardSchema,
  DashboardWithDataSchema,
  UpdateDashboardSchema as UpdateSchema,
  UpdateWidgetSchema,
  WidgetInputSchema as WidgetSchema,
  WidgetSchema as WidgetJsonSchema,
  WidgetWithDataSchema,
} from './schemas.js';
import { actorOf, dbOf, isHtmx, noContent, pathId, readBody, respond } from '../respond.js';

const doc = documented('Dashboards');

/** The dashboard with its widgets' contents, as the page shows it (HTML only). */
const page = (c: Context<AppEnv>, id: number) => async () => (
  <DashboardPage d={await dashboardWithData(dbOf(c), actorOf(c), id)} lookups={await lookups(dbOf(c), actorOf(c))} />
);

export function dashboardRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'List dashboards',
      description: 'Those without a team, and those of your teams (admins: all).',
      ok: { 200: z.strictObject({ dashboards: z.array(DashboardSchema) }) },
      errors: [403],
    }),
    async (c) => {
      const dashboards = await listDashboards(dbOf(c), actorOf(c));
      return respond(
        c,
        { dashboards },
        {
          title: 'Dashboards',
          view: async () => <DashboardList dashboards={dashboards} lookups={await lookups(dbOf(c), actorOf(c))} />,
        },
      );
    },
  );
  app.post('/', doc({ summary: 'Create a dashboard', body: CreateSchema, ok: { 201: DashboardSchema } }), async (c) => {
    const d = await createDashboard(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
    return respond(c, d, { status: 201, title: d.name, location: `/dashboards/${d.id}?saved`, view: page(c, d.id) });
  });
  app.get(
    '/:id',
    doc({ summary: 'A dashboard with what its widgets show', ok: { 200: DashboardWithDataSchema }, errors: [403] }),
    async (c) => {
      const d = await dashboardWithData(dbOf(c), actorOf(c), pathId(c));
      return respond(c, d, {
        title: d.name,
        view: async () => {
          const content = <DashboardPage d={d} lookups={await lookups(dbOf(c), actorOf(c))} />;
          return isHtmx(c) ? content : <DashboardLive>{content}</DashboardLive>;
        },
      });
    },
  );
  // SPEC C5: one widget's contents, as the dashboard shows them (each widget loads its own while tickets change).
  app.get(
    '/:id/widgets/:widgetId',
    doc({ summary: 'One widget with what it shows', ok: { 200: WidgetWithDataSchema }, errors: [403] }),
    async (c) => {
      const { widget, data } = await widgetWithData(dbOf(c), actorOf(c), pathId(c), pathId(c, 'widgetId'));
      return respond(
        c,
        { ...widget, data },
        { title: 'Widget', view: async () => <WidgetBody data={data} l={await lookups(dbOf(c), actorOf(c))} /> },
      );
    },
  );
  app.patch(
    '/:id',
    doc({ summary: 'Change a dashboard', body: UpdateSchema, ok: { 200: DashboardSchema } }),
    async (c) => {
      const id = pathId(c);
      return respond(c, updateDashboard(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), {
        title: 'Dashboard',
        location: `/dashboards/${id}?saved`,
        view: page(c, id),
      });
    },
  );
  app.delete('/:id', doc({ summary: 'Delete a dashboard', ok: { 204: null } }), async (c) => {
    await deleteDashboard(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/dashboards');
  });
  app.post(
    '/:id/widgets',
    doc({ summary: 'Add a widget', body: WidgetSchema, ok: { 201: WidgetJsonSchema } }),
    async (c) => {
      const id = pathId(c);
      return respond(c, addWidget(dbOf(c), actorOf(c), id, await readBody(c, WidgetSchema)), {
        status: 201,
        title: 'Widget',
        location: `/dashboards/${id}?saved`,
        view: page(c, id),
      });
    },
  );
  app.patch(
    '/:id/widgets/:widgetId',
    doc({ summary: 'Change a widget', body: UpdateWidgetSchema, ok: { 200: WidgetJsonSchema } }),
    async (c) => {
      const id = pathId(c);
      const widgetId = pathId(c, 'widgetId');
      return respond(c, updateWidget(dbOf(c), actorOf(c), id, widgetId, await readBody(c, UpdateWidgetSchema)), {
        title: 'Widget',
        location: `/dashboards/${id}?saved`,
        view: page(c, id),
      });
    },
  );
  app.delete('/:id/widgets/:widgetId', doc({ summary: 'Remove a widget', ok: { 204: null } }), async (c) => {
    const id = pathId(c);
    await deleteWidget(dbOf(c), actorOf(c), id, pathId(c, 'widgetId'));
    return noContent(c, `/dashboards/${id}`);
  });
  return app;
}
