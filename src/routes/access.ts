import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import { type Logger, withRequestId } from '../log.js';
import type { AppEnv, Redispatch } from './context.js';

/**
 * A request id a proxy sends is kept when it is sane: 1 to 128 characters of letters, digits and
 * `_ . : -` (no spaces, no control characters: it goes into log lines and a response header).
 */
const SANE_ID = /^[\w.:-]{1,128}$/;

/** Where a re-dispatched request finds its outer request's record, in the server's bindings (`c.env`). */
export const REDISPATCH = Symbol('hxdesk.redispatch');

/**
 * The route a request was for, as registered (`/tickets/:id`), never its path or query (which can
 * hold a portal link's token or search words): the handler that answered, or, when a middleware
 * answered first (401, 403, 413), the route the request matched; null when none did (404).
 */
function routeOf(c: Context): string | null {
  const wild = (p: string) => p === '*' || p === '/*';
  const answered = routePath(c);
  if (answered && !wild(answered)) return answered;
  return (
    matchedRoutes(c)
      .map((r) => r.path)
      .find((p) => !wild(p)) ?? null
  );
}

/**
 * docs/decisions/044: gives each request its id (the proxy's `X-Request-Id` when sane, else a new
 * one), which every line logged while serving it carries and which every answer returns in
 * `X-Request-Id`; then writes one line for the request at level `info` — in production a JSON line
 * with the request id, method, route, status, duration in ms and user id (null: nobody signed in);
 * in development a readable one. A live stream's line is written when it opens.
 */
export function accessLog(log: Logger, opts: { json: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const outer = (c.env as Record<symbol, Redispatch> | undefined)?.[REDISPATCH];
    if (outer) {
      // The same request, dispatched again with its form's method: its line is the outer one's.
      c.set('requestId', outer.id);
      await next();
      Object.assign(outer, { method: c.req.method, route: routeOf(c), userId: c.get('actor')?.id ?? null });
      return;
    }
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const id = given !== undefined && SANE_ID.test(given) ? given : randomUUID();
    c.set('requestId', id);
    await withRequestId(id, next);
    // On the response's own headers (as Vary is): c.header() on a finished response rebuilds it.
    c.res.headers.set('X-Request-Id', id);
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const re = c.get('redispatched');
    const method = c.req.method;
    const route = re ? (re.route ?? null) : routeOf(c);
    const stream = (c.res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (!opts.json) {
      log(
        'info',
        `${method}${re?.method ? `(${re.method})` : ''} ${c.req.path} ${c.res.status} ${ms}ms${stream ? ' (stream opened)' : ''}`,
      );
      return;
    }
    log('info', 'request', {
      request_id: id,
      method,
      ...(re?.method ? { method_override: re.method } : {}),
      route,
      status: c.res.status,
      duration_ms: ms,
      user_id: (re ? re.userId : c.get('actor')?.id) ?? null,
      ...(stream ? { stream: true } : {}),
    });
  };
}
