import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { threadLimits } from '../../threadHeap.js';

// Statements carrying large parameters (a reply's files: 20 MiB) sent from a worker thread with
// connections of its own (decision 061, "off the event loop"). node-postgres builds each
// statement's whole message in one buffer on the thread that sends it — copying a 10 MiB file
// into a buffer it doubles as it grows, 30–50 ms of one thread — and the socket write and the
// garbage of those buffers follow; on the request thread every request in flight waited behind
// that. Here the request thread only hands the statement's text and parameters over (a file the
// caller gives up is moved, with no copy; any other large one is copied once), and the worker
// does the rest.
//
// The statement is built by drizzle on the store's handle (`toSQL()`), so the columns are the
// schema's. It runs alone, in autocommit: callers send what needs no unit of work (staged files,
// which a later unit of work attaches; a crash in between leaves rows the sweep deletes).

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const pg = require(workerData.driver);
const pool = new pg.Pool({ connectionString: workerData.url, max: workerData.max });
pool.on('error', () => {});
parentPort.on('message', async (m) => {
  if (m === 'stop') {
    await pool.end().catch(() => {});
    parentPort.close();
    return;
  }
  try {
    const r = await pool.query(m.sql, m.params);
    parentPort.postMessage({ id: m.id, rows: r.rows });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: { message: String(e && e.message), code: e && e.code } });
  }
});
`;

export interface ApartWriter {
  /**
   * Runs one statement (`sql` with `$n` parameters) on a connection of the worker's; its rows.
   * `handOver`: byte parameters the caller reads no more; those that own all of their memory are
   * moved to the worker, not copied, and left empty (detached) here.
   */
  run(sql: string, params: unknown[], opts?: { handOver?: ReadonlySet<unknown> }): Promise<Record<string, unknown>[]>;
  /** Ends the worker and its connections; statements in flight fail. */
  stop(): Promise<void>;
}

/** Byte parameters from this size on are copied and moved rather than cloned. */
const MOVE_FROM = 64 * 1024;

/** Whether `p` is the whole of a movable memory (a Buffer of its own, not a slice of a pool or a shared one). */
const ownsAll = (p: Uint8Array): p is Uint8Array<ArrayBuffer> =>
  p.buffer instanceof ArrayBuffer && p.byteOffset === 0 && p.byteLength === p.buffer.byteLength;

type Reply = { id: number; rows?: Record<string, unknown>[]; error?: { message: string; code?: string } };

/**
 * A writer for the database at `url`, with at most `max` connections, started on its first
 * statement. A statement's failure comes back as an Error with PostgreSQL's SQLSTATE as `code`
 * (so full disks and read-only databases are told as everywhere else, decision 042).
 */
export function apartWriter(url: string, max = 2): ApartWriter {
  let worker: Worker | undefined;
  let next = 0;
  const waiting = new Map<number, { resolve: (rows: Record<string, unknown>[]) => void; reject: (e: Error) => void }>();
  const failAll = (e: Error) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  const start = (): Worker => {
    const w = new Worker(WORKER, {
      eval: true,
      resourceLimits: threadLimits(),
      workerData: { url, max, driver: createRequire(import.meta.url).resolve('pg') },
    });
    w.unref(); // kept alive only while a statement is in flight (ref'd below)
    w.on('message', (m: Reply) => {
      const p = waiting.get(m.id);
      if (!p) return;
      waiting.delete(m.id);
      if (waiting.size === 0) w.unref();
      if (m.rows) p.resolve(m.rows);
      else p.reject(Object.assign(new Error(m.error?.message ?? 'the statement failed'), { code: m.error?.code }));
    });
    w.on('error', (e) => failAll(e));
    w.on('exit', () => {
      if (worker === w) worker = undefined;
      failAll(new Error('the database writer thread stopped'));
    });
    return w;
  };
  return {
    run(sql, params, opts = {}) {
      worker ??= start();
      const w = worker;
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        w.ref();
        // Large byte parameters travel as memory handed over: their own when the caller gives it
        // (no copy at all), else a copy (one memcpy) — never cloned by the message's serializer (a
        // zeroed allocation, then the copy, then another in the worker).
        const moved: ArrayBuffer[] = [];
        const sent = params.map((p) => {
          if (!(p instanceof Uint8Array) || p.byteLength < MOVE_FROM) return p;
          if (opts.handOver?.has(p) && ownsAll(p) && !moved.includes(p.buffer)) {
            moved.push(p.buffer);
            return p;
          }
          const copy = Buffer.allocUnsafeSlow(p.byteLength); // its own memory, not zeroed first
          copy.set(p);
          moved.push(copy.buffer);
          return copy;
        });
        w.postMessage({ id, sql, params: sent }, moved);
      });
    },
    async stop() {
      const w = worker;
      worker = undefined;
      if (!w) return;
      await new Promise<void>((resolve) => {
        w.once('exit', () => resolve());
        w.postMessage('stop');
        setTimeout(() => void w.terminate(), 5000).unref();
      });
    },
  };
}
