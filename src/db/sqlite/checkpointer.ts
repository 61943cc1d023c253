import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './handle.js';

// SQLite copies the write-ahead log back into the database file ("checkpoint") from whichever
// connection commits when the log passes wal_autocheckpoint pages, and fsyncs on the way: on
// the one thread that serves every request, a stall of several milliseconds every few dozen
// writes (a fifth of the cost of a reply at 100k tickets). Here a worker thread with its own
// connection checkpoints PASSIVE-ly (never blocking the writer) every `everyMs`; the main
// connection keeps a far-off wal_autocheckpoint as a backstop should the worker fall behind.

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
// After a failure (a full disk: the file cannot grow to take the log's pages) the next turns are
// skipped for a second; the error goes to the main thread with its SQLite code (decision 042).
let pausedUntil = 0;
const timer = setInterval(() => {
  if (Date.now() < pausedUntil) return;
  try { checkpoint.get(); } catch (e) { pausedUntil = Date.now() + 1000; parentPort.postMessage({ code: e.code, message: e.message }); }
}, workerData.everyMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** `onError` hears a failed checkpoint as `{ code, message }` (SQLite's code), or the worker's own error. */
export function startCheckpointer(
  db: Db,
  opts: { everyMs?: number; onError?: (e: unknown) => void } = {},
): Checkpointer | null {
  const file = db.$client.name;
  if (file === ':memory:' || db.$client.memory) return null;
  db.$client.pragma('wal_autocheckpoint = 10000');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, everyMs: opts.everyMs ?? 200 } });
  worker.unref();
  worker.on('message', (m: { code?: string; message: string }) => opts.onError?.(m));
  worker.on('error', (e) => opts.onError?.(e));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
        setTimeout(() => {
          void worker.terminate();
        }, 1000).unref();
      }),
  };
}
