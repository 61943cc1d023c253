import { IncomingMessage } from 'node:http';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { type Actor, requireAdmin, requireStaff } from '../domain/actor.js';
import { nowMs } from '../domain/clock.js';
import { AppError, detailsInWords, summaryOf } from '../domain/errors.js';
import { zId, zodDetails } from '../domain/validation.js';
import { DataPage } from '../views/data.js';
import { Now, TimeZone } from '../views/format.js';
import type { AppEnv } from './context.js';
import { multipartParts } from './multipart.js';

type C = Context<AppEnv>;

// SPEC B1: JSON unless the request is htmx (`HX-Request: true`) or a browser navigation
// (`Accept` includes text/html). htmx gets the bare component, navigation the full page.

/** An htmx request for a fragment. A boosted link or form (`HX-Boosted`) is a navigation: full page. */
export const isHtmx = (c: C) => c.req.header('hx-request') === 'true' && c.req.header('hx-boosted') !== 'true';
export const wantsHtml = (c: C) =>
  c.req.header('hx-request') === 'true' || (c.req.header('accept') ?? '').includes('text/html');

export interface RespondOptions<T> {
  status?: ContentfulStatusCode;
  title?: string;
  /** The component for the HTML representation; a plain escaped data view when absent. */
  view?: (data: T) => JSX.Element;
  /** Where a plain (non-htmx) form post should land afterwards: POST + redirect. */
  location?: string;
}

/** Content rendered for the signed-in reader: times in their time zone (UTC for nobody), relative to the store's clock. */
export const inZone = (c: C, content: JSX.Element) => (
  <TimeZone.Provider value={c.get('actor')?.timezone ?? 'UTC'}>
    <Now.Provider value={nowMs(c.get('deps').store.db)}>{content}</Now.Provider>
  </TimeZone.Provider>
);

export async function respond<T>(c: C, answer: T | Promise<T>, opts: RespondOptions<T> = {}): Promise<Response> {
  const data = await answer;
  const status = opts.status ?? 200;
  if (!wantsHtml(c)) return c.json(data as object, status);
  if (opts.location && !isHtmx(c) && c.req.method !== 'GET') return c.redirect(opts.location, 303);
  const content = opts.view ? await opts.view(data) : <DataPage value={data} />;
  if (isHtmx(c)) return c.html(inZone(c, content), status);
  c.status(status);
  return c.render(content, { title: opts.title });
}

/** 204 for API clients; a plain form post is redirected to `location`; htmx is sent there too. */
export function noContent(c: C, location: string): Response {
  if (!wantsHtml(c)) return c.body(null, 204);
  if (isHtmx(c)) {
    c.header('HX-Redirect', location);
    return c.body('', 200);
  }
  return c.redirect(location, 303);
}

const mediaType = (c: C) => (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();

/** Form field names nest by dots (`custom_fields.size`); ours go three deep, so eight is plenty. */
export const MAX_FIELD_DEPTH = 8;
type Form = Record<string, string | File | (string | File)[] | Record<string, unknown>>;

/** Files one form may carry, as JSON's `attachments` (SPEC C4); a portal reply takes fewer (app.tsx). */
export const MAX_FORM_FILES = 100;

/** Too many files, in the words JSON's schema uses for `attachments`. */
const tooManyFiles = (field: string, max: number) =>
  new AppError('validation_failed', `Invalid ${field}`, [{ path: field, message: `At most ${max} files` }]);

/**
 * The body's chunks as they come. From the Node request underneath when nothing has touched its
 * body and its length was declared (so app.tsx checked it against the limit from the header):
 * hono's Node adapter hands the body on as a web stream, which copies every chunk (decision
 * 061). Else through that stream. Leaving the loop early leaves the rest unread, not destroyed
 * (the answer still goes out on the connection).
 */
function bodyChunks(c: C): AsyncIterable<Uint8Array> | null {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (
    incoming instanceof IncomingMessage &&
    !incoming.readableDidRead &&
    incoming.readableFlowing === null &&
    c.req.header('content-length') !== undefined &&
    c.req.header('transfer-encoding') === undefined
  ) {
    return { [Symbol.asyncIterator]: () => incoming.iterator({ destroyOnReturn: false }) };
  }
  const raw = c.req.raw.body;
  if (!raw || raw.locked) return null;
  return {
    async *[Symbol.asyncIterator]() {
      const reader = raw.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        reader.releaseLock();
      }
    },
  };
}

