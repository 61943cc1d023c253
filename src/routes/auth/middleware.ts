import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { actorFromSession, actorFromToken } from '../../domain/auth.js';
import { AppError } from '../../domain/errors.js';
import type { AppEnv } from '../context.js';

export const SESSION_COOKIE = 'hxdesk_session';

/** Paths reachable without signing in (SPEC B2). /mailgate has its own bearer secret. */
const PUBLIC = [/^\/login$/, /^\/logout$/, /^\/healthz$/, /^\/static\//, /^\/favicon\.ico$/, /^\/mailgate$/];
export const isPublicPath = (path: string) => PUBLIC.some((re) => re.test(path));

/** Resolves the actor from a bearer token or the session cookie, then requires one where needed. */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('actor', null);
    c.set('authVia', null);
    if (c.req.path === '/mailgate') return next();
    const { db } = c.get('deps');
    const header = c.req.header('authorization');
    if (header !== undefined) {
      const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
      const actor = token ? actorFromToken(db, token) : null;
      if (!actor) throw new AppError('unauthenticated', 'Invalid or revoked API token');
      c.set('actor', actor);
      c.set('authVia', 'token');
    } else {
      const sid = getCookie(c, SESSION_COOKIE);
      const actor = sid ? actorFromSession(db, sid) : null;
      if (actor) { c.set('actor', actor); c.set('authVia', 'cookie'); }
    }
    if (!c.get('actor') && !isPublicPath(c.req.path)) throw new AppError('unauthenticated', 'Sign in or send an API token');
    return next();
  };
}

/**
 * CSRF (SPEC B2): unsafe requests that a browser could forge — anything not carrying a bearer
 * token — must come from our own origin (hono's Origin / Sec-Fetch-Site check).
 */
export function csrfProtection(extraOrigin?: string): MiddlewareHandler<AppEnv> {
  const check = csrf({ origin: (origin, c) => origin === new URL(c.req.url).origin || origin === extraOrigin });
  return async (c, next) => {
    if (c.get('authVia') === 'token' || c.req.path === '/mailgate') return next();
    try {
      return await check(c, next);
    } catch (e) {
      if (e instanceof HTTPException && e.status === 403) throw new AppError('forbidden', 'Cross-site request refused');
      throw e;
    }
  };
}
