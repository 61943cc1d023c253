import { type Context, Hono } from 'hono';
import { configuredOwnAddresses } from '../../env.js';
import { getMailSettings, type MailSettingsJson, updateMailSettings } from '../../domain/mailSettings.js';
import { MailSettingsPage } from '../../views/admin/mailSettings.js';
import type { AppEnv, Deps } from '../context.js';
import { documented, type OperationDoc } from '../openapi.js';
import { actorOf, adminScreen, dbOf, readBody, respond } from '../respond.js';
import { MailSettingsSchema, UpdateMailSettingsSchema } from './schemas.js';

const doc = documented('Mail');
const updateDoc: OperationDoc = {
  summary: 'Change the list of our own mail addresses (admins)',
  description:
    "Replaces the list admins keep (SPEC D6). These addresses, like `MAIL_FROM`, `MAIL_ADDRESSES`, the IMAP user and the queue aliases, are never made requesters or Cc and are never mailed; every process reads the list at once. A staff member's address is refused (422).",
  body: UpdateMailSettingsSchema,
  ok: { 200: MailSettingsSchema },
  errors: [403, 422],
};

/** GET/PATCH /mail-settings (and a plain form POST): our own mail addresses. */
export function mailSettingsRoutes(deps: Deps) {
  const app = new Hono<AppEnv>();
  const configured = configuredOwnAddresses(deps.env);
  const page = (saved: boolean) => (s: MailSettingsJson) => <MailSettingsPage settings={s} saved={saved} />;

  app.get(
    '/',
    doc({
      summary: 'Our own mail addresses (staff)',
      description:
        'The list admins keep, our other addresses with where each comes from, and the tickets that still name one of them as a requester, Cc or AdminCc.',
      ok: { 200: MailSettingsSchema },
      errors: [403],
    }),
    async (c) => {
      const settings = await getMailSettings(dbOf(c), actorOf(c), configured);
      // `?saved` (where a plain form post lands): the layout says Saved.
      return respond(c, settings, { title: 'Mail addresses', view: adminScreen(c, () => page(false)(settings)) });
    },
  );

  const update = async (c: Context<AppEnv>) => {
    const actor = actorOf(c);
    const input = await readBody(c, UpdateMailSettingsSchema);
    const settings = await updateMailSettings(dbOf(c), actor, input.mail_addresses, configured);
    return respond(c, settings, { title: 'Mail addresses', location: '/mail-settings?saved', view: page(true) });
  };
  app.patch('/', doc(updateDoc), update);
  app.post('/', doc({ ...updateDoc, summary: 'Change the list of our own mail addresses (a plain form)' }), update);
  return app;
}