/**
 * Reads a multipart body into hono's body cache (where parseBody and methodOverride find it),
 * taking it apart as the bytes come in (busboy, ./multipart.ts): its fields and files go into
 * the cache as the form parseBody reads, each file kept as the chunks it came in, so a large
 * upload is never copied or parsed in one long synchronous step (SPEC D1, decision 061). At
 * file `maxFiles + 1` the body is refused (422, the rest never read — the connection is closed
 * after the answer). Read once: a second call finds the body read already. What busboy cannot
 * read for sure (a malformed body) is left to hono's parser, which says what is wrong with it.
 */
export async function readMultipart(c: C, maxFiles: number): Promise<void> {
  if (Object.keys(c.req.bodyCache).length > 0) return;
  const body = bodyChunks(c);
  if (!body) return;
  const parts = multipartParts(c.req.header('content-type') ?? '', maxFiles);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const value of body) {
    chunks.push(value);
    size += value.length;
    parts.write(value);
    const refused = parts.refused();
    if (refused !== undefined) {
      c.header('Connection', 'close');
      throw tooManyFiles(refused, maxFiles); // leaving the loop leaves the rest of the body unread
    }
  }
  const form = await parts.end();
  // The raw body, joined only if someone asks for it (methodOverride re-dispatching a plain form).
  let whole: Promise<ArrayBuffer> | undefined;
  const joined = () => {
    const body = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      body.set(chunk, at);
      at += chunk.length;
    }
    return body.buffer;
  };
  // What hono itself keeps there are promises of the body (its type says the body).
  Object.defineProperty(c.req.bodyCache, 'arrayBuffer', {
    enumerable: true,
    configurable: true,
    get: () => (whole ??= Promise.resolve().then(joined)),
  });
  if (form) (c.req.bodyCache as { formData?: Promise<FormData> }).formData = Promise.resolve(form);
}

/**
 * A form body (urlencoded or multipart), repeated fields as arrays and dotted names nested, as
 * hono's parseBody reads it (and caches: reading it twice parses once). What it cannot read is a
 * 4xx, never a 500: a multipart type without a boundary is 415, a body that does not parse 400,
 * names nested deeper than MAX_FIELD_DEPTH (or too many nested objects) 422, more than
 * MAX_FORM_FILES files 422 (counted before they are parsed: readMultipart).
 */
export async function readForm(c: C): Promise<Form> {
  if (
    mediaType(c) === 'multipart/form-data' &&
    !/;\s*boundary=(?:"[^"]+"|[^;\s]+)/i.test(c.req.header('content-type') ?? '')
  ) {
    throw new AppError('unsupported_media_type', 'multipart/form-data needs a boundary parameter');
  }
  let flat: Record<string, unknown>;
  try {
    if (mediaType(c) === 'multipart/form-data') await readMultipart(c, MAX_FORM_FILES);
    flat = await c.req.parseBody({ all: true });
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError('invalid_json', `The request body is not valid ${mediaType(c)}`);
  }
  const deep = Object.keys(flat).find((k) => k.split('.', MAX_FIELD_DEPTH + 1).length > MAX_FIELD_DEPTH);
  const tooDeep = (name: string) =>
    new AppError('validation_failed', `Field names may nest at most ${MAX_FIELD_DEPTH} levels`, [
      {
        path: name.length > 100 ? `${name.slice(0, 100)}…` : name,
        message: `At most ${MAX_FIELD_DEPTH} dot-separated parts`,
      },
    ]);
  if (deep !== undefined) throw tooDeep(deep);
  try {
    return (await c.req.parseBody({ all: true, dot: true })) as Form;
  } catch {
    throw tooDeep('(body)'); // hono's own cap on the number of nested objects
  }
}

