import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { threadLimits } from '../../threadHeap.js';
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
  try {
    const r = checkpoint.get();
    if (workerData.report) parentPort.postMessage({ checkpoint: { busy: r.busy, log: r.log, checkpointed: r.checkpointed } });
  } catch (e) { pausedUntil = Date.now() + 1000; parentPort.postMessage({ code: e.code, message: e.message }); }
}, workerData.everyMs);
parentPort.postMessage({ ready: true });
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  /** Settles once the worker has its connection open (its first turn follows `everyMs` later). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

/** One PASSIVE checkpoint's result: frames in the log, and how many of them are now in the database. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * `onError` hears a failed checkpoint as `{ code, message }` (SQLite's code), or the worker's own
 * error; `onCheckpoint` (tests, metrics) hears each turn's result.
 */
export function startCheckpointer(
  db: Db,
  opts: { everyMs?: number; onError?: (e: unknown) => void; onCheckpoint?: (r: CheckpointResult) => void } = {},
): Checkpointer | null {
  const file = db.$client.name;
  if (file === ':memory:' || db.$client.memory) return null;
  db.$client.pragma('wal_autocheckpoint = 10000');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, {
    eval: true,
    resourceLimits: threadLimits(),
    workerData: { file, driver, everyMs: opts.everyMs ?? 200, report: Boolean(opts.onCheckpoint) },
  });
  worker.unref();
  let opened: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    opened = resolve;
    worker.once('exit', () => resolve());
  });
  worker.on('message', (m: { ready?: true; checkpoint?: CheckpointResult; code?: string; message?: string }) => {
    if (m.ready) opened();
    else if (m.checkpoint) opts.onCheckpoint?.(m.checkpoint);
    else opts.onError?.(m);
  });
  worker.on('error', (e) => opts.onError?.(e));
  return {
    ready,
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
