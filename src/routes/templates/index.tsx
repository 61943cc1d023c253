import { Hono } from 'hono';
import { z } from 'zod';
import { createTemplate, deleteTemplate, getTemplate, listTemplates, previewTemplate, updateTemplate } from '../../domain/templates.js';
import { lookups } from '../../domain/lookups.js';
import { listScrips } from '../../domain/scrips.js';
import { zId, zNullableId, zText } from '../../domain/validation.js';
import { TemplatePage, TemplatePreview, TemplatesPage } from '../../views/admin/config.js';
import type { AppEnv } from '../context.js';
import { actorOf, adminScreen, dbOf, noContent, notifyOf, pathId, readBody, respond } from '../respond.js';

const CreateSchema = z.strictObject({
  name: zText(100, 1), description: zText(2000).optional(), subject: z.string().max(1000).optional(), body: z.string().max(100_000).optional(),
  queue_id: zNullableId.optional(),
});
const UpdateSchema = CreateSchema.partial();
const PreviewSchema = z.strictObject({ subject: z.string().max(1000).default(''), body: z.string().max(100_000).default(''), ticket_id: z.union([z.literal('').transform(() => undefined), zId]).optional() });

export function templateRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const templates = await listTemplates(dbOf(c), actorOf(c));
    return respond(c, { templates }, { title: 'Templates', view: adminScreen(c, async () => <TemplatesPage templates={templates} lookups={await lookups(dbOf(c), actorOf(c))} />) });
  });
  app.post('/', async (c) => {
    const t = await createTemplate(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
    return respond(c, t, { status: 201, title: t.name, location: `/templates/${t.id}?saved` });
  });
  app.post('/preview', async (c) => {
    const preview = await previewTemplate(dbOf(c), actorOf(c), await readBody(c, PreviewSchema), notifyOf(c).publicUrl);
    return respond(c, preview, { title: 'Preview', view: () => <TemplatePreview {...preview} /> });
  });
  app.get('/:id', async (c) => {
    const template = await getTemplate(dbOf(c), actorOf(c), pathId(c));
    return respond(c, template, {
      title: template.name,
      view: adminScreen(c, async () => <TemplatePage template={template} lookups={await lookups(dbOf(c), actorOf(c))}
        usedBy={(await listScrips(dbOf(c), actorOf(c))).filter((s) => s.template_id === template.id).map((s) => s.key)} />),
    });
  });
  app.patch('/:id', async (c) => {
    const id = pathId(c);
    return respond(c, updateTemplate(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), { title: 'Template', location: `/templates/${id}?saved` });
  });
  app.delete('/:id', async (c) => {
    await deleteTemplate(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/templates');
  });
  return app;
}
