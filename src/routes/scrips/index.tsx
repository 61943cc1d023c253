import { type Context, Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import { previewScrip, type ScripPreview } from '../../domain/time/idlePreview.js';
import { AdminFrame } from '../../views/admin/common.js';
import { ScripPreviewCard } from '../../views/admin/scripPreview.js';
import { z } from 'zod';
import { createScrip, deleteScrip, getScrip, listScrips, updateScrip } from '../../domain/scrips.js';
import { lookups } from '../../domain/lookups.js';
import { listTemplates } from '../../domain/templates.js';
import { ACTIONS, CONDITIONS } from '../../scrips/kinds.js';
import { ScripPage, ScripsPage } from '../../views/admin/scrips.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import {
  CreateScripSchema as CreateSchema,
  ScripPreviewSchema,
  ScripSchema,
  UpdateScripSchema as UpdateSchema,
} from './schemas.js';
import { actorOf, adminScreen, dbOf, noContent, pathId, readBody, respond } from '../respond.js';

const doc = documented('Scrips');

/** An on_idle scrip's preview for its page; none when its config is not valid (the form says why on save). */
async function idlePreviewOf(c: Context<AppEnv>, id: number): Promise<ScripPreview | undefined> {
  try {
    return await previewScrip(dbOf(c), actorOf(c), id);
  } catch (e) {
    if (e instanceof AppError && e.code === 'validation_failed') return undefined;
    throw e;
  }
}
/** What the scrip forms offer (the views import no engine: decision 046). */
const CHOICES = { conditions: CONDITIONS, actions: ACTIONS };

export function scripRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({ summary: 'List scrips', ok: { 200: z.strictObject({ scrips: z.array(ScripSchema) }) }, errors: [403] }),
    async (c) => {
      const scrips = await listScrips(dbOf(c), actorOf(c));
      return respond(
        c,
        { scrips },
        {
          title: 'Scrips',
          view: adminScreen(c, async () => (
            <ScripsPage
              scrips={scrips}
              templates={await listTemplates(dbOf(c), actorOf(c))}
              lookups={await lookups(dbOf(c), actorOf(c))}
              choices={CHOICES}
            />
          )),
        },
      );
    },
  );
  app.post(
    '/',
    doc({ summary: 'Create a scrip (admins)', body: CreateSchema, ok: { 201: ScripSchema }, errors: [409] }),
    async (c) => {
      const s = await createScrip(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
      return respond(c, s, { status: 201, title: s.key, location: `/scrips/${s.id}?saved` });
    },
  );
  app.get('/:id', doc({ summary: 'A scrip', ok: { 200: ScripSchema }, errors: [403] }), async (c) => {
    const scrip = await getScrip(dbOf(c), actorOf(c), pathId(c));
    return respond(c, scrip, {
      title: scrip.key,
      view: adminScreen(c, async () => (
        <ScripPage
          preview={scrip.condition === 'on_idle' ? await idlePreviewOf(c, scrip.id) : undefined}
          scrip={scrip}
          templates={await listTemplates(dbOf(c), actorOf(c))}
          lookups={await lookups(dbOf(c), actorOf(c))}
          choices={CHOICES}
        />
      )),
    });
  });
  app.get(
    '/:id/preview',
    doc({
      summary: 'The tickets an on_idle scrip would fire on now (admins)',
      ok: { 200: ScripPreviewSchema },
      errors: [403, 422],
    }),
    async (c) => {
      const preview = await previewScrip(dbOf(c), actorOf(c), pathId(c));
      return respond(c, preview, {
        title: 'Scrip preview',
        view: adminScreen(c, async () => (
          <AdminFrame current="/scrips" title={`Preview of scrip ${preview.scrip_id}`}>
            <p>
              <a href={`/scrips/${preview.scrip_id}`}>Back to the scrip</a>
            </p>
            <ScripPreviewCard preview={preview} lookups={await lookups(dbOf(c), actorOf(c))} />
          </AdminFrame>
        )),
      });
    },
  );
  app.patch(
    '/:id',
    doc({ summary: 'Change a scrip (admins)', body: UpdateSchema, ok: { 200: ScripSchema }, errors: [409] }),
    async (c) => {
      const id = pathId(c);
      return respond(c, updateScrip(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), {
        title: 'Scrip',
        location: `/scrips/${id}?saved`,
      });
    },
  );
  app.delete('/:id', doc({ summary: 'Delete a scrip (admins)', ok: { 204: null } }), async (c) => {
    await deleteScrip(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/scrips');
  });
  return app;
}
