import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { isStaff } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { MAX_REPLY_FILES } from '../../domain/portal.js';
import { BY_MAIL_ONLY, openPortalRequest, portalQueues } from '../../domain/portalRequests.js';
import { getSettings, timeZones } from '../../domain/settings.js';
import { PortalNewRequestPage, PortalSettingsPage } from '../../views/portalAccount.js';
import type { AppEnv, Deps } from '../context.js';
import { documented } from '../openapi.js';
import { actorOf, dbOf, notifyOf, respond, wantsHtml } from '../respond.js';
import { changeSettings } from '../settings/index.js';
import { SettingsJsonSchema, SettingsSchema } from '../settings/schemas.js';
import { readWithFiles } from './files.js';
import { NewRequestSchema, PortalQueueSchema, PortalTicketSchema } from './schemas.js';

type C = Context<AppEnv>;

// SPEC D6, docs/decisions/050: a signed-in customer's own pages in the portal — their settings
// and a new request. Staff are sent to theirs. Registered before `/portal/:token`, whose pattern
// these paths would otherwise match (a link's token never looks like them).

const doc = documented('Portal');

/** The form's fields as typed (never the passwords), to show them again with the errors. */
async function typed(c: C, keep: string[]): Promise<Record<string, string>> {
  const form = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>);
  return Object.fromEntries(
    Object.entries(form).filter(([k, v]) => keep.includes(k) && typeof v === 'string') as [string, string][],
  );
}

/** A refusal of a plain form post: the page again, the error next to its field (422 and the like). */
function formRefusal(c: C, e: unknown): e is AppError {
  return e instanceof AppError && wantsHtml(c) && e.code !== 'unauthenticated' && e.status < 500;
}
const detailsOf = (e: AppError) => e.details ?? [{ path: '', message: e.message }];

export function portalAccountRoutes(deps: Deps) {
  const app = new Hono<AppEnv>();

  app.get(
    '/settings',
    doc({
      summary: 'Your settings (customers)',
      description: 'Staff are sent to /settings (303).',
      ok: { 200: SettingsJsonSchema, 303: null },
    }),
    async (c) => {
      const actor = actorOf(c);
      if (isStaff(actor)) return c.redirect('/settings', 303);
      const settings = await getSettings(dbOf(c), actor);
      return respond(c, settings, {
        title: 'Your settings',
        view: () => (
          <PortalSettingsPage settings={settings} zones={timeZones()} saved={c.req.query('saved') !== undefined} />
        ),
      });
    },
  );
  app.post(
    '/settings',
    doc({
      summary: 'Change your settings (customers)',
      description:
        'Name, time zone, and a new `password` with `current_password` (wrong guesses are braked: 429). As PATCH /settings.',
      body: SettingsSchema,
      ok: { 200: SettingsJsonSchema },
      errors: [429],
    }),
    async (c) => {
      const actor = actorOf(c);
      try {
        const settings = await changeSettings(c, deps);
        return respond(c, settings, { title: 'Your settings', location: '/portal/settings?saved' });
      } catch (e) {
        if (!formRefusal(c, e)) throw e;
        // The profile form sends a name and a time zone; the password form neither.
        const values = await typed(c, ['name', 'timezone']);
        c.status(e.status as 422);
        return c.render(
          <PortalSettingsPage
            settings={await getSettings(dbOf(c), actor)}
            zones={timeZones()}
            form={Object.keys(values).length > 0 ? 'profile' : 'password'}
            errors={detailsOf(e)}
            values={values}
          />,
          { title: 'Your settings' },
        );
      }
    },
  );

  const limits = () => ({
    maxBytes: deps.env.MAX_MAIL_BYTES,
    messagesPerHour: deps.env.MAIL_SENDER_MAX_PER_HOUR,
    bytesPerDay: deps.env.PORTAL_MAX_BYTES_PER_DAY,
  });
  const newPage = async (c: C, errors?: { path: string; message: string }[], values?: Record<string, string>) => (
    <PortalNewRequestPage
      queues={await portalQueues(dbOf(c))}
      byMail={BY_MAIL_ONLY}
      maxBytes={deps.env.MAX_MAIL_BYTES}
      maxFiles={MAX_REPLY_FILES}
      errors={errors}
      values={values}
    />
  );

  app.get(
    '/new',
    doc({
      summary: 'Where a new request may go (customers)',
      description:
        'The topics (queues) the admin opened to requests from the portal; none means requests are opened by mail. Staff are sent to /tickets/new (303).',
      ok: { 200: z.strictObject({ queues: z.array(PortalQueueSchema) }), 303: null },
    }),
    async (c) => {
      const actor = actorOf(c);
      if (isStaff(actor)) return c.redirect('/tickets/new', 303);
      const queues = await portalQueues(dbOf(c));
      return respond(c, { queues }, { title: 'New request', view: () => newPage(c) });
    },
  );
  app.post(
    '/requests',
    doc({
      summary: 'Open a new request (customers)',
      description:
        'As a mail to us would: the autoreply and the staff notices go out. `queue_id` is needed when several queues take requests. Braked with your replies (429, 413).',
      body: NewRequestSchema,
      files: true,
      ok: { 201: z.strictObject({ ticket: PortalTicketSchema }) },
      errors: [403, 429],
    }),
    async (c) => {
      const actor = actorOf(c);
      try {
        const { input, attachments } = await readWithFiles(c, NewRequestSchema);
        const ticket = await openPortalRequest(
          dbOf(c),
          actor,
          { queue_id: input.queue_id, subject: input.subject, body: input.body ?? '', attachments },
          limits(),
          notifyOf(c),
        );
        return respond(c, { ticket }, { status: 201, title: ticket.subject, location: `/portal/tickets/${ticket.id}` });
      } catch (e) {
        if (!formRefusal(c, e) || e.code === 'forbidden') throw e;
        const values = await typed(c, ['queue_id', 'subject', 'body']);
        c.status(e.status as 422);
        return c.render(await newPage(c, detailsOf(e), values), { title: 'New request' });
      }
    },
  );
  return app;
}
