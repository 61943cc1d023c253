import { Hono } from 'hono';
import { STAFF_LANDING } from '../../domain/tickets/builtinLists.js';
import { getConnInfo } from '@hono/node-server/conninfo';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import { documented } from '../openapi.js';
import { UserSchema } from '../users/schemas.js';
import { HealthQuery, HealthSchema, LoginSchema, NewTokenSchema, TokenJsonSchema, TokenSchema } from './schemas.js';
import {
  authenticate as checkPassword,
  createSession,
  createToken,
  deleteToken,
  destroySession,
  listTokens,
} from '../../domain/auth.js';
import { AppError } from '../../domain/errors.js';
import { clearThrottle, countAttempt, throttleKey } from '../../domain/throttle.js';
import { getUserRow, normalizeEmail, userJson } from '../../domain/users.js';
import { storeProblem, storeStorageProblem } from '../../db/port.js';
import { healthDetails } from '../../domain/health.js';
import { LoginPage } from '../../views/pages.js';
import type { AppEnv, Deps } from '../context.js';
import {
  actorOf,
  dbOf,
  isHtmx,
  noContent,
  pathId,
  queryObject,
  readBody,
  respond,
  validate,
  wantsHtml,
} from '../respond.js';
import { SESSION_COOKIE } from './middleware.js';
import { passwordResetRoutes } from './passwordReset.js';

const doc = documented('Sign-in and tokens');

/**
 * Only same-site paths are followed after signing in (no open redirect). Control characters are
 * refused too: browsers drop tabs and newlines from URLs ("/\t/evil" becomes "//evil"), and CR/LF
 * cannot go into a Location header at all.
 */
const safeNext = (next: string | undefined, role?: string) =>
  next && /^\/(?![/\\])[^\x00-\x1f\x7f]*$/.test(next) ? next : role === 'requester' ? '/portal' : STAFF_LANDING;

export function authRoutes(deps: Deps) {
  const app = new Hono<AppEnv>();
  // The brakes are counted in the database (domain/throttle.ts), so every process serving it
  // shares them and a restart does not lift them.
  const window = 15 * 60;

  app.get(
    '/healthz',
    documented('Operations')({
      summary: 'Is the server ready',
      description:
        '503 while the database is unreachable or cannot write. With verbose=1, an administrator also sees the units of work run again after a conflict, per operation.',
      public: true,
      query: HealthQuery,
      ok: { 200: HealthSchema },
      errors: [503],
    }),
    async (c) => {
      const query = validate(HealthQuery, queryObject(c));
      const problem = await storeProblem(dbOf(c));
      if (problem) {
        deps.log('error', 'health check failed', { problem }); // with the request's id, as every line of a request (routes/access.ts)
        throw new AppError('unavailable', `Not ready: ${problem}`);
      }
      // Decision 042: while writes fail for lack of storage the server is not healthy, though it reads.
      const storage = await storeStorageProblem(dbOf(c));
      if (storage)
        throw new AppError('storage_unavailable', `Not ready: writes fail, ${storage.summary}`, undefined, {
          cause: storage.storage,
        });
      return c.json({ ok: true, ...(query.verbose === '1' ? healthDetails(dbOf(c), c.get('actor')) : undefined) });
    },
  );

  app.get(
    '/login',
    doc({ summary: 'How to sign in', public: true, ok: { 200: z.strictObject({ login: z.string() }) } }),
    (c) => {
      if (c.get('actor') && wantsHtml(c)) return c.redirect(safeNext(c.req.query('next'), c.get('actor')?.role), 303);
      return respond(
        c,
        { login: 'POST /login with { email, password }' },
        {
          title: 'Sign in',
          view: () => <LoginPage next={c.req.query('next')} />,
        },
      );
    },
  );

  app.post(
    '/login',
    doc({
      summary: 'Sign in',
      description: 'Sets the HttpOnly session cookie. Attempts are braked per address and per account (429).',
      public: true,
      body: LoginSchema,
      ok: { 200: UserSchema },
      errors: [401, 429],
    }),
    async (c) => {
      const body = await readBody(c, LoginSchema);
      const email = normalizeEmail(body.email);
      let ip = 'unknown';
      try {
        ip = getConnInfo(c).remote.address ?? 'unknown';
      } catch {
        /* not a node socket */
      }
      const tooMany = new AppError('rate_limited', 'Too many sign-in attempts; try again later');
      if (!(await countAttempt(deps.store.db, throttleKey.ip(ip), deps.env.LOGIN_MAX_ATTEMPTS_PER_IP, window)).allowed)
        throw tooMany;
      // The attempt is counted against the account before the ~100 ms password hash, not after a
      // failure: otherwise every guess sent at once passes the check while the count is still 0.
      // A success clears the count (below); a failure keeps it.
      if (!(await countAttempt(deps.store.db, throttleKey.login(email), deps.env.LOGIN_MAX_FAILURES, window)).allowed)
        throw tooMany;
      let actor;
      try {
        actor = await checkPassword(deps.store.db, email, body.password);
      } catch (e) {
        if (e instanceof AppError && wantsHtml(c) && !isHtmx(c)) {
          c.status(401);
          return c.render(<LoginPage error="Invalid email or password" email={body.email} next={body.next} />, {
            title: 'Sign in',
          });
        }
        throw e;
      }
      await clearThrottle(deps.store.db, throttleKey.login(email));
      const session = await createSession(deps.store.db, actor.id, deps.env.SESSION_DAYS);
      // Max-Age, not Expires: the browser counts it on its own real clock, which need not be the
      // server's (a test clock, decision 047); the session row expires by the server's.
      setCookie(c, SESSION_COOKIE, session.secret, {
        httpOnly: true,
        sameSite: 'Lax',
        secure: deps.env.production,
        path: '/',
        maxAge: deps.env.SESSION_DAYS * 86_400,
      });
      return respond(c, userJson((await getUserRow(deps.store.db, actor.id))!), {
        location: safeNext(body.next, actor.role),
      });
    },
  );

  app.route('/', passwordResetRoutes(deps)); // forgot password (decision 056)

  app.post('/logout', doc({ summary: 'Sign out', public: true, ok: { 204: null } }), async (c) => {
    const sid = getCookie(c, SESSION_COOKIE);
    if (sid) await destroySession(deps.store.db, sid);
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: deps.env.production });
    return noContent(c, '/login');
  });

  app.get('/me', doc({ summary: 'Who you are', ok: { 200: UserSchema } }), async (c) =>
    respond(c, userJson((await getUserRow(deps.store.db, actorOf(c).id))!), { title: 'Me' }),
  );

  app.get(
    '/tokens',
    doc({ summary: 'Your API tokens', ok: { 200: z.strictObject({ tokens: z.array(TokenJsonSchema) }) } }),
    async (c) => respond(c, { tokens: await listTokens(dbOf(c), actorOf(c)) }, { title: 'API tokens' }),
  );
  app.post(
    '/tokens',
    doc({ summary: 'Create an API token', body: TokenSchema, ok: { 201: NewTokenSchema } }),
    async (c) => {
      const body = await readBody(c, TokenSchema);
      return respond(c, createToken(dbOf(c), actorOf(c), body.name), { status: 201, title: 'New API token' });
    },
  );
  app.delete('/tokens/:id', doc({ summary: 'Revoke an API token', ok: { 204: null } }), async (c) => {
    await deleteToken(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/tokens');
  });
  return app;
}
