import { Hono } from 'hono';
import { z } from 'zod';
import { createSavedView, deleteSavedView, getSavedView, listSavedViews, updateSavedView, zColumn, zWidth } from '../../domain/savedViews.js';
import { zId, zNullableId, zJsonObject, zJsonText, zList, zText } from '../../domain/validation.js';
import type { AppEnv } from '../context.js';
import { actorOf, dbOf, noContent, pathId, readBody, respond } from '../respond.js';

const CreateSchema = z.strictObject({
  name: zText(100, 1),
  owner_id: zId.optional(),
  filters: zJsonObject.optional(),
  columns: zList(zColumn).optional(),
  column_widths: zJsonText(z.partialRecord(zColumn, zWidth)).optional(),
  // SPEC C4: shared with a team ("" from the form's "Only me": not shared).
  team_id: zNullableId.optional(),
});
const UpdateSchema = CreateSchema.omit({ owner_id: true }).partial();

export function savedViewRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => respond(c, { saved_views: await listSavedViews(dbOf(c), actorOf(c)) }, { title: 'Saved views' }));
  app.post('/', async (c) => {
    const view = await createSavedView(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
    return respond(c, view, { status: 201, title: view.name, location: `/tickets?view_id=${view.id}` });
  });
  app.get('/:id', (c) => respond(c, getSavedView(dbOf(c), actorOf(c), pathId(c)), { title: 'Saved view' }));
  app.patch('/:id', async (c) => {
    const id = pathId(c);
    return respond(c, updateSavedView(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), { title: 'Saved view', location: `/tickets?view_id=${id}` });
  });
  app.delete('/:id', async (c) => {
    await deleteSavedView(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/tickets');
  });
  return app;
}
