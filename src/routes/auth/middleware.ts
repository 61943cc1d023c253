import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { actorFromSession, actorFromToken } from '../../domain/auth.js';
import { AppError } from '../../domain/errors.js';
import type { AppEnv } from '../context.js';

export const SESSION_COOKIE = 'hxdesk_session';

/**
 * Paths reachable without signing in (SPEC B2). /mailgate has its own bearer secret; a portal
 * link (`/portal/<token>`, its reply, its files and its live updates) is its own credential, checked by the route.
 * `/portal` itself, `/portal/tickets/…`, `/portal/settings`, `/portal/new` and `/portal/requests` are for signed-in customers
 * and are not listed.
 */
const PUBLIC = [
  /^\/login$/,
  /^\/logout$/,
  /^\/password-reset(?:\/[^/]+)?$/, // forgot password: asking for a link, and the link itself (decision 056)
  /^\/healthz$/,
  /^\/static\//,
  /^\/favicon\.ico$/,
  /^\/mailgate$/,
  /^\/csat\/[^/]+$/, // SPEC D4: a rating link is its own credential (decision 082)
  /^\/portal\/(?!(?:tickets|settings|new|requests)(?:\/|$))[^/]+(?:\/reply|\/events|\/live|\/attachments\/[^/]+)?$/,
];
export const isPublicPath = (path: string) => PUBLIC.some((re) => re.test(path));

/** Resolves the actor from a bearer token or the session cookie, then requires one where needed. */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('actor', null);
    c.set('authVia', null);
    if (c.req.path === '/mailgate') return next();
    const db = c.get('deps').store.db;
    const header = c.req.header('authorization');
    if (header !== undefined) {
      const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
      const actor = token ? await actorFromToken(db, token) : null;
      if (!actor) throw new AppError('unauthenticated', 'Invalid or revoked API token');
      c.set('actor', actor);
      c.set('authVia', 'token');
    } else {
      const sid = getCookie(c, SESSION_COOKIE);
      const actor = sid ? await actorFromSession(db, sid) : null;
      if (actor) {
        c.set('actor', actor);
        c.set('authVia', 'cookie');
      }
    }
    if (!c.get('actor') && !isPublicPath(c.req.path))
      throw new AppError('unauthenticated', 'Sign in or send an API token');
    return next();
  };
}

/** What a cross-site page can send without a CORS preflight: a plain `<form>` or a simple fetch. */
const FORM_LIKE = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i;
const SAFE = /^(GET|HEAD|OPTIONS)$/;

/**
 * CSRF (SPEC B2, decision 016). Every unsafe request that rides on the session cookie — any
 * content type, JSON included — must come from our own origin (the request's, or PUBLIC_URL's).
 * Signed-out form posts are checked too (no sign-in CSRF). Bearer-token requests and /mailgate
 * carry no ambient credential a forging page could use: exempt.
 */
export function csrfProtection(extraOrigin?: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (SAFE.test(c.req.method) || c.get('authVia') === 'token' || c.req.path === '/mailgate') return next();
    if (c.get('authVia') !== 'cookie' && !FORM_LIKE.test(c.req.header('content-type') ?? 'text/plain')) return next();
    if (!sameOrigin(c.req.header('origin'), c.req.header('sec-fetch-site'), new URL(c.req.url).origin, extraOrigin)) {
      throw new AppError('forbidden', 'Cross-site request refused');
    }
    return next();
  };
}

/**
 * A real Origin must be ours. Browsers send `Origin: null` (or none) where a strict
 * Referrer-Policy hides it, but then send `Sec-Fetch-Site`, which no page can set: `same-origin`
 * passes. Neither header (curl with a cookie jar) is refused: send Origin.
 */
function sameOrigin(
  origin: string | undefined,
  fetchSite: string | undefined,
  own: string,
  extra: string | undefined,
): boolean {
  if (origin !== undefined && origin !== 'null') return origin === own || origin === extra;
  return fetchSite === 'same-origin';
}
