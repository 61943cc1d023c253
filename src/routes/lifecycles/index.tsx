import { Hono } from 'hono';
import { z } from 'zod';
import {
  createLifecycle,
  deleteLifecycle,
  getLifecycle,
  listLifecycles,
  updateLifecycle,
} from '../../domain/lifecycles/admin.js';
import { DEFAULT_LIFECYCLE } from '../../domain/lifecycles/categories.js';
import { lookups } from '../../domain/lookups.js';
import { LifecyclePage, LifecyclesPage } from '../../views/admin/lifecycles.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, adminOf, adminScreen, dbOf, noContent, pathId, readBody, respond } from '../respond.js';
import { CreateLifecycleSchema, LifecycleSchema, UpdateLifecycleSchema } from './schemas.js';

const doc = documented('Lifecycles');

// SPEC D3 lifecycles (decision 073): agents read them, admins write them.
export function lifecycleRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'List lifecycles (staff); a queue without one uses RT’s default',
      ok: { 200: z.strictObject({ lifecycles: z.array(LifecycleSchema) }) },
      errors: [403],
    }),
    async (c) => {
      const list = await listLifecycles(dbOf(c), actorOf(c));
      return respond(
        c,
        { lifecycles: list },
        {
          title: 'Lifecycles',
          view: adminScreen(c, async () => (
            <LifecyclesPage
              lifecycles={list}
              standard={DEFAULT_LIFECYCLE}
              lookups={await lookups(dbOf(c), actorOf(c))}
            />
          )),
        },
      );
    },
  );
  app.post(
    '/',
    doc({
      summary: 'Create a lifecycle (admins)',
      body: CreateLifecycleSchema,
      ok: { 201: LifecycleSchema },
      errors: [409],
    }),
    async (c) => {
      const l = await createLifecycle(dbOf(c), adminOf(c), await readBody(c, CreateLifecycleSchema));
      return respond(c, l, { status: 201, title: l.name, location: `/lifecycles/${l.id}?saved` });
    },
  );
  app.get('/:id', doc({ summary: 'A lifecycle (staff)', ok: { 200: LifecycleSchema }, errors: [403] }), async (c) => {
    const l = await getLifecycle(dbOf(c), actorOf(c), pathId(c));
    return respond(c, l, {
      title: l.name,
      view: adminScreen(c, async () => <LifecyclePage lifecycle={l} lookups={await lookups(dbOf(c), actorOf(c))} />),
    });
  });
  app.patch(
    '/:id',
    doc({
      summary: 'Change a lifecycle (admins)',
      body: UpdateLifecycleSchema,
      ok: { 200: LifecycleSchema },
      errors: [409],
    }),
    async (c) => {
      const actor = adminOf(c);
      const id = pathId(c);
      return respond(c, updateLifecycle(dbOf(c), actor, id, await readBody(c, UpdateLifecycleSchema)), {
        title: 'Lifecycle',
        location: `/lifecycles/${id}?saved`,
      });
    },
  );
  app.delete(
    '/:id',
    doc({ summary: 'Delete a lifecycle no queue uses (admins)', ok: { 204: null }, errors: [409] }),
    async (c) => {
      await deleteLifecycle(dbOf(c), adminOf(c), pathId(c));
      return noContent(c, '/lifecycles');
    },
  );
  return app;
}
