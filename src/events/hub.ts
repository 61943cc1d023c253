import { and, asc, gt, inArray, lte } from 'drizzle-orm';
import { broadcast, type Db, listenStore, logHorizon, type StoreSignal } from '../db/port.js';
import { tickets, ticketWatchers, transactions } from '../db/tables.js';
import { outsideRequest } from '../log.js';
import { startPresence, type Viewer } from './presence.js';

// The live-update bus (SPEC C5, docs/decisions/037). The change log is the `transactions` table:
// every change of a ticket appends to it in its unit of work, and the store signals once that
// has committed (in this process on SQLite, from any process through LISTEN/NOTIFY on
// PostgreSQL). The hub then reads what is new, once for all streams, and hands each stream its
// reader's share: staff see every ticket; a customer only their own tickets' public entries.
// An event's id is the id of its last log entry, so a stream that comes back with
// Last-Event-ID is caught up from the log itself: nothing lost, nothing twice.
//
// Presence (who is viewing a ticket, who is typing a reply) is not stored: ./presence.ts.

/** What a stream is told: these entries of the change log on one ticket (the reader may see them). */
export interface LiveEvent {
  id: number;
  ticket_id: number;
  types: string[];
}
export type { Viewer } from './presence.js';

/** Where a stream's messages go (the SSE route writes them). */
export interface StreamSink {
  event(e: LiveEvent): void;
  /** Who else is on the ticket page this stream shows (the reader left out). */
  presence(ticketId: number, viewers: Viewer[]): void;
  /** The stream fell too far behind to be caught up: the page should load its live parts again. */
  reset(): void;
  /** A heartbeat, so proxies and the browser see the connection alive. */
  ping(): void;
}

export interface StreamSpec {
  user: { id: number; name: string };
  /** Staff see every ticket and every entry; customers their own tickets' public entries. */
  staff: boolean;
  /** The ticket page this stream belongs to: the reader is counted as viewing it (staff). */
  ticketId?: number;
  /** Only this ticket's events (a portal page opened through a signed link). */
  onlyTicket?: number;
  /** The last event id the client had (Last-Event-ID): what came after it is sent first. */
  after?: number;
}

export interface HubOptions {
  /** Which entries a customer sees (the portal's public types). */
  customerSees: (type: string) => boolean;
  heartbeatMs: number;
  maxStreamsPerUser: number;
  /** Streams in all; customers' streams (requesters and portal links) hold at most a fifth of them. */
  maxStreams: number;
  /** How long a typing ping counts. */
  typingMs?: number;
  /** How often each process repeats its presence share; a share is dropped after three missed. */
  presenceEveryMs?: number;
  onError?: (what: string, error: unknown) => void;
}

/** Refused: too many open streams (for the user, for customers in all, or in all). */
export class TooManyStreams extends Error {
  constructor(
    readonly scope: 'user' | 'customers' | 'server',
    readonly limit: number,
  ) {
    super(
      scope === 'user'
        ? `At most ${limit} live streams per user are open at a time: close another tab first`
        : scope === 'customers'
          ? `Customers have ${limit} live streams open, the most this server gives them: try again later`
          : `The server has ${limit} live streams open, its limit: try again later`,
    );
    this.name = 'TooManyStreams';
  }
}

/**
 * The places customers (requesters signed in, portal links) may hold together: a fifth of the
 * server's, so that however many links are handed out, staff pages always find a place.
 */
export const customerStreamsOf = (maxStreams: number) => Math.floor(maxStreams / 5);

interface Stream {
  spec: StreamSpec;
  sink: StreamSink;
  lastSent: number;
}
interface LogRow {
  id: number;
  ticket_id: number;
  type: string;
}

/** How many log entries one read takes; a stream further behind than CATCH_UP_MAX is reset. */
const PAGE = 1000;
/** While units of work are in flight above the log's horizon, the hub looks again after this long, doubling up to the max. */
const RECHECK_MIN_MS = 20;
const RECHECK_MAX_MS = 1000;
const CATCH_UP_MAX = 2000;

export interface Hub {
  /** Throws TooManyStreams when the user (or customers, or the server) has as many streams open as allowed. */
  admit(spec: Pick<StreamSpec, 'user' | 'staff'>): void;
  /** Opens a stream (throws TooManyStreams); `close` when the connection ends. */
  open(spec: StreamSpec, sink: StreamSink): Promise<{ close(): void }>;
  /** The user is typing a reply on the ticket (a throttled ping from the reply box). */
  typing(ticketId: number, user: { id: number; name: string }): void;
  /** Who is on the ticket's page now, across processes. */
  viewers(ticketId: number): Viewer[];
  /** Open streams in this process (for health and tests). */
  readonly streams: number;
  stop(): void;
}

