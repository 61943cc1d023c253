import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { requireAdmin } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { getIntake, intakeRaw, listIntake } from '../../domain/mailIntakeLog.js';
import { processMail } from '../../mail/processor.js';
import { readMailForm } from './form.js';
import { IntakeEntryPage, IntakePage } from '../../views/admin/mail.js';
import type { AppEnv, Deps } from '../context.js';
import { documented } from '../openapi.js';
import {
  IntakeEntryWithRawSchema,
  IntakeListQuery,
  IntakeListSchema,
  IntakeResultSchema,
  MailJsonSchema,
  MailOptionsSchema,
} from './schemas.js';
import { actorOf, adminScreen, dbOf, pathId, queryObject, respond, validate } from '../respond.js';

const doc = documented('Mail');

const same = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/** POST /mailgate (SPEC B7) and the admin intake log. */
export function mailRoutes(deps: Deps) {
  const app = new Hono<AppEnv>();
  const max = deps.env.MAX_MAIL_BYTES;
  const tooLarge = () => {
    throw new AppError('too_large', `The message is larger than MAX_MAIL_BYTES (${max} bytes)`);
  };
  const settings = deps.settings!; // the app factory's, built before the routes

  function checkToken(c: Context<AppEnv>) {
    const token = deps.env.MAILGATE_TOKEN;
    if (!token) {
      if (deps.env.production) throw new AppError('unavailable', 'The mail gateway is off: set MAILGATE_TOKEN');
      return; // development: an open gateway on a loopback address
    }
    const sent = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!sent || !same(sent, token))
      throw new AppError('unauthenticated', 'Send Authorization: Bearer $MAILGATE_TOKEN');
  }

  /** The raw message and options from any of the three body formats. */
  async function readMail(c: Context<AppEnv>): Promise<{ raw: Buffer; opts: z.infer<typeof MailOptionsSchema> }> {
    const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'message/rfc822' || type === 'text/plain' || type === 'application/octet-stream') {
      return { raw: Buffer.from(await c.req.arrayBuffer()), opts: validate(MailOptionsSchema, c.req.query()) };
    }
    if (type === 'application/json') {
      let json: unknown;
      try {
        json = JSON.parse(await c.req.text());
      } catch {
        throw new AppError('invalid_json', 'The request body is not valid JSON');
      }
      const body = validate(MailJsonSchema, json);
      return { raw: Buffer.from(body.message, 'utf8'), opts: body };
    }
    if (type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded') {
      const form = await readMailForm(
        Buffer.from(await c.req.arrayBuffer()),
        { 'content-type': c.req.header('content-type')! },
        max,
      );
      if (!form.message) {
        throw new AppError('validation_failed', 'Send the raw message as "message" (or body-mime / email)', [
          { path: 'message', message: 'Required' },
        ]);
      }
      const strings = Object.fromEntries(
        Object.entries({ queue: form.queue, action: form.action }).filter(([, v]) => v !== undefined),
      );
      return { raw: form.message, opts: validate(MailOptionsSchema, strings) };
    }
    throw new AppError('unsupported_media_type', 'Send message/rfc822, JSON { message } or form data');
  }

  app.post(
    '/mailgate',
    doc({
      summary: 'Hand over an incoming e-mail',
      public: true,
      description:
        "For mail transfer agents: `Authorization: Bearer $MAILGATE_TOKEN` (not an API token). The raw message as `message/rfc822` (options `queue` and `action` in the query string), as JSON, or as form fields (`message`; Mailgun's `body-mime` and SendGrid's `email` too). 201 when it opened a ticket, 200 otherwise (an append, a duplicate, an ignored or refused message).",
      query: MailOptionsSchema,
      content: {
        'message/rfc822': { schema: { type: 'string', description: 'The raw message (up to MAX_MAIL_BYTES)' } },
        'application/json': { schema: MailJsonSchema },
        'multipart/form-data': { schema: MailJsonSchema },
        'application/x-www-form-urlencoded': { schema: MailJsonSchema },
      },
      ok: { 200: IntakeResultSchema, 201: IntakeResultSchema },
      errors: [401, 503],
    }),
    async (c, next) => {
      checkToken(c);
      await next();
    },
    // Checked against Content-Length first and while streaming: an oversized message is never read whole.
    async (c, next) => {
      const raw = (c.req.header('content-type') ?? '').startsWith('message/rfc822');
      return bodyLimit({
        maxSize: raw ? max : Math.ceil(max * 1.5) + 65_536,
        onError: (cc) => {
          cc.header('Connection', 'close');
          return tooLarge();
        },
      })(c, next);
    },
    async (c) => {
      const { raw, opts } = await readMail(c);
      if (raw.length > max) tooLarge();
      const result = await processMail(dbOf(c), raw, settings, {
        source: 'mailgate',
        queue: opts.queue,
        action: opts.action,
      });
      return c.json(result, result.created ? 201 : 200);
    },
  );

  app.get(
    '/mail/intake',
    doc({
      summary: 'The mail intake log (admins)',
      query: IntakeListQuery,
      ok: { 200: IntakeListSchema },
      errors: [403],
    }),
    async (c) => {
      const query = validate(IntakeListQuery, queryObject(c));
      const list = await listIntake(dbOf(c), actorOf(c), query);
      return respond(c, list, {
        title: 'Mail intake',
        view: adminScreen(c, () => (
          <IntakePage intake={list.intake} total={list.total} limit={list.limit} offset={list.offset} query={query} />
        )),
      });
    },
  );
  app.get(
    '/mail/intake/:id',
    doc({
      summary: 'One message of the intake log, raw (admins)',
      ok: { 200: IntakeEntryWithRawSchema },
      errors: [403],
    }),
    async (c) => {
      const entry = await getIntake(dbOf(c), actorOf(c), pathId(c));
      return respond(c, entry, {
        title: `Message ${entry.id}`,
        view: adminScreen(c, () => <IntakeEntryPage entry={entry} />),
      });
    },
  );
  app.post(
    '/mail/intake/:id/replay',
    doc({
      summary: 'Process a logged message again (admins)',
      ok: { 200: IntakeResultSchema, 201: IntakeResultSchema },
      errors: [422],
    }),
    async (c) => {
      const actor = actorOf(c);
      requireAdmin(actor);
      const raw = await intakeRaw(dbOf(c), actor, pathId(c));
      const result = await processMail(dbOf(c), raw, settings, { source: 'replay', replay: true });
      return respond(c, result, {
        status: result.created ? 201 : 200,
        title: 'Replayed',
        location: `/mail/intake/${pathId(c)}`,
      });
    },
  );
  return app;
}
