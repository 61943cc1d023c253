import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { PgInsertBase, PgSelectBase, PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { type Conn, type Db, giveOut, type Prepared, type Store, type StoreLog } from '../port.js';
import * as schema from '../tables.js';
import { storageWatch } from '../storageWatch.js';
import { migratePostgres } from './migrate.js';
import { pgStorageFailure, probeWrite, sqlState } from './storage.js';
import { pgLogHorizon } from './logHorizon.js';
import { logAnnouncer, logAppender, pgSignals } from './signals.js';
import { searchPeople } from './people.js';
import { type InSnapshot, listTickets } from './ticketList.js';
import { connectionOf } from './handle.js';
import { rowLocks, VERSION } from './locks.js';
import { configCache } from '../configCache.js';
import { operationAt, RETRYABLE, retryConflicts, writeRetries } from './retries.js';
import { sameName, uniqueViolation } from './unique.js';
import { countStatement, recordUnit, statementsOn } from './statements.js';
import { limitReads, readShare } from './readSlots.js';
import { asWrite } from '../priority.js';
import { apartWriter } from './writeApart.js';
import { setPool } from './pools.js';
import { statementNamer, withName } from './named.js';
import { type DrizzlePgPrepared, fastExecute, mapperOf, type RowMap } from './rows.js';

// The PostgreSQL store (SPEC C6, docs/decisions/027): the port's second implementation, over a
// node-postgres Pool and drizzle's node-postgres driver.
//
// The domain builds its queries on the SQLite table objects of src/db/sqlite/schema.ts (through src/db/tables.ts); this store
// runs them through drizzle's pg dialect as they are (decision 027: the dialect reads tables and
// columns by name, and the SQLite column mappings — booleans as 1/0, JSON as text — are values
// PostgreSQL accepts for the derived columns). The derived pg tables (./schema.ts) describe the
// migrations and name the unique indexes.

/**
 * int8 as a JavaScript number, as SQLite gives every integer: count(*) and sum() in raw SQL,
 * imap_state.last_uid (bigint). drizzle's node-postgres driver reads values through pg's global
 * parsers, so this is set for the process (every integer this schema stores is below 2^53).
 */
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

export { sqlState };

/** Per connection, the first statement failure of its current unit of work. */
const failures = new WeakMap<object, unknown>();

/** Every prepared query's statement name, by its key (unique per process: the names live on each connection). */
const names = new WeakMap<object, string>();
let named = 0;
const nameOf = (key: object) => {
  let n = names.get(key);
  if (!n) names.set(key, (n = `hx_${++named}`));
  return n;
};

type PgPrepared = DrizzlePgPrepared;

/** The Prepared contract over a drizzle pg prepared query (rows for reads and RETURNING, a QueryResult otherwise). */
function wrap<Row>(q: PgPrepared, map: RowMap | undefined): Prepared<Row> {
  const execute = fastExecute(q, map);
  return {
    async get(params) {
      const r = await execute(params);
      return (Array.isArray(r) ? r[0] : r) as Row | undefined;
    },
    async all(params) {
      const r = await execute(params);
      return (Array.isArray(r) ? r : r === undefined ? [] : [r]) as Row[];
    },
    async run(params) {
      const r = await execute(params);
      return { changes: Array.isArray(r) ? r.length : ((r as { rowCount?: number | null })?.rowCount ?? 0) };
    },
  };
}

/**
 * The pool's connection string and session settings (decision 088), after any the URL's
 * `options` gives (node-postgres lets the URL's override the config's, so they move here): no
 * JIT (it compiles expressions of statements the planner costs high: milliseconds for queries
 * that run in a fraction of one) and no parallel workers (a rare word's search started two,
 * 8.8 ms instead of 1.1; a request's statements are short, and the cores serve other requests).
 */
export function poolSettings(url: string): { connectionString: string; options: string } {
  const ours = '-c jit=off -c max_parallel_workers_per_gather=0';
  try {
    const u = new URL(url);
    const given = u.searchParams.get('options');
    if (given === null) return { connectionString: url, options: ours };
    u.searchParams.delete('options');
    return { connectionString: u.toString(), options: `${given} ${ours}` };
  } catch {
    return { connectionString: url, options: ours };
  }
}

/**
 * Opens the PostgreSQL store at `url` (postgres://…): refuses a database that is not UTF8, applies pending migrations (one process
 * at a time, under an advisory lock), then serves from a pool of `max` connections. Returns the
 * store (decision 065); its `db` is the pool's handle: what the app passes around as `db`. Statements
 * outside a unit of work (reads) hold at most `max − writeReserve` connections at once.
 */
export async function openPostgres(
  url: string,
  opts: { max?: number; writeReserve?: number; log?: StoreLog } = {},
): Promise<Store> {
  await migratePostgres(url);
  const max = opts.max ?? 10;
  const pool = new pg.Pool({ ...poolSettings(url), max });
  // Reads never take the connections kept for units of work (PG_WRITE_RESERVE, decision 066).
  const inReadSlot = limitReads(pool, readShare(max, opts.writeReserve ?? 6));
  // An idle connection's error (the server restarting) must not take the process down; the next query reports it.
  pool.on('error', () => {});
  // Nor one on a connection in use between two of its queries (a unit of work, the IMAP lock's
  // connection): pg-pool listens only while a connection is idle, and an 'error' event nobody
  // listens to is an uncaught exception. The connection's next query fails instead, and with it
  // the unit of work; the pool drops the broken connection when it comes back.
  // And it remembers, per connection, the first statement that failed in the current unit of
  // work, even when the domain caught the error and went on (a scrip's failure is recorded in its
  // result): on PostgreSQL that failure aborted the transaction (decision 030).
  // Statements parsed once per connection, by a name their text gives (decision 088).
  const nameFor = statementNamer();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const noted = (...args: unknown[]) => {
      countStatement(client);
      const r = query(...withName(args, nameFor));
      // A promise (a query without a callback) fails here too; anything else resolves as it is.
      Promise.resolve(r).then(undefined, (e: unknown) => {
        if (!failures.has(client)) failures.set(client, e);
      });
      return r;
    };
    Object.defineProperty(client, 'query', { value: noted, writable: true, configurable: true });
  });
  // The SQLite table objects, by name (decision 027): the relational queries' schema.
  const tables: Record<string, unknown> = { ...schema };
  const pgDb = drizzle(pool, { schema: tables });
  const statements = new Map<object, Prepared<unknown>>();
  /** Each statement key's row mapper for units of work, which build their statement on their own connection. */
  const mappers = new Map<object, RowMap | undefined>();
  let closed = false;
  // Connections holding a session lock: closing the store ends them (the pool waits for every
  // checked-out connection, and a lock's connection is out for as long as the lock is held).
  const lockClients = new Set<pg.PoolClient>();
  const signals = pgSignals(url, pool);
  const log = logAppender();
  const announce = logAnnouncer(pool);
  const locks = rowLocks();
  // Statements with file bytes, sent from a worker thread with a pool of its own (decision 061).
  const apart = apartWriter(url);
  // Decision 042: a unit of work that fails for lack of space (or on a read-only database) is
  // thrown as StorageUnavailable and remembered; the probe write clears it.
  const storage = storageWatch({ classify: pgStorageFailure, probe: () => probeWrite(pool) });
  // The pool's handle, given out once the store is built (decision 065).
  let root: Db;
  // A list read again in one snapshot (decision 096): a read-only transaction, within the reads' share.
  const inSnapshot: InSnapshot = (read) =>
    inReadSlot(() =>
      pgDb.transaction(async (tx) => await read(giveOut(impl, tx)), {
        isolationLevel: 'repeatable read',
        accessMode: 'read only',
      }),
    );
  const impl: Store = {
    dialect: 'postgres',
    config: configCache(),
    get db() {
      return root;
    },
    // PostgreSQL maintains its trigram indexes in each writing transaction, and vacuums itself.
    startMaintenance: () => ({ async stop() {} }),
    async close() {
      if (closed) return;
      closed = true;
      await signals.close();
      await apart.stop();
      // Ending a lock's connection ends its session and the lock with it; its holder learns from held().
      for (const client of lockClients) {
        lockClients.delete(client);
        client.release(true);
      }
      await pool.end();
    },
    work: {
      // Side by side, as many as the pool has connections; READ COMMITTED unless the unit of work
      // asks for SERIALIZABLE; run again after a deadlock or serialization failure (decision 058).
      transaction: async (fn, uow) => {
        let appended = false;
        // Where the unit of work was asked for, read only when a retry is counted.
        const site = uow?.op === undefined ? new Error() : undefined;
        const op = () => uow?.op ?? operationAt(site!);
        const result = await storage.run(() =>
          retryConflicts(op, opts.log, (sawConflict) =>
            pgDb.transaction(
              async (pgTx) => {
                appended = false;
                const tx = giveOut(impl, pgTx); // a new handle per unit of work, carrying its store
                const client = connectionOf(pgTx);
                failures.delete(client);
                const before = statementsOn(client) - 1; // BEGIN was sent already
                try {
                  const result = await fn(tx);
                  // A statement failed and the domain went on: PostgreSQL has aborted the transaction, and
                  // COMMIT would roll it back without an error. The first failure is the unit of work's.
                  if (failures.has(client)) throw failures.get(client);
                  appended = log.appended(tx);
                  recordUnit(op(), statementsOn(client) - before + 1); // and COMMIT
                  return result;
                } finally {
                  if (RETRYABLE.has(sqlState(failures.get(client)) ?? '')) sawConflict();
                }
              },
              { isolationLevel: uow?.serializable ? 'serializable' : 'read committed' },
            ),
          ),
        );
        // After the commit: listeners read the log once the change is there to read.
        if (appended) announce();
        return result;
      },
      lockTicket: async (tx, id) => {
        const row = await locks.lockTicket(tx, id);
        log.tookXid(tx); // the lock's statement took the transaction's id: the log's append needs none
        return row;
      },
      lockName: async (tx, name) => {
        await locks.lockName(tx, name);
        log.tookXid(tx); // as the ticket lock: the log's first append needs no statement for the id
      },
      readConfigVersion: (tx) => log.configVersion(tx, VERSION),
      writeRetries,
      isTx: (conn) => conn instanceof PgTransaction,
      async writeApart(query, opts) {
        if (!(query instanceof PgInsertBase)) throw new Error('writeApart takes an insert');
        const { sql: text, params } = query.toSQL();
        return await storage.run(() => apart.run(text, params, opts));
      },
      logAppend: (tx) => log.append(tx),
      prepare<Row>(conn: Conn, key: object, build: (db: Db) => unknown): Prepared<Row> {
        const name = nameOf(key);
        // A unit of work has its own connection: its statement is built on its handle (the server
        // keeps the parsed statement per connection under the name). Its row mapper is the key's,
        // made once (decision 097), not again for every unit of work.
        if (conn instanceof PgTransaction) {
          const q = (build(conn) as { prepare(n: string): PgPrepared }).prepare(name);
          if (!mappers.has(key)) mappers.set(key, mapperOf(q));
          return wrap<Row>(q, mappers.get(key));
        }
        let p = statements.get(key) as Prepared<Row> | undefined;
        if (!p) {
          const q = (build(root) as { prepare(n: string): PgPrepared }).prepare(name);
          statements.set(key, (p = wrap<Row>(q, mapperOf(q))));
        }
        return p;
      },
    },
    queries: {
      logHorizon: pgLogHorizon(pool),
      sameName: (column, value) => sameName(column as never, value),
      // No planner hint on PostgreSQL: its statistics choose; the column as it is.
      notIndexed: (column) => sql`${column as never}`,
      idsIn: (column, ids) => sql`${column as never} = ANY(${ids}::int[])`,
      idsParam: (ids) => [...ids],
      // Migration 0020's index expression.
      emailDomain: (column) => sql`lower(substr(${column as never}, strpos(${column as never}, '@') + 1))`,
      // A unit of work's list reads on its own connection; one outside reads again in one snapshot.
      listTickets: (conn, spec) => listTickets(conn, spec, conn instanceof PgTransaction ? undefined : inSnapshot),
      searchPeople: (conn, needle, n) => searchPeople(conn, needle, n),
    },
    coordination: {
      listen: (fn) => signals.listen(fn),
      broadcast: (payload) => signals.broadcast(payload),
      // Claimed rows are locked until the unit of work ends; another process claiming skips them.
      // (The domain's select is built by the pg dialect: a PgSelect, whatever the port's types say.)
      claimRows(query) {
        if (!(query instanceof PgSelectBase)) throw new Error('claimRows takes a select');
        query.for('update', { skipLocked: true }); // sets the select's own locking clause
        return query;
      },
      // A session advisory lock on a connection of its own: held while this process lives, given
      // up with the connection when it dies, so another process takes over.
      async tryLock(name) {
        const client = await pool.connect();
        try {
          const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
            name,
          ]);
          if (!rows[0]?.ok) {
            client.release();
            return null;
          }
        } catch (e) {
          client.release(true);
          throw e;
        }
        // A session lock lives as long as its connection: once that connection fails, the lock is gone.
        let lost = false;
        client.on('error', () => {
          lost = true;
        });
        lockClients.add(client);
        const giveBack = (err?: boolean | Error) => {
          if (!lockClients.delete(client)) return; // already ended by close()
          client.release(err);
        };
        return {
          async held() {
            if (lost || !lockClients.has(client)) return false;
            try {
              await client.query('SELECT 1');
              return true;
            } catch {
              lost = true;
              return false;
            }
          },
          async release() {
            if (lost || !lockClients.has(client)) {
              giveBack(true);
              return;
            }
            try {
              await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
              giveBack();
            } catch (e) {
              // The connection is broken (or the unlock failed): closing it ends the session, and
              // the session's locks with it.
              giveBack(e as Error);
            }
          },
        };
      },
    },
    errors: {
      // drizzle wraps the driver's error ("Failed query: …", the pg error as its cause).
      uniqueViolation: (err) => uniqueViolation(err instanceof Error && err.cause !== undefined ? err.cause : err),
      async problem() {
        if (closed) return 'the database connection is closed';
        try {
          // Not held back behind the reads (decision 066): a balancer's health check must not time out under load.
          await asWrite(() => pool.query('SELECT 1'));
          return null;
        } catch (e) {
          return `the database does not answer (${(e as Error).message})`;
        }
      },
      storageFailure: pgStorageFailure,
      storageProblem: () => storage.problem(),
    },
  };
  root = giveOut(impl, pgDb);
  setPool(root, pool);
  return impl;
}

export { poolOf } from './pools.js';
