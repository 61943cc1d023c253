import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { isStaff, type Actor } from '../../domain/actor.js';
import { actorFromSession, actorFromToken } from '../../domain/auth.js';
import { AppError } from '../../domain/errors.js';
import { getTicket } from '../../domain/tickets/read.js';
import { TooManyStreams, type StreamSpec } from '../../events/hub.js';
import { PresenceWho } from '../../views/live.js';
import { SESSION_COOKIE } from '../auth/middleware.js';
import type { AppEnv } from '../context.js';
import { actorOf, dbOf, validate } from '../respond.js';
import { documented } from '../openapi.js';

// GET /events (SPEC C5): one server-sent event stream per tab, carrying what its reader may see.
// Messages (docs/decisions/037):
//   event: ticket       data: {"id","ticket_id","types"}   a ticket changed (every page's lists)
//   event: ticket-<id>  the same, named for the ticket page that listens for that ticket only
//   event: presence     data: HTML                         who else is on this ticket page
//   event: reset        the stream fell too far behind: load the live parts again
// Every ticket message has the id of its last log entry: a reconnecting browser sends it back as
// Last-Event-ID (or, from a new EventSource, as `?after=`) and is caught up from the log.

type C = Context<AppEnv>;

const zId = z.coerce
  .number({ error: 'Expected a positive whole number' })
  .int('Expected a positive whole number')
  .positive('Expected a positive whole number')
  .max(Number.MAX_SAFE_INTEGER);
export const EventsQuerySchema = z.strictObject({
  /** The ticket page this stream belongs to (presence). */
  ticket: zId.optional(),
  /** The last event id seen, when a new connection cannot send Last-Event-ID. */
  after: z.coerce
    .number({ error: 'Expected a whole number' })
    .int('Expected a whole number')
    .min(0, 'Expected a whole number')
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
});

/** Last-Event-ID when the browser sent a usable one, else `?after=`. */
function lastEventId(c: C, after: number | undefined): number | undefined {
  const h = c.req.header('last-event-id');
  return h !== undefined && /^\d{1,15}$/.test(h.trim()) ? Number(h.trim()) : after;
}

/** Whether the credential the stream was opened with still signs someone in (checked with each heartbeat). */
export function stillSignedIn(c: C): () => Promise<boolean> {
  const db = dbOf(c);
  const header = c.req.header('authorization');
  const token = header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  const sid = getCookie(c, SESSION_COOKIE);
  return async () => (token ? await actorFromToken(db, token) : sid ? await actorFromSession(db, sid) : null) !== null;
}

/**
 * Answers a live stream for `spec` (the routes decide who reads what). `recheck` says whether the
 * reader may still read; a heartbeat that finds them signed out ends the stream.
 */
export function liveStream(c: C, spec: StreamSpec, recheck: () => Promise<boolean>): Response | Promise<Response> {
  const { hub, env } = c.get('deps');
  if (!hub) throw new AppError('unavailable', 'Live updates are not running');
  try {
    hub.admit(spec);
  } catch (e) {
    if (e instanceof TooManyStreams) throw new AppError('rate_limited', e.message);
    throw e;
  }
  return streamSSE(c, async (stream) => {
    let ended!: () => void;
    const done = new Promise<void>((r) => {
      ended = r;
    });
    // Writes go out in order; a write to a closed connection is nothing to report.
    let writing: Promise<void> = Promise.resolve();
    const send = (m: { event: string; data: string; id?: string; retry?: number }) => {
      if (stream.aborted || stream.closed) return;
      writing = writing.then(() => stream.writeSSE(m)).catch(() => ended());
    };
    const ping = () => {
      if (stream.aborted || stream.closed) return;
      writing = writing
        .then(async () => {
          if (!(await recheck().catch(() => true))) {
            ended();
            return;
          }
          await stream.write(': ping\n\n');
        })
        .catch(() => ended());
    };
    stream.onAbort(() => ended());
    let handle: { close(): void };
    try {
      send({ event: 'hello', data: '', retry: env.EVENTS_RETRY_MS });
      handle = await hub.open(spec, {
        event: (e) => {
          const data = JSON.stringify(e);
          send({ event: 'ticket', data, id: String(e.id) });
          send({ event: `ticket-${e.ticket_id}`, data, id: String(e.id) });
        },
        presence: (_ticketId, viewers) => send({ event: 'presence', data: String(<PresenceWho viewers={viewers} />) }),
        reset: () => send({ event: 'reset', data: '' }),
        ping,
      });
    } catch (e) {
      if (!(e instanceof TooManyStreams)) throw e;
      // Another tab took the last place meanwhile: said on the stream, which then ends.
      send({ event: 'refused', data: e.message });
      await writing;
      return;
    }
    await done;
    handle.close();
  });
}

export function eventRoutes() {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    documented('Live updates')({
      summary: 'The live-update stream',
      description:
        "Server-sent events: `ticket` (and `ticket-<id>`) with `{ id, ticket_id, types }` when a ticket you may see changes, `presence` on a ticket page's stream, `reset` when the stream fell behind. A reconnect sends `Last-Event-ID` (or `after`) and is caught up.",
      query: EventsQuerySchema,
      ok: { 200: { media: 'text/event-stream', description: 'The stream', schema: { type: 'string' } } },
      errors: [404, 429, 503],
    }),
    async (c) => {
      const q = validate(EventsQuerySchema, c.req.query());
      const actor: Actor = actorOf(c);
      // A ticket page's stream: the ticket must be one the reader may see (404 otherwise).
      if (q.ticket !== undefined) await getTicket(dbOf(c), actor, q.ticket);
      return liveStream(
        c,
        {
          user: { id: actor.id, name: actor.name || actor.email },
          staff: isStaff(actor),
          ticketId: q.ticket,
          after: lastEventId(c, q.after),
        },
        stillSignedIn(c),
      );
    },
  );
  return app;
}
