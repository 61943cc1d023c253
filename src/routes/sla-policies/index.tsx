import { Hono } from 'hono';
import { z } from 'zod';
import { lookups } from '../../domain/lookups.js';
import { listCalendars } from '../../domain/time/calendars.js';
import {
  createSlaPolicy,
  deleteSlaPolicy,
  getSlaPolicy,
  listSlaPolicies,
  previewPolicy,
  updateSlaPolicy,
} from '../../domain/time/slaPolicies.js';
import { SlaPoliciesPage, SlaPolicyPage } from '../../views/admin/slaPolicies.js';
import type { AppEnv } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, adminOf, adminScreen, dbOf, noContent, pathId, readBody, respond } from '../respond.js';
import { CreateSlaPolicySchema, SlaPolicySchema, UpdateSlaPolicySchema } from './schemas.js';

const doc = documented('SLA policies');

export function slaPolicyRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    doc({
      summary: 'List SLA policies in the order they are matched (staff)',
      ok: { 200: z.strictObject({ sla_policies: z.array(SlaPolicySchema) }) },
      errors: [403],
    }),
    async (c) => {
      const policies = await listSlaPolicies(dbOf(c), actorOf(c));
      return respond(
        c,
        { sla_policies: policies },
        {
          title: 'SLA policies',
          view: adminScreen(c, async () => (
            <SlaPoliciesPage
              policies={policies}
              calendars={await listCalendars(dbOf(c), actorOf(c))}
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
      summary: 'Create an SLA policy (admins)',
      body: CreateSlaPolicySchema,
      ok: { 201: SlaPolicySchema },
      errors: [409],
    }),
    async (c) => {
      const actor = adminOf(c);
      const p = await createSlaPolicy(dbOf(c), actor, await readBody(c, CreateSlaPolicySchema));
      return respond(c, p, { status: 201, title: p.name, location: `/sla-policies/${p.id}?saved` });
    },
  );
  app.get('/:id', doc({ summary: 'An SLA policy (staff)', ok: { 200: SlaPolicySchema }, errors: [403] }), async (c) => {
    const p = await getSlaPolicy(dbOf(c), actorOf(c), pathId(c));
    return respond(c, p, {
      title: p.name,
      view: adminScreen(c, async () => (
        <SlaPolicyPage
          policy={p}
          preview={await previewPolicy(dbOf(c), actorOf(c), p)}
          calendars={await listCalendars(dbOf(c), actorOf(c))}
          lookups={await lookups(dbOf(c), actorOf(c))}
        />
      )),
    });
  });
  app.patch(
    '/:id',
    doc({
      summary: 'Change an SLA policy (admins)',
      body: UpdateSlaPolicySchema,
      ok: { 200: SlaPolicySchema },
      errors: [409],
    }),
    async (c) => {
      const actor = adminOf(c);
      const id = pathId(c);
      return respond(c, updateSlaPolicy(dbOf(c), actor, id, await readBody(c, UpdateSlaPolicySchema)), {
        title: 'SLA policy',
        location: `/sla-policies/${id}?saved`,
      });
    },
  );
  app.delete('/:id', doc({ summary: 'Delete an SLA policy (admins)', ok: { 204: null } }), async (c) => {
    await deleteSlaPolicy(dbOf(c), adminOf(c), pathId(c));
    return noContent(c, '/sla-policies');
  });
  return app;
}
