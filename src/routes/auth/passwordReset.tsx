import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { setCookie } from 'hono/cookie';
import { z } from 'zod';
import { createSession } from '../../domain/auth.js';
import { AppError, TryLater } from '../../domain/errors.js';
import {
  checkResetLink,
  RESET_REQUESTED,
  ResetLinkRefused,
  requestPasswordReset,
  resetPassword,
} from '../../domain/passwordReset.js';
import { STAFF_LANDING } from '../../domain/tickets/builtinLists.js';
import { getUserRow, userJson } from '../../domain/users.js';
import {
  ForgotPasswordPage,
  ResetLinkRefusedPage,
  ResetPasswordPage,
  type ResetPasswordErrors,
} from '../../views/passwordReset.js';
import type { AppEnv, Deps } from '../context.js';
import { documented } from '../openapi.js';
import { isHtmx, notifyOf, readBody, respond, wantsHtml } from '../respond.js';
import { UserSchema } from '../users/schemas.js';
import { SESSION_COOKIE } from './middleware.js';
import { ForgotPasswordAnswerSchema, ForgotPasswordSchema, ResetLinkSchema, ResetPasswordSchema } from './schemas.js';

// Forgot password (SPEC D6, docs/decisions/056): GET/POST /password-reset asks for a link by mail;
// GET/POST /password-reset/<token> chooses the new password and signs in. Reachable signed out.

const doc = documented('Sign-in and tokens');
const TOKEN = { token: z.string().describe("The reset link's signed secret") };
type C = Context<AppEnv>;

/** A plain browser form post (not htmx, not JSON): answered with a page. */
const plainForm = (c: C) => wantsHtml(c) && !isHtmx(c);

function clientAddress(c: C): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // not a node socket
  }
}

/** The refused link's own page (404) for a browser; the JSON error for anyone else. */
function refused(c: C, e: unknown): Response | Promise<Response> {
  if (!(e instanceof ResetLinkRefused) || !plainForm(c)) throw e;
  c.status(404);
  return c.render(<ResetLinkRefusedPage headline={e.headline} message={e.message} />, { title: e.headline });
}

/** A refused field's message, for the form to show next to it. */
const fieldErrors = (e: AppError): Record<string, string> =>
  Object.fromEntries((e.details ?? []).map((d) => [d.path, d.message]));

export function passwordResetRoutes(deps: Deps) {
  const app = new Hono<AppEnv>();
  // These pages carry a secret in their address (or lead to one): never in a Referer, never cached.
  app.use('/password-reset/*', async (c, next) => {
    await next();
    c.res.headers.set('Referrer-Policy', 'no-referrer');
    c.res.headers.set('Cache-Control', 'no-store');
  });
  app.use('/password-reset', async (c, next) => {
    await next();
    c.res.headers.set('Cache-Control', 'no-store');
  });

  app.get(
    '/password-reset',
    doc({
      summary: 'How to ask for a password-reset link',
      public: true,
      ok: { 200: z.strictObject({ password_reset: z.string() }) },
    }),
    (c) =>
      respond(
        c,
        { password_reset: 'POST /password-reset with { email }' },
        {
          title: 'Forgot password',
          view: () => <ForgotPasswordPage sent={c.req.query('sent') !== undefined ? RESET_REQUESTED : undefined} />,
        },
      ),
  );

  app.post(
    '/password-reset',
    doc({
      summary: 'Mail a password-reset link',
      description:
        'Answers the same whether or not the address belongs to an account (no mail then, nor for a disabled account, nor past ' +
        'PASSWORD_RESET_MAX_PER_ADDRESS requests for one address an hour). The link is valid for one hour and works once. ' +
        'More than PASSWORD_RESET_MAX_PER_CLIENT requests an hour from one client address: 429.',
      public: true,
      body: ForgotPasswordSchema,
      ok: { 200: ForgotPasswordAnswerSchema },
      errors: [429],
    }),
    async (c) => {
      let message: string;
      try {
        const body = await readBody(c, ForgotPasswordSchema);
        message = await requestPasswordReset(
          deps.store.db,
          { email: body.email, client: clientAddress(c) },
          {
            publicUrl: notifyOf(c).publicUrl,
            mailFrom: notifyOf(c).mailFrom,
            maxPerAddress: deps.env.PASSWORD_RESET_MAX_PER_ADDRESS,
            maxPerClient: deps.env.PASSWORD_RESET_MAX_PER_CLIENT,
          },
        );
      } catch (e) {
        if (!plainForm(c) || !(e instanceof AppError)) throw e;
        if (e instanceof TryLater) c.header('Retry-After', String(e.retryAfterSec));
        else if (e.code !== 'validation_failed') throw e;
        const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
        c.status(e.status as 422);
        return c.render(
          <ForgotPasswordPage
            email={typeof form.email === 'string' ? form.email : undefined}
            error={e instanceof TryLater ? e.message : (fieldErrors(e).email ?? e.message)}
          />,
          { title: 'Forgot password' },
        );
      }
      return respond(c, { message }, { title: 'Forgot password', location: '/password-reset?sent' });
    },
  );

  app.get(
    '/password-reset/:token',
    doc({
      summary: 'A password-reset link: whose account, until when',
      description: 'An expired, used or forged link is 404 (a page offering to ask again, for a browser).',
      public: true,
      path: TOKEN,
      ok: { 200: ResetLinkSchema },
      errors: [404],
    }),
    async (c) => {
      const token = c.req.param('token');
      try {
        const link = await checkResetLink(deps.store.db, token);
        return respond(c, link, {
          title: 'Choose a new password',
          view: (l) => <ResetPasswordPage token={token} email={l.email} />,
        });
      } catch (e) {
        return refused(c, e);
      }
    },
  );

  app.post(
    '/password-reset/:token',
    doc({
      summary: 'Set a new password with a reset link, and sign in',
      description:
        'Sets the session cookie (as POST /login does) and signs the account out of every other session; API tokens stay. ' +
        'The link is then used up. A browser form lands on the tickets (staff) or the portal (requesters).',
      public: true,
      path: TOKEN,
      body: ResetPasswordSchema,
      ok: { 200: UserSchema },
      errors: [404],
    }),
    async (c) => {
      const token = c.req.param('token');
      let actor;
      try {
        const body = await readBody(c, ResetPasswordSchema);
        actor = await resetPassword(deps.store.db, token, body);
      } catch (e) {
        if (e instanceof AppError && e.code === 'validation_failed' && plainForm(c)) {
          // The form again, each refused field's message next to it (the link is still good, or this says why not).
          try {
            const link = await checkResetLink(deps.store.db, token);
            c.status(422);
            return c.render(
              <ResetPasswordPage token={token} email={link.email} errors={fieldErrors(e) as ResetPasswordErrors} />,
              { title: 'Choose a new password' },
            );
          } catch (again) {
            return refused(c, again);
          }
        }
        return refused(c, e);
      }
      const session = await createSession(deps.store.db, actor.id, deps.env.SESSION_DAYS);
      // As POST /login sets it (Max-Age: the browser's own clock, decision 047).
      setCookie(c, SESSION_COOKIE, session.secret, {
        httpOnly: true,
        sameSite: 'Lax',
        secure: deps.env.production,
        path: '/',
        maxAge: deps.env.SESSION_DAYS * 86_400,
      });
      return respond(c, userJson((await getUserRow(deps.store.db, actor.id))!), {
        location: actor.role === 'requester' ? '/portal' : STAFF_LANDING,
      });
    },
  );
  return app;
}