export async function startHub(db: Db, opts: HubOptions): Promise<Hub> {
  const onError = opts.onError ?? (() => {});
  const streams = new Set<Stream>();
  const perUser = new Map<number, number>();
  const maxCustomerStreams = customerStreamsOf(opts.maxStreams);
  let customerStreams = 0; // open (or opening) streams of customers
  // The hub reads the log only up to its horizon (SPEC D1): on PostgreSQL units of work commit
  // out of id order, and an entry below one already sent must not be skipped. While writers are
  // in flight above the horizon, it asks again shortly (their commit may not signal: a unit of
  // work that wrote no log entry holds the horizon back too).
  const newestId = async () => (await logHorizon(db)).upTo;
  let lastId = await newestId();
  let recheck: NodeJS.Timeout | undefined;
  let recheckMs = RECHECK_MIN_MS;
  // With no stream open nobody needs the new rows: a signal only marks the hub behind, and the
  // next stream to open moves it to the log's end first (no read per write of a quiet server).
  let behind = false;
  let opening = 0; // streams between open() and their registration: a signal then must be read

  // ── the change log ──
  // Reads and catch-ups run one at a time, in order: a stream registers between two reads, with
  // everything up to the hub's last read sent, so the next read starts where its catch-up ended.
  let chain: Promise<void> = Promise.resolve();
  let pending = false;
  const enqueue = (fn: () => Promise<void>) => {
    chain = chain.then(fn).catch((e) => onError('live update read failed', e));
    return chain;
  };
  const kick = () => {
    if (streams.size === 0 && opening === 0) {
      behind = true;
      return;
    }
    if (pending) return;
    pending = true;
    void enqueue(async () => {
      pending = false;
      await readNew();
    });
  };

  const readLog = (after: number, upTo?: number, limit = PAGE) =>
    db
      .select({ id: transactions.id, ticket_id: transactions.ticket_id, type: transactions.type })
      .from(transactions)
      .where(
        upTo === undefined ? gt(transactions.id, after) : and(gt(transactions.id, after), lte(transactions.id, upTo)),
      )
      .orderBy(asc(transactions.id))
      .limit(limit) as Promise<LogRow[]>;

  /** Each ticket's customers (requester and Cc), read only when a customer's stream is open. */
  async function customersOf(ticketIds: number[]): Promise<Map<number, Set<number>>> {
    const m = new Map<number, Set<number>>();
    if (ticketIds.length === 0) return m;
    const add = (t: number, u: number | null) => {
      if (u === null) return;
      let s = m.get(t);
      if (!s) m.set(t, (s = new Set()));
      s.add(u);
    };
    for (const r of await db
      .select({ t: tickets.id, u: tickets.requester_id })
      .from(tickets)
      .where(inArray(tickets.id, ticketIds)))
      add(r.t, r.u);
    for (const r of await db
      .select({ t: ticketWatchers.ticket_id, u: ticketWatchers.user_id })
      .from(ticketWatchers)
      .where(and(inArray(ticketWatchers.ticket_id, ticketIds), inArray(ticketWatchers.role, ['requester', 'cc']))))
      add(r.t, r.u);
    return m;
  }

  /** Hands `rows` (in log order) to `targets`, each its share, one event per ticket. */
  async function deliver(rows: LogRow[], targets: Iterable<Stream>): Promise<void> {
    const list = [...targets];
    if (rows.length === 0 || list.length === 0) return;
    const byTicket = new Map<number, LogRow[]>();
    for (const r of rows) {
      let g = byTicket.get(r.ticket_id);
      if (!g) byTicket.set(r.ticket_id, (g = []));
      g.push(r);
    }
    const customers = list.some((s) => !s.spec.staff)
      ? await customersOf([...byTicket.keys()])
      : new Map<number, Set<number>>();
    // Tickets in the order of their last entry: a catch-up replays the log in order.
    const groups = [...byTicket.values()].sort((a, b) => a[a.length - 1].id - b[b.length - 1].id);
    for (const s of list) {
      // What the stream had before these rows: a ticket's earlier entries in this batch count
      // even when another ticket's event (sent first, its last entry later) moved lastSent past them.
      const had = s.lastSent;
      for (const g of groups) {
        const ticketId = g[0].ticket_id;
        if (s.spec.onlyTicket !== undefined && s.spec.onlyTicket !== ticketId) continue;
        if (!s.spec.staff && !customers.get(ticketId)?.has(s.spec.user.id)) continue;
        const seen = g.filter((r) => r.id > had && (s.spec.staff || opts.customerSees(r.type)));
        if (seen.length === 0) continue;
        const id = seen[seen.length - 1].id;
        s.lastSent = Math.max(s.lastSent, id);
        try {
          s.sink.event({ id, ticket_id: ticketId, types: [...new Set(seen.map((r) => r.type))] });
        } catch (e) {
          onError('live update write failed', e);
        }
      }
    }
  }

  async function readNew(): Promise<void> {
    const horizon = await logHorizon(db);
    clearTimeout(recheck);
    if (!horizon.settled) {
      recheck = setTimeout(kick, recheckMs);
      recheck.unref();
      recheckMs = Math.min(recheckMs * 2, RECHECK_MAX_MS);
    } else recheckMs = RECHECK_MIN_MS;
    while (lastId < horizon.upTo) {
      const rows = await readLog(lastId, horizon.upTo);
      if (rows.length === 0) {
        lastId = horizon.upTo; // ids of units of work that rolled back
        return;
      }
      lastId = rows[rows.length - 1].id;
      await deliver(rows, streams);
      if (rows.length < PAGE) lastId = horizon.upTo;
    }
  }

  // ── presence ── (./presence.ts)
  const presence = startPresence({
    broadcast: (payload) => broadcast(db, payload),
    typingMs: opts.typingMs,
    presenceEveryMs: opts.presenceEveryMs,
    onError,
  });

  // A signal may come from inside a request (SQLite: after its unit of work): what it sets off
  // is the hub's own work, not that request's (its log lines carry no request id).
  const unlisten = listenStore(db, (s: StoreSignal) =>
    outsideRequest(() => {
      if (s.kind === 'log') kick();
      else presence.heard(s.payload);
    }),
  );

  const heartbeat = setInterval(() => {
    for (const s of streams) {
      try {
        s.sink.ping();
      } catch {
        /* the connection's own close ends it */
      }
    }
  }, opts.heartbeatMs);
  heartbeat.unref();

  function admit(spec: Pick<StreamSpec, 'user' | 'staff'>): void {
    if ((perUser.get(spec.user.id) ?? 0) >= opts.maxStreamsPerUser)
      throw new TooManyStreams('user', opts.maxStreamsPerUser);
    if (!spec.staff && customerStreams >= maxCustomerStreams) throw new TooManyStreams('customers', maxCustomerStreams);
    if (streams.size >= opts.maxStreams) throw new TooManyStreams('server', opts.maxStreams);
  }

  return {
    admit,
    async open(spec, sink) {
      admit(spec);
      perUser.set(spec.user.id, (perUser.get(spec.user.id) ?? 0) + 1);
      if (!spec.staff) customerStreams++;
      const stream: Stream = { spec, sink, lastSent: 0 };
      let closed = false;
      opening++;
      await enqueue(async () => {
        try {
          if (closed) return;
          if (behind && streams.size === 0) {
            behind = false;
            lastId = await newestId();
          }
          const after = spec.after;
          if (after !== undefined && after < lastId) {
            const rows = await readLog(after, lastId, CATCH_UP_MAX + 1);
            if (rows.length > CATCH_UP_MAX) sink.reset();
            else await deliver(rows, [stream]);
          }
          stream.lastSent = lastId;
          streams.add(stream);
        } finally {
          opening--;
        }
      });
      if (spec.staff && spec.ticketId !== undefined && !closed) presence.join(spec.ticketId, stream, spec.user);
      return {
        close() {
          if (closed) return;
          closed = true;
          streams.delete(stream);
          const n = (perUser.get(spec.user.id) ?? 1) - 1;
          if (n <= 0) perUser.delete(spec.user.id);
          else perUser.set(spec.user.id, n);
          if (!spec.staff) customerStreams--;
          if (spec.ticketId !== undefined) presence.leave(spec.ticketId, stream);
        },
      };
    },
    typing: (ticketId, user) => presence.typing(ticketId, user),
    viewers: (ticketId) => presence.viewers(ticketId),
    get streams() {
      return streams.size;
    },
    stop() {
      unlisten();
      clearTimeout(recheck);
      presence.stop();
      clearInterval(heartbeat);
    },
  };
}
