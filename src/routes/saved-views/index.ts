import { Hono } from 'hono';
import { z } from 'zod';
import {
  createSavedView,
  deleteSavedView,
  getSavedView,
  listSavedViews,
  updateSavedView,
} from '../../domain/savedViews.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import {
  CreateSavedViewSchema as CreateSchema,
  ListedViewSchema,
  SavedViewSchema,
  UpdateSavedViewSchema as UpdateSchema,
} from './schemas.js';
import { actorOf, dbOf, noContent, pathId, readBody, respond } from '../respond.js';

const doc = documented('Saved views');

export function savedViewRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'List saved views',
      description: 'Yours and those shared with your teams (staff).',
      ok: { 200: z.strictObject({ saved_views: z.array(ListedViewSchema) }) },
      errors: [403],
    }),
    async (c) => respond(c, { saved_views: await listSavedViews(dbOf(c), actorOf(c)) }, { title: 'Saved views' }),
  );
  app.post('/', doc({ summary: 'Save a view', body: CreateSchema, ok: { 201: SavedViewSchema } }), async (c) => {
    const view = await createSavedView(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
    return respond(c, view, { status: 201, title: view.name, location: `/tickets?view_id=${view.id}` });
  });
  app.get('/:id', doc({ summary: 'A saved view', ok: { 200: SavedViewSchema }, errors: [403] }), (c) =>
    respond(c, getSavedView(dbOf(c), actorOf(c), pathId(c)), { title: 'Saved view' }),
  );
  app.patch(
    '/:id',
    doc({ summary: 'Change a saved view', body: UpdateSchema, ok: { 200: SavedViewSchema } }),
    async (c) => {
      const id = pathId(c);
      return respond(c, updateSavedView(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), {
        title: 'Saved view',
        location: `/tickets?view_id=${id}`,
      });
    },
  );
  app.delete('/:id', doc({ summary: 'Delete a saved view', ok: { 204: null } }), async (c) => {
    await deleteSavedView(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/tickets');
  });
  return app;
}
