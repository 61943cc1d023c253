import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import type { StoreSignal, Tx } from '../port.js';
import { pgHandle } from './handle.js';

// SPEC C5 on PostgreSQL: the store's signals fan out through LISTEN/NOTIFY, so every process of
// a cluster hears every change (docs/decisions/037).

/** Where a committed append to the change log is announced (the payload is empty: listeners read the log). */
const LOG_CHANNEL = 'hxdesk_log';
/** Where broadcast messages go (presence). */
const MESSAGE_CHANNEL = 'hxdesk_msg';

/**
 * Before a unit of work's first append to the change log: its transaction id, taken now if it has
 * none yet (pg_current_xact_id()), so that it is taken before the entry's id comes from the
 * sequence — what the log's horizon relies on (./logHorizon.ts, SPEC D1). No lock: appends run side
 * by side. `appended` tells the store to announce the unit of work once it has committed (a
 * NOTIFY inside the transaction would take a database-wide lock at commit).
 */
export function logAppender() {
  const announced = new WeakSet<object>();
  /** Units of work that have a transaction id already: their ticket lock took one (decision 066). */
  const haveXid = new WeakSet<object>();
  return {
    async append(tx: Tx): Promise<void> {
      if (announced.has(tx)) return;
      announced.add(tx);
      if (haveXid.has(tx)) return;
      await pgHandle(tx).execute(sql`SELECT pg_current_xact_id()`);
    },
    appended: (tx: object) => announced.has(tx),
    /**
     * The configuration's version (decision 067) for a unit of work that has not learnt it with a
     * lock, read with its transaction id (taken now, early: its first append then needs no
     * statement for it), in one statement.
     */
    async configVersion(tx: Tx, version: SQL): Promise<number> {
      const { rows } = await pgHandle(tx).execute<{ hx_config: number | null }>(
        sql`SELECT pg_current_xact_id(), ${version} AS hx_config`,
      );
      haveXid.add(tx);
      return Number(rows[0]?.hx_config ?? 0);
    },
    /** The unit of work has its transaction id (its ticket lock took it): its first append needs no statement for it. */
    tookXid: (tx: object) => haveXid.add(tx),
  };
}

/** Tells every process that the change log grew (after a commit; a lost one is made up by the next). */
export async function announceLog(pool: pg.Pool): Promise<void> {
  await pool.query(`SELECT pg_notify('${LOG_CHANNEL}', '')`);
}

/**
 * `announceLog` for one process, coalesced: at most one NOTIFY in flight, and commits made while
 * it is out are announced by one more after it. A NOTIFY's commit takes PostgreSQL's
 * database-wide notification lock, so one per unit of work from 16 writers queued on that lock;
 * listeners read the whole log up to its horizon on any signal, so one announcement after a
 * commit stands for every commit before it was sent.
 */
export function logAnnouncer(pool: pg.Pool): () => void {
  let sending = false;
  let again = false;
  const send = () => {
    sending = true;
    again = false;
    announceLog(pool)
      .catch(() => {}) // a lost announcement is made up by the next (and by listeners' rechecks)
      .finally(() => {
        sending = false;
        if (again) send();
      });
  };
  return () => {
    if (sending) again = true;
    else send();
  };
}

/**
 * One LISTEN connection per process, opened with the first listener and kept open: when it is
 * lost (the server restarted, the network cut it) it is opened again with growing pauses, and
 * listeners hear 'log' once it is back — whatever was announced meanwhile is in the log.
 */
export function pgSignals(url: string, pool: pg.Pool) {
  const listeners = new Set<(signal: StoreSignal) => void>();
  const signal = (s: StoreSignal) => {
    for (const fn of listeners) {
      try {
        fn(s);
      } catch {
        /* a listener's own failure */
      }
    }
  };
  let client: pg.Client | null = null;
  let closed = false;
  let started = false;
  let retry: NodeJS.Timeout | undefined;
  let pause = 100;

  async function connect(): Promise<void> {
    if (closed) return;
    const c = new pg.Client({ connectionString: url });
    const lost = () => {
      if (client !== c) return;
      client = null;
      c.end().catch(() => {});
      if (!closed) {
        retry = setTimeout(() => {
          void connect();
        }, pause);
        retry.unref();
        pause = Math.min(pause * 2, 5000);
      }
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (n.channel === LOG_CHANNEL) signal({ kind: 'log' });
      else if (n.channel === MESSAGE_CHANNEL) signal({ kind: 'message', payload: n.payload ?? '' });
    });
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${LOG_CHANNEL}; LISTEN ${MESSAGE_CHANNEL}`);
      if (closed) {
        await c.end();
        return;
      }
      pause = 100;
      signal({ kind: 'log' }); // what was announced while no one listened is in the log
    } catch {
      lost();
    }
  }

  return {
    listen(fn: (signal: StoreSignal) => void): () => void {
      listeners.add(fn);
      if (!started) {
        started = true;
        void connect();
      }
      return () => {
        listeners.delete(fn);
      };
    },
    async broadcast(payload: string): Promise<void> {
      await pool.query('SELECT pg_notify($1, $2)', [MESSAGE_CHANNEL, payload]);
    },
    async close(): Promise<void> {
      closed = true;
      clearTimeout(retry);
      listeners.clear();
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
