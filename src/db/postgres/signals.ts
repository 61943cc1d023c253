import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { StoreSignal, Tx } from '../port.js';

// SPEC C5 on PostgreSQL: the store's signals fan out through LISTEN/NOTIFY, so every process of
// a cluster hears every change (docs/decisions/037).

/** Where a committed append to the change log is announced (the payload is empty: listeners read the log). */
const LOG_CHANNEL = 'hxdesk_log';
/** Where broadcast messages go (presence). */
const MESSAGE_CHANNEL = 'hxdesk_msg';

/**
 * Before a unit of work's first append to the change log: the log's order lock, held until the
 * unit of work ends, so `transactions` ids become visible in the order they were given (a
 * sequence hands out ids at insert, commits come in any order; a reader that saw id 11 must not
 * later find a 10 it skipped). And the NOTIFY, which PostgreSQL delivers at commit and drops on
 * rollback: a signal never comes before the change is visible.
 */
export function logAppender() {
  const announced = new WeakSet<object>();
  return async (tx: Tx): Promise<void> => {
    if (announced.has(tx)) return;
    announced.add(tx);
    await (tx as unknown as { execute(q: unknown): Promise<unknown> }).execute(
      sql`SELECT pg_advisory_xact_lock(hashtext('hxdesk change log')), pg_notify(${LOG_CHANNEL}, '')`,
    );
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
