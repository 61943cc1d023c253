import type { Context, Hono, Next } from 'hono';
import { invalid } from '../domain/errors.js';
import { REDISPATCH } from './access.js';
import type { Redispatch } from './context.js';
import type { AppEnv } from './context.js';
import { readForm } from './respond.js';

/** The methods a plain HTML form may ask for with `_method` (it can only send GET and POST). */
const OVERRIDABLE = ['PATCH', 'PUT', 'DELETE'];

/**
 * `_method=PATCH|PUT|DELETE` in a form POST re-dispatches the request with that method and the
 * same body (readBody drops the field). Anything else is 422 naming `_method`: TRACE, CONNECT or
 * `a b` are not methods a route answers (and Node refuses to build such requests at all), GET
 * would turn a write into a read, and `POST` is simply the request as sent. hono's own
 * methodOverride would also re-encode an urlencoded body with repeated fields collapsed.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: hono's `next()` resolves to void; a handler answers a Response or nothing
export async function methodOverride(app: Hono<AppEnv>, c: Context<AppEnv>, next: Next): Promise<Response | void> {
  const field = (await readForm(c))._method;
  if (field === undefined || field === '') return next(); // an empty field asks for nothing
  const method = typeof field === 'string' ? field.trim().toUpperCase() : '';
  if (method === 'POST') return next();
  if (!OVERRIDABLE.includes(method)) throw invalid('_method', `Expected ${OVERRIDABLE.join(', ')} or POST`);
  const body = await c.req.arrayBuffer(); // already read (and cached) by readForm
  // Still the same request: one id, one access line (the outer one, told the inner's route and user).
  const record: Redispatch = { id: c.get('requestId') };
  c.set('redispatched', record);
  return app.fetch(new Request(c.req.url, { method, headers: c.req.raw.headers, body }), {
    ...(c.env as object),
    [REDISPATCH]: record,
  });
}
