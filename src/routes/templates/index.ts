import { Hono } from 'hono';
import { z } from 'zod';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, previewTemplate, updateTemplate } from '../../domain/templates.js';
import { zId, zNullableId, zText } from '../../domain/validation.js';
import type { AppEnv } from '../context.js';
import { actorOf, dbOf, noContent, pathId, readBody, respond } from '../respond.js';

const CreateSchema = z.strictObject({
  name: zText(100, 1), description: zText(2000).optional(), subject: z.string().max(1000).optional(), body: z.string().max(100_000).optional(),
  queue_id: zNullableId.optional(),
});
const UpdateSchema = CreateSchema.partial();
const PreviewSchema = z.strictObject({ subject: z.string().max(1000).default(''), body: z.string().max(100_000).default(''), ticket_id: zId.optional() });

export function templateRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => respond(c, { templates: listTemplates(dbOf(c), actorOf(c)) }, { title: 'Templates' }));
  app.post('/', async (c) => {
    const t = createTemplate(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
    return respond(c, t, { status: 201, title: t.name, location: `/templates/${t.id}` });
  });
  app.post('/preview', async (c) => respond(c, previewTemplate(dbOf(c), actorOf(c), await readBody(c, PreviewSchema)), { title: 'Preview' }));
  app.get('/:id', (c) => respond(c, getTemplate(dbOf(c), actorOf(c), pathId(c)), { title: 'Template' }));
  app.patch('/:id', async (c) => {
    const id = pathId(c);
    return respond(c, updateTemplate(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), { title: 'Template', location: `/templates/${id}` });
  });
  app.delete('/:id', (c) => {
    deleteTemplate(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/templates');
  });
  return app;
}