/** Reads a JSON or form body and validates it with the one schema for both. */
export async function readBody<S extends z.ZodType>(c: C, schema: S): Promise<z.infer<S>> {
  const type = mediaType(c);
  let raw: unknown;
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') {
    const form = await readForm(c);
    // `_method` is the plain-form override (see app.tsx); htmx sends the real method and the field along.
    raw = Object.fromEntries(Object.entries(form).filter(([k, v]) => !(v instanceof File) && k !== '_method'));
  } else if (type === '' || type === 'application/json' || type.endsWith('+json')) {
    const text = await c.req.text();
    if (text.trim() === '') raw = {};
    else {
      try {
        raw = JSON.parse(text);
      } catch {
        throw new AppError('invalid_json', 'The request body is not valid JSON');
      }
    }
  } else {
    throw new AppError('unsupported_media_type', `Send application/json or form data, not ${type}`);
  }
  return validate(schema, raw);
}

export function validate<S extends z.ZodType>(schema: S, raw: unknown, prefix = ''): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const details = detailsInWords(zodDetails(parsed.error, prefix));
    throw new AppError('validation_failed', summaryOf(details), details);
  }
  const nul = nulPaths(parsed.data, prefix);
  if (nul.length > 0) {
    throw new AppError(
      'validation_failed',
      `Invalid ${nul.join(', ')}`,
      nul.map((path) => ({ path, message: 'Must not contain NUL characters' })),
    );
  }
  return parsed.data;
}

/**
 * Where accepted input still holds a NUL character: it means nothing in any text we keep, and
 * PostgreSQL's text cannot hold one (SQLite's can), so both stores refuse it alike, as a 422
 * naming the field (fields with a stricter rule of their own, like `q`, say theirs first).
 */
function nulPaths(v: unknown, path: string): string[] {
  if (typeof v === 'string') return v.includes('\0') ? [path || '(body)'] : [];
  if (Array.isArray(v)) return v.flatMap((x, i) => nulPaths(x, path ? `${path}.${i}` : String(i)));
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.entries(v).flatMap(([k, x]) => [
      ...(k.includes('\0') ? [path ? `${path}.${k}` : k] : []),
      ...nulPaths(x, path ? `${path}.${k}` : k),
    ]);
  }
  return [];
}

/** The query string as an object: a repeated parameter becomes an array. */
export function queryObject(c: C): Record<string, string | string[]> {
  const all = c.req.queries();
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
}

/** A path id; anything but a positive integer is simply not found (SPEC B5: never a 500). */
export function pathId(c: C, name = 'id'): number {
  const parsed = zId.safeParse(c.req.param(name));
  if (!parsed.success)
    throw new AppError('not_found', `No such ${name === 'id' ? 'resource' : name}: ${c.req.param(name)}`);
  return parsed.data;
}

/** The signed-in actor; the auth middleware guarantees one on every non-public route. */
export function actorOf(c: C): Actor {
  const actor = c.get('actor');
  if (!actor) throw new AppError('unauthenticated', 'Sign in or send an API token');
  return actor;
}

export const staffOf = (c: C): Actor => {
  const a = actorOf(c);
  requireStaff(a);
  return a;
};
export const adminOf = (c: C): Actor => {
  const a = actorOf(c);
  requireAdmin(a);
  return a;
};
export const dbOf = (c: C) => c.get('deps').store.db;
/** The app's notification settings (its URL, sender, portal key), for the domain calls that notify. */
export const notifyOf = (c: C) => c.get('deps').settings!.notify;

/**
 * An admin-area screen. The JSON behind it may be open to agents (they read users and teams to
 * pick owners), but the screen itself is the admin area: 403 for everyone else.
 */
export const adminScreen = (c: C, render: () => JSX.Element) => () => {
  requireAdmin(actorOf(c));
  return render();
};
