import { type Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { getSettings, timeZones, updateSettings } from '../../domain/settings.js';
import { clearThrottle, countAttempt, throttleKey } from '../../domain/throttle.js';
import { zBool, zText } from '../../domain/validation.js';
import { SettingsPage } from '../../views/settings.js';
import { SESSION_COOKIE } from '../auth/middleware.js';
import type { AppEnv, Deps } from '../context.js';
import { actorOf, dbOf, readBody, respond } from '../respond.js';

/** An empty form field means "not given" (a password form left blank changes nothing). */
const blankless = <T extends z.ZodType>(schema: T) => z.union([z.literal('').transform(() => undefined), schema]).optional();

const SettingsSchema = z.strictObject({
  name: zText(200).optional(),
  timezone: z.string().trim().max(100).optional(),
  signature: z.string().max(4000, 'At most 4000 characters').optional(),
  notify_new_tickets: zBool.optional(),
  notify_replies: zBool.optional(),
  notify_notes: zBool.optional(),
  password: blankless(z.string().min(12, 'At least 12 characters').max(1024, 'At most 1024 characters')),
  password_confirm: blankless(z.string().max(1024)),
  current_password: blankless(z.string().max(1024)),
});

/** GET/PATCH /settings (and a plain form POST): the signed-in user's own settings. */
export function settingsRoutes(deps: Deps) {
  const app = new Hono<AppEnv>();
  // Guessing the current password through a stolen session is braked like sign-in is (counted
  // in the database, domain/throttle.ts).
  const page = (saved: boolean) => (s: Awaited<ReturnType<typeof getSettings>>) => <SettingsPage settings={s} zones={timeZones()} saved={saved} />;

  app.get('/', async (c) => respond(c, await getSettings(dbOf(c), actorOf(c)), { title: 'Settings', view: page(false) })); // `?saved`: the layout says Saved

  const update = async (c: Context<AppEnv>) => {
    const actor = actorOf(c);
    const input = await readBody(c, SettingsSchema);
    const key = throttleKey.password(actor.id);
    if (input.password !== undefined && !(await countAttempt(dbOf(c), key, deps.env.LOGIN_MAX_FAILURES, 15 * 60)).allowed) {
      throw new AppError('rate_limited', 'Too many attempts at the current password; try again later');
    }
    const settings = await updateSettings(dbOf(c), actor, input, { keepSession: c.get('authVia') === 'cookie' ? getCookie(c, SESSION_COOKIE) : undefined });
    if (input.password !== undefined) await clearThrottle(dbOf(c), key);
    return respond(c, settings, { title: 'Settings', location: '/settings?saved', view: page(true) });
  };
  app.patch('/', update);
  app.post('/', update);
  return app;
}
