import type { Db } from './client.js';

/**
 * Runs a synchronous change (a domain function that opens its own SQL transaction) in a shared
 * SQL transaction with the other changes that arrive in the same turn of the event loop, and
 * settles each caller's promise once that transaction has committed (docs/decisions/013).
 */
export type Commit = <T>(change: () => T) => Promise<T>;

interface Job { change: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit. A COMMIT writes every page the transaction touched to the WAL; changes made
 * together share the pages they have in common (the ends of the tickets, transactions and
 * outbox tables and of their time indexes), so under load a batch costs far less than its
 * changes committed one by one. Each change runs inside the batch as it would alone: its
 * `db.transaction()` becomes a savepoint (better-sqlite3 nests that way), so a change that
 * throws is rolled back alone and its caller gets the error, while the others commit.
 * Nobody hears "done" before the COMMIT: a crash loses no acknowledged change.
 * A lone change runs exactly as without batching. If the batch itself fails (COMMIT or a
 * failure that ends the whole SQL transaction), each change is run again alone — they are
 * plain functions of the database, and the batch left nothing behind.
 */
export function groupCommit(db: Db): Commit {
  const sqlite = db.$client;
  let queue: Job[] = [];

  function runAlone(job: Job): void {
    try { job.resolve(job.change()); } catch (e) { job.reject(e); }
  }

  function flush(): void {
    const jobs = queue;
    queue = [];
    if (jobs.length === 1 || sqlite.inTransaction) { jobs.forEach(runAlone); return; }
    const outcomes: Outcome[] = [];
    try {
      sqlite.transaction(() => {
        for (const job of jobs) {
          try { outcomes.push({ ok: true, value: job.change() }); } catch (error) { outcomes.push({ ok: false, error }); }
          if (!sqlite.inTransaction) throw new Error('the batch transaction ended early'); // e.g. SQLITE_FULL rolls everything back
        }
      }).immediate();
    } catch {
      jobs.forEach(runAlone);
      return;
    }
    jobs.forEach((job, i) => {
      const o = outcomes[i];
      if (o.ok) job.resolve(o.value); else job.reject(o.error);
    });
  }

  return <T>(change: () => T) => new Promise<T>((resolve, reject) => {
    if (queue.length === 0) setImmediate(flush);
    queue.push({ change, resolve: resolve as (value: unknown) => void, reject });
  });
}
