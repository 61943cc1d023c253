import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { storageUnavailable } from '../db/port.js';
import { AppError, detailsInWords, ERROR_STATUS, type ErrorCode, summaryOf, TryLater } from '../domain/errors.js';
import { uniqueConflict } from '../domain/unique.js';
import { type Logger, throttled, type Throttled } from '../log.js';
import { withSourceFiles } from '../stackSource.js';
import { ErrorView, InlineError } from '../views/pages.js';
import type { AppEnv } from './context.js';
import { isHtmx, wantsHtml } from './respond.js';
import { TransactionSchema } from './tickets/schemas.js';

/** SPEC B5: every JSON error, whichever route answers it (the document's `Error`). */
export const ErrorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    details: z
      .array(
        z.strictObject({
          path: z.string(),
          message: z.string(),
          allowed: z.array(z.string()).optional().describe('SPEC D3: the statuses the ticket may move to'),
        }),
      )
      .optional()
      .describe('`validation_failed`: each refused field'),
    transactions: z
      .array(TransactionSchema)
      .optional()
      .describe('`stale`: the entries that came in since the writer loaded the ticket'),
    cause: z.string().optional().describe('`storage_unavailable` on /healthz: what cannot be written'),
    open_dependencies: z
      .array(z.strictObject({ id: z.number().int(), subject: z.string(), status: z.string() }))
      .optional()
      .describe('SPEC D3 `conflict`: the tickets a ticket moved to an inactive status depends on that are not done'),
    merged_into: z
      .number()
      .int()
      .optional()
      .describe('`conflict` on a change to a merged ticket: the ticket it was merged into (SPEC D3)'),
  }),
});

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_json',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  410: 'gone',
  413: 'too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  503: 'unavailable',
};

/** Seconds a client is asked to wait when the store cannot write (decision 042). */
export const STORAGE_RETRY_AFTER = 30;

/** Per logger, the requests refused for lack of storage: one line per cause every 10 s, not one per request. */
const storageLines = new WeakMap<Logger, Throttled>();

/**
 * SPEC D6: every refused field said in words with its label, whoever built the error; a
 * validation error's message is what its details say ("Priority must be between 0 and 100"), not
 * "Invalid priority".
 */
export function inWordsError(e: AppError): AppError {
  if (!e.details?.length) return e;
  const details = detailsInWords(e.details);
  const message = e.code === 'validation_failed' && /^Invalid /.test(e.message) ? summaryOf(details) : e.message;
  const out = new AppError(e.code, message, details, e.extra);
  return out;
}

/**
 * Maps anything thrown to SPEC B5's error; unknown errors are logged and become a bare 500. The
 * one place an answer learns when to come back (Retry-After), whichever page renders it.
 */
export function toAppError(err: unknown, c: Context<AppEnv>): AppError {
  const e = mapError(err, c);
  const retryAfter =
    e instanceof TryLater
      ? e.retryAfterSec
      : e.code === 'storage_unavailable'
        ? STORAGE_RETRY_AFTER
        : e.code === 'rate_limited'
          ? 900
          : undefined;
  if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
  return e;
}

function mapError(err: unknown, c: Context<AppEnv>): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HTTPException) {
    const code = CODE_BY_STATUS[err.status] ?? 'internal';
    return new AppError(
      code,
      code === 'forbidden' ? 'Cross-site request refused' : err.message || code.replaceAll('_', ' '),
    );
  }
  // The app's store reads its own driver's errors (decision 065).
  const { log, env, store } = c.get('deps');
  const taken = uniqueConflict(store.db, err); // a unique index no domain function expected to meet: still a 409 naming the field
  if (taken) return taken;
  // Decision 042: a full disk or a read-only store is an outage of the machine, said out loud
  // (503, /healthz, one log line per cause every 10 s), never a 500 with a stack trace.
  const storage = storageUnavailable(store.db, err);
  if (storage) {
    let say = storageLines.get(log);
    if (!say) storageLines.set(log, (say = throttled(log)));
    say(`request:${storage.storage}`, 'error', `writes refused: ${storage.message}`, {
      cause: storage.storage,
      method: c.req.method,
      path: c.req.path,
    });
    return new AppError(
      'storage_unavailable',
      `The server cannot store changes right now: ${storage.summary}. Try again later.`,
    );
  }
  if (clientGone(err, c)) {
    // The client hung up mid-body, or the server's request timeout cut it off (Node has answered
    // 408 already): nobody reads this answer, and it is no fault of ours.
    log('debug', 'request body cut off', { method: c.req.method, path: c.req.path });
    return new AppError('invalid_json', 'The request body was cut off');
  }
  const id = requestId(c);
  log('error', 'unhandled error', {
    method: c.req.method,
    path: c.req.path,
    error: withCause(err),
    stack: withSourceFiles((err as Error)?.stack),
  });
  return new AppError(
    'internal',
    env.production
      ? `Internal server error (request ${id})`
      : `Internal server error (request ${id}): ${withCause(err)}`,
  );
}

/** An error and what caused it (on PostgreSQL the failed query says which statement, its cause why). */
function withCause(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  return cause instanceof Error ? `${String(err)}\ncaused by: ${String(cause)}` : String(err);
}

/**
 * The id that ties a request's log lines to what its client saw (given by routes/access.ts: the
 * proxy's `X-Request-Id` when it sends a sane one, else a new one; answered in `X-Request-Id`).
 */
export const requestId = (c: Context<AppEnv>): string => c.get('requestId');

/** Node aborts a request's body stream with ECONNRESET ("aborted") when its connection closes. */
function clientGone(err: unknown, c: Context<AppEnv>): boolean {
  const incoming = (c.env as { incoming?: { aborted?: boolean; destroyed?: boolean } } | undefined)?.incoming;
  return (err as NodeJS.ErrnoException | null)?.code === 'ECONNRESET' || incoming?.aborted === true;
}

export function renderError(c: Context<AppEnv>, err: AppError): Response | Promise<Response> {
  const e = inWordsError(err);
  if (!wantsHtml(c)) {
    const body: z.input<typeof ErrorBodySchema> = {
      error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}), ...e.extra },
    };
    return c.json(body, e.status as 400);
  }
  if (e.code === 'unauthenticated') {
    const next = c.req.method === 'GET' ? `?next=${encodeURIComponent(c.req.path + new URL(c.req.url).search)}` : '';
    if (isHtmx(c)) {
      c.header('HX-Redirect', `/login${next}`);
      return c.body(null, 401);
    }
    return c.redirect(`/login${next}`, 303);
  }
  if (isHtmx(c)) return c.html(<InlineError message={e.message} details={e.details} />, e.status as 400);
  const view = <ErrorView status={e.status} code={e.code} message={e.message} details={e.details} />;
  c.status(e.status as 400);
  return c.render(view, { title: `${e.status}` });
}
