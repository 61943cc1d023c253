import { type Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { AppError } from '../../domain/errors.js';
import { getSettings, timeZones, updateSettings } from '../../domain/settings.js';
import { clearThrottle, countAttempt, throttleKey } from '../../domain/throttle.js';
import { SettingsPage } from '../../views/settings.js';
import { SESSION_COOKIE } from '../auth/middleware.js';
import type { AppEnv, Deps } from '../context.js';
import { documented, type OperationDoc } from '../openapi.js';
import { SettingsJsonSchema, SettingsSchema } from './schemas.js';
import { actorOf, dbOf, readBody, respond } from '../respond.js';

const doc = documented('Settings');
const updateDoc: OperationDoc = {
  summary: 'Change your settings',
  description: 'A new `password` needs `current_password` (wrong guesses are braked: 429).',
  body: SettingsSchema,
  ok: { 200: SettingsJsonSchema },
  errors: [429],
};

/**
 * The signed-in user's change of their own settings, read from the request (also the portal's
 * settings page, decision 050). Guessing the current password is braked like sign-in.
 */
export async function changeSettings(c: Context<AppEnv>, deps: Deps) {
  const actor = actorOf(c);
  const input = await readBody(c, SettingsSchema);
  const key = throttleKey.password(actor.id);
  if (input.password !== undefined && !(await countAttempt(dbOf(c), key, deps.env.LOGIN_MAX_FAILURES, 15 * 60)).allowed)
    throw new AppError('rate_limited', 'Too many attempts at the current password; try again later');
  const settings = await updateSettings(dbOf(c), actor, input, {
    keepSession: c.get('authVia') === 'cookie' ? getCookie(c, SESSION_COOKIE) : undefined,
  });
  if (input.password !== undefined) await clearThrottle(dbOf(c), key);
  return settings;
}

/** GET/PATCH /settings (and a plain form POST): the signed-in user's own settings. */
export function settingsRoutes(deps: Deps) {
  const app = new Hono<AppEnv>();
  // Guessing the current password through a stolen session is braked like sign-in is (counted
  // in the database, domain/throttle.ts).
  const page = (saved: boolean) => (s: Awaited<ReturnType<typeof getSettings>>) => (
    <SettingsPage settings={s} zones={timeZones()} saved={saved} />
  );

  app.get('/', doc({ summary: 'Your settings', ok: { 200: SettingsJsonSchema } }), async (c) =>
    respond(c, await getSettings(dbOf(c), actorOf(c)), { title: 'Settings', view: page(false) }),
  ); // `?saved`: the layout says Saved

  const update = async (c: Context<AppEnv>) => {
    const settings = await changeSettings(c, deps);
    return respond(c, settings, { title: 'Settings', location: '/settings?saved', view: page(true) });
  };
  app.patch('/', doc(updateDoc), update);
  app.post('/', doc({ ...updateDoc, summary: 'Change your settings (a plain form)' }), update);
  return app;
}
