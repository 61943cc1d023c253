import type { Db } from './handle.js';

/**
 * Runs a unit of work (an async function of the writer connection) in a shared SQL transaction
 * with the other units of work that arrive in the same turn of the event loop, and settles each
 * caller's promise once that transaction has committed (docs/decisions/013 and 026).
 */
export type Commit = <T>(change: () => Promise<T>) => Promise<T>;

interface Job {
  change: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit. A COMMIT writes every page the transaction touched to the WAL; changes made
 * together share the pages they have in common (the ends of the tickets, transactions and
 * outbox tables and of their time indexes), so under load a batch costs far less than its
 * changes committed one by one. Each change runs inside the batch as it would alone, in a
 * savepoint, so a change that throws is rolled back alone and its caller gets the error, while
 * the others commit. Nobody hears "done" before the COMMIT: a crash loses no acknowledged change.
 *
 * Units of work are async (the domain awaits its queries, which on SQLite are already answered),
 * so the batch awaits each change in turn; the writer connection runs one batch at a time, and
 * changes that arrive meanwhile wait for the next. Nothing else writes on the writer connection
 * (the store's reader is read-only), so no statement outside a change can slip into a batch.
 * A lone change runs exactly as without batching. If the batch itself fails (COMMIT or a failure
 * that ends the whole SQL transaction), each change is run again alone — the batch left nothing
 * behind.
 */
export function groupCommit(db: Db): Commit {
  const sqlite = db.$client;
  let queue: Job[] = [];
  let running = false;

  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const savepoint = sqlite.prepare('SAVEPOINT hx_change');
  const release = sqlite.prepare('RELEASE hx_change');
  const rollbackTo = sqlite.prepare('ROLLBACK TO hx_change');

  /**
   * Ends a failed transaction. A ROLLBACK that fails too (the disk failing) must not throw past
   * the caller's promise, which would then never settle: SQLite has rolled back on its own
   * (a failed COMMIT after SQLITE_FULL or an I/O error does), or the connection is gone.
   */
  const abandon = () => {
    try {
      if (sqlite.inTransaction) rollback.run();
    } catch {
      /* see above */
    }
  };

  async function runAlone(job: Job): Promise<void> {
    let value: unknown;
    try {
      begin.run();
      value = await job.change();
      commit.run();
    } catch (e) {
      abandon();
      job.reject(e);
      return;
    }
    job.resolve(value);
  }

  async function runBatch(jobs: Job[]): Promise<void> {
    const outcomes: Outcome[] = [];
    try {
      begin.run();
      for (const job of jobs) {
        savepoint.run();
        try {
          outcomes.push({ ok: true, value: await job.change() });
          release.run();
        } catch (error) {
          if (!sqlite.inTransaction) throw new Error('the batch transaction ended early'); // e.g. SQLITE_FULL rolls everything back
          rollbackTo.run();
          release.run();
          outcomes.push({ ok: false, error });
        }
      }
      commit.run();
    } catch {
      abandon();
      for (const job of jobs) await runAlone(job);
      return;
    }
    jobs.forEach((job, i) => {
      const o = outcomes[i];
      if (o.ok) job.resolve(o.value);
      else job.reject(o.error);
    });
  }

  async function flush(): Promise<void> {
    running = true;
    try {
      while (queue.length > 0) {
        const jobs = queue;
        queue = [];
        if (jobs.length === 1) await runAlone(jobs[0]);
        else await runBatch(jobs);
      }
    } finally {
      running = false;
    }
  }

  return <T>(change: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0 && !running)
        setImmediate(() => {
          void flush();
        });
      queue.push({ change, resolve: resolve as (value: unknown) => void, reject });
    });
}
