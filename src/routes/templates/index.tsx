import { Hono } from 'hono';
import { z } from 'zod';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  previewTemplate,
  updateTemplate,
} from '../../domain/templates.js';
import { lookups } from '../../domain/lookups.js';
import { listScrips } from '../../domain/scrips.js';
import { TemplatePage, TemplatePreview, TemplatesPage } from '../../views/admin/templates.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import {
  CreateTemplateSchema as CreateSchema,
  PreviewTemplateSchema as PreviewSchema,
  TemplatePreviewSchema,
  TemplateSchema,
  UpdateTemplateSchema as UpdateSchema,
} from './schemas.js';
import { actorOf, adminScreen, dbOf, noContent, notifyOf, pathId, readBody, respond } from '../respond.js';

const doc = documented('Templates');

export function templateRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'List templates',
      ok: { 200: z.strictObject({ templates: z.array(TemplateSchema) }) },
      errors: [403],
    }),
    async (c) => {
      const templates = await listTemplates(dbOf(c), actorOf(c));
      return respond(
        c,
        { templates },
        {
          title: 'Templates',
          view: adminScreen(c, async () => (
            <TemplatesPage templates={templates} lookups={await lookups(dbOf(c), actorOf(c))} />
          )),
        },
      );
    },
  );
  app.post(
    '/',
    doc({ summary: 'Create a template (admins)', body: CreateSchema, ok: { 201: TemplateSchema }, errors: [409] }),
    async (c) => {
      const t = await createTemplate(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
      return respond(c, t, { status: 201, title: t.name, location: `/templates/${t.id}?saved` });
    },
  );
  app.post(
    '/preview',
    doc({
      summary: 'Render a template (admins)',
      description: 'With a sample ticket, or the ticket `ticket_id` names.',
      body: PreviewSchema,
      ok: { 200: TemplatePreviewSchema },
      errors: [404],
    }),
    async (c) => {
      const preview = await previewTemplate(
        dbOf(c),
        actorOf(c),
        await readBody(c, PreviewSchema),
        notifyOf(c).publicUrl,
      );
      return respond(c, preview, { title: 'Preview', view: () => <TemplatePreview {...preview} /> });
    },
  );
  app.get('/:id', doc({ summary: 'A template', ok: { 200: TemplateSchema }, errors: [403] }), async (c) => {
    const template = await getTemplate(dbOf(c), actorOf(c), pathId(c));
    return respond(c, template, {
      title: template.name,
      view: adminScreen(c, async () => (
        <TemplatePage
          template={template}
          lookups={await lookups(dbOf(c), actorOf(c))}
          usedBy={(await listScrips(dbOf(c), actorOf(c)))
            .filter((s) => s.template_id === template.id)
            .map((s) => s.key)}
        />
      )),
    });
  });
  app.patch(
    '/:id',
    doc({ summary: 'Change a template (admins)', body: UpdateSchema, ok: { 200: TemplateSchema }, errors: [409] }),
    async (c) => {
      const id = pathId(c);
      return respond(c, updateTemplate(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), {
        title: 'Template',
        location: `/templates/${id}?saved`,
      });
    },
  );
  app.delete(
    '/:id',
    doc({
      summary: 'Delete a template (admins)',
      description: 'Refused (409, naming the scrip) while a scrip uses it.',
      ok: { 204: null },
      errors: [409],
    }),
    async (c) => {
      await deleteTemplate(dbOf(c), actorOf(c), pathId(c));
      return noContent(c, '/templates');
    },
  );
  return app;
}
