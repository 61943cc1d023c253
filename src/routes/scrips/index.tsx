import { Hono } from 'hono';
import { z } from 'zod';
import { createScrip, deleteScrip, getScrip, listScrips, updateScrip } from '../../domain/scrips.js';
import { lookups } from '../../domain/lookups.js';
import { listTemplates } from '../../domain/templates.js';
import { zBool, zInt, zJsonObject, zNullableId, zText } from '../../domain/validation.js';
import { ScripPage, ScripsPage } from '../../views/admin/config.js';
import { ACTIONS, CONDITIONS } from '../../scrips/engine.js';
import type { AppEnv } from '../context.js';
import { actorOf, adminScreen, dbOf, noContent, pathId, readBody, respond } from '../respond.js';

const CreateSchema = z.strictObject({
  key: zText(64, 1),
  description: zText(2000).optional(),
  condition: z.enum(CONDITIONS, { error: `Expected one of: ${CONDITIONS.join(', ')}` }),
  action: z.enum(ACTIONS, { error: `Expected one of: ${ACTIONS.join(', ')}` }),
  template_id: zNullableId.optional(),
  queue_id: zNullableId.optional(),
  enabled: zBool.optional(),
  sort_order: zInt(-1_000_000, 1_000_000).optional(),
  config: zJsonObject.optional(),
});
const UpdateSchema = CreateSchema.partial();
/** What the scrip forms offer (the views import no engine: decision 046). */
const CHOICES = { conditions: CONDITIONS, actions: ACTIONS };

export function scripRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const scrips = await listScrips(dbOf(c), actorOf(c));
    return respond(c, { scrips }, { title: 'Scrips', view: adminScreen(c, async () => <ScripsPage scrips={scrips} templates={await listTemplates(dbOf(c), actorOf(c))} lookups={await lookups(dbOf(c), actorOf(c))} choices={CHOICES} />) });
  });
  app.post('/', async (c) => {
    const s = await createScrip(dbOf(c), actorOf(c), await readBody(c, CreateSchema));
    return respond(c, s, { status: 201, title: s.key, location: `/scrips/${s.id}?saved` });
  });
  app.get('/:id', async (c) => {
    const scrip = await getScrip(dbOf(c), actorOf(c), pathId(c));
    return respond(c, scrip, { title: scrip.key, view: adminScreen(c, async () => <ScripPage scrip={scrip} templates={await listTemplates(dbOf(c), actorOf(c))} lookups={await lookups(dbOf(c), actorOf(c))} choices={CHOICES} />) });
  });
  app.patch('/:id', async (c) => {
    const id = pathId(c);
    return respond(c, updateScrip(dbOf(c), actorOf(c), id, await readBody(c, UpdateSchema)), { title: 'Scrip', location: `/scrips/${id}?saved` });
  });
  app.delete('/:id', async (c) => {
    await deleteScrip(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/scrips');
  });
  return app;
}
