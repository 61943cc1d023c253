import { noteLockedTicket, oncePerUnit as onceIn, type UnitOutcome, withUnitMemo } from './unitMemo.js';
import { DrizzleQueryError, eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { tickets as ticketsTable } from './tables.js';
import { causeChain, StorageUnavailable } from './storageErrors.js';
import type {
  Conn,
  Db,
  Prepared,
  Store,
  StoreSignal,
  TicketRowOf,
  Tx,
  UnitOfWork,
  WriteRetries,
} from './storeContract.js';

// What a store is, its handles and interfaces (types only): in their own file, read through this one.
export type * from './storeContract.js';

// The store port (docs/decisions/026): everything the domain, the scrips and the mail intake
// may ask of the database, with no dialect and no driver in it. A store (src/db/sqlite or
// src/db/postgres, opened by src/db/store.ts) is an object, `Store`, handed to the app in its
// dependencies; every handle it gives out carries it (`conn.store`, decision 065). The domain builds queries with
// drizzle's query builder on a handle, always `await`s them (never `.get()`, `.all()`, `.run()`:
// those exist on one dialect only), writes only inside `transaction()`, and asks the store for
// what differs between dialects (case-insensitive names, text search, ticket lists).

/**
 * The storage failure `err` stands for, or undefined: `err` itself, one in its causes, or the
 * reading by the store of `conn` of a driver error that escaped a unit of work (each store reads
 * its own driver's errors: two stores in one process never mix them up).
 */
export function storageUnavailable(conn: Conn, err: unknown): StorageUnavailable | undefined {
  for (const e of causeChain(err)) if (e instanceof StorageUnavailable) return e;
  return conn.store.errors.storageFailure(err);
}

/**
 * How a store gives out a handle of its driver as the port's (decision 065): the handle gets its
 * store as a readonly member, `store`, and is from then on a `Db`. This is the one place where a
 * driver's handle becomes the port's: the query builder the port types (drizzle's SQLite core,
 * async) is the one the SQLite store's handle has (sync: awaited alike), and the one the
 * PostgreSQL store's pg builder accepts on the same table objects (decision 027) — what types
 * cannot say across dialects, so the narrowing checks what it can (the handle carries `store`).
 */
export function giveOut(store: Store, handle: object): Db {
  Object.defineProperty(handle, 'store', { value: store, enumerable: false, writable: false });
  if (!carries(handle, store)) throw new Error('The handle does not carry its store');
  return handle;
}

/** Whether `handle` was given out by `store` (see giveOut). */
function carries(handle: object, store: Store): handle is Db {
  return 'store' in handle && handle.store === store;
}

/**
 * One unit of work (one SQL transaction): `fn` gets the handle to use for every read and write
 * of the change. Called with a unit of work's own handle, `fn` simply joins it. Only the
 * database may be awaited inside `fn` (no network, no files): it holds the write lock.
 */
export async function transaction<T>(conn: Conn, fn: (tx: Tx) => Promise<T>, opts?: UnitOfWork): Promise<T> {
  const store = conn.store;
  if (store.work.isTx(conn)) return await fn(conn);
  const outcome: UnitOutcome = { changes: 0 };
  try {
    // A fresh memo per attempt (decision 066), and what the attempts did to the configuration (067).
    return await store.work.transaction((tx) => withUnitMemo(outcome, () => fn(tx)), opts);
  } catch (e) {
    // A change of configuration that did not commit: whatever was kept meanwhile is dropped.
    if (outcome.changes > 0) store.config.clear();
    throw e;
  } finally {
    store.config.pending -= outcome.changes;
  }
}

/** Whether `conn` is the handle of an open unit of work (where `transaction()` joins instead of opening one). */
export const inUnitOfWork = (conn: Conn): boolean => conn.store.work.isTx(conn);

/**
 * The statement `build` makes (an INSERT … RETURNING, outside a unit of work) run apart from the
 * request thread where the store can (StoreWork.writeApart: PostgreSQL's worker thread);
 * otherwise, and inside a unit of work, run as it is, in a unit of work named `op`. `handOver`:
 * byte parameters the caller reads no more, which may be moved away (left empty).
 */
export async function writeApart<Row extends Record<string, unknown>>(
  conn: Conn,
  build: (db: Db) => PromiseLike<Row[]>,
  op: string,
  opts: { handOver?: ReadonlySet<unknown> } = {},
): Promise<Row[]> {
  const apart = conn.store.work.writeApart;
  if (!apart || inUnitOfWork(conn)) return await transaction(conn, async (tx) => await build(tx), { op });
  // The rows as the driver gives them: the returned columns by name.
  return (await apart(build(conn), opts)) as Row[];
}

/** `load()` once per unit of work for `key` when `conn` is a unit of work's handle (decision 066); else every time. */
export const oncePerUnit = <T>(conn: Conn, key: unknown, load: () => Promise<T>): Promise<T> =>
  onceIn(conn.store.work.isTx(conn), key, load);

/**
 * Inside a unit of work that changes a ticket, FIRST (before reading the ticket's state): two
 * changes to one ticket then run one after the other; changes to different tickets never wait
 * for each other (SPEC D1; PostgreSQL: `SELECT … FOR NO KEY UPDATE`, SQLite: its one writer).
 */
export const lockTicket = async (tx: Tx, id: number): Promise<void> => {
  await tx.store.work.lockTicket?.(tx, id);
};
/**
 * `lockTicket`, and the ticket's row as it is once locked (undefined: no such ticket): PostgreSQL
 * returns it with the lock's own statement (decision 067); else (SQLite, or a ticket this unit of
 * work had locked already) it is read.
 */
export async function lockAndReadTicket(tx: Tx, id: number): Promise<TicketRowOf | undefined> {
  const locked = await tx.store.work.lockTicket?.(tx, id);
  if (locked === null) return undefined;
  const row = locked ?? (await ticketRow(tx).get({ id }));
  if (row) noteLockedTicket(id, row);
  return row;
}
/**
 * Two tickets locked in id order (two units of work locking the same pair never wait on each
 * other in a circle: a merge, a link), and their rows in the order asked.
 */
export async function lockAndReadTicketPair(
  tx: Tx,
  a: number,
  b: number,
): Promise<[TicketRowOf | undefined, TicketRowOf | undefined]> {
  const [lo, hi] = a < b ? [a, b] : [b, a];
  const rowLo = await lockAndReadTicket(tx, lo);
  const rowHi = await lockAndReadTicket(tx, hi);
  return a < b ? [rowLo, rowHi] : [rowHi, rowLo];
}
const ticketRow = prepared((db) =>
  db
    .select()
    .from(ticketsTable)
    .where(eq(ticketsTable.id, sql.placeholder('id'))),
);
/** Inside a unit of work: a lock on `name` (a message's identity) until it ends; SQLite: its one writer. */
export const lockName = async (tx: Tx, name: string): Promise<void> => {
  await tx.store.work.lockName?.(tx, name);
};
/** Units of work run again after a conflict, and given up, per operation, in this process. */
export const writeRetries = (conn: Conn): WriteRetries => conn.store.work.writeRetries?.() ?? {};

/**
 * A drizzle query built and compiled once per store, for the hot paths (building a query costs
 * more than running a small one). Parameters are `sql.placeholder(name)`s; run it on any handle
 * of the store, inside a unit of work or not.
 */
export function prepared<Q extends PromiseLike<unknown>>(build: (db: Db) => Q): (conn: Conn) => Prepared<RowOf<Q>> {
  const key = {};
  return (conn) => conn.store.work.prepare<RowOf<Q>>(conn, key, build);
}

/** `column IN ids`, the ids given as one parameter (see preparedForIds). */
export type IdsIn = (column: unknown) => SQL;

/**
 * `column IN ids` with the ids as ONE parameter, in the store's dialect (SQLite: a JSON array read
 * by json_each; PostgreSQL: an int[]), for a query built once: `ids` a placeholder, or the ids.
 */
export function idsIn(conn: Conn, column: unknown, ids: Placeholder | readonly number[]): SQL {
  const q = conn.store.queries;
  return q.idsIn(column, Array.isArray(ids) ? q.idsParam(ids as readonly number[]) : ids);
}

/**
 * A query over a batch of ids (a list page's tickets, their requesters), compiled once rather than
 * built on every call, with the batch as one parameter: `build` gets `inIds(column)` to say
 * `column IN (the batch)`. Building a query with fifty parameters cost more than SQLite running
 * it (a list page's dozen lookups were a fifth of its CPU), and so did binding fifty named
 * parameters to each run (issue 32: a lookup of 50 ids on an empty table took 0.2 ms). Other
 * parameters are `sql.placeholder(name)`s, given in `params` (never named `ids`).
 */
export function preparedForIds<Q extends PromiseLike<unknown>>(
  build: (db: Db, inIds: IdsIn) => Q,
): (conn: Conn, ids: readonly number[], params?: Record<string, unknown>) => Promise<RowOf<Q>[]> {
  const stmt = prepared((db) => build(db, (column) => idsIn(db, column, sql.placeholder('ids'))));
  return async (conn, ids, params = {}) =>
    ids.length === 0 ? [] : stmt(conn).all({ ...params, ids: conn.store.queries.idsParam(ids) });
}

/** The row type of a query builder (what one element of its awaited result is). */
export type RowOf<Q> = Awaited<Q> extends (infer R)[] ? R : never;

/** The first row of a query's result (or undefined): `await first(db.select()…)`. */
export async function first<T>(rows: PromiseLike<T[]>): Promise<T | undefined> {
  return (await rows)[0];
}

/** `column = value` ignoring letter case, in the dialect of the store of `conn`. */
export function sameName(conn: Conn, column: unknown, value: string): SQL {
  return conn.store.queries.sameName(column, value);
}

/** The lower-cased domain of an e-mail column, as the store's index of it has it (compare with a lower-cased domain). */
export function emailDomain(conn: Conn, column: unknown): SQL {
  return conn.store.queries.emailDomain(column);
}

/** `column` in a condition, kept from choosing the plan through its index (a planner hint, where the dialect has one). */
export function notIndexed(conn: Conn, column: unknown): SQL {
  return conn.store.queries.notIndexed(column);
}

/** The columns of the unique constraint an error of the store of `conn` broke (`["teams.name"]`), or undefined. */
export function uniqueViolation(conn: Conn, err: unknown): string[] | undefined {
  return conn.store.errors.uniqueViolation(err);
}

/** `query` (a select inside a unit of work) claiming its rows: other processes skip them. */
export const claimRows = <Q>(conn: Conn, query: Q): Q => conn.store.coordination.claimRows(query);
/** A process-wide lock by name (one IMAP poller among several processes), or null when another process has it. */
export const tryLock = (conn: Conn, name: string) => conn.store.coordination.tryLock(name);

/** Inside a unit of work, before appending to the change log (`transactions`): see Store.logAppend. */
export const logAppend = (tx: Tx) => tx.store.work.logAppend(tx);
/** Inside a unit of work that moved entries between tickets: their text index made afresh (see StoreQueries). */
export const reindexTicketText = async (tx: Tx, ids: number[]): Promise<void> => {
  await tx.store.queries.reindexTicketText?.(tx, ids);
};
/** How far the change log may be read (see Store.logHorizon). */
export const logHorizon = (conn: Conn) => conn.store.queries.logHorizon();
/** Hears the change log grow and broadcast messages, from every process of the store; returns the unsubscribe. */
export const listenStore = (conn: Conn, fn: (signal: StoreSignal) => void) => conn.store.coordination.listen(fn);
/** A short message to every process of the store (presence, SPEC C5). */
export const broadcast = (conn: Conn, payload: string) => conn.store.coordination.broadcast(payload);

/** Why the store cannot serve, or null when it can. */
export const storeProblem = (conn: Conn) => conn.store.errors.problem();
/** Whether the store's writes fail for lack of storage right now (checked again when asked): the failure, or null. */
export const storeStorageProblem = (conn: Conn) => conn.store.errors.storageProblem();
/** Closes the store (both connections on SQLite, the pool on PostgreSQL). */
export const closeStore = (conn: Conn) => conn.store.close();

export const dialectOf = (conn: Conn) => conn.store.dialect;

/**
 * How many rows an awaited `update`/`delete`/`insert` (without `returning()`) changed: SQLite's
 * result says `changes`, PostgreSQL's `rowCount`.
 */
export function changes(result: unknown): number {
  const r = result as { changes?: number; rowCount?: number | null };
  return Number(r.changes ?? r.rowCount ?? 0);
}

/** The one row a write `… .returning()` gives back (it always gives one). */
export async function one<T>(rows: PromiseLike<T[]>): Promise<T> {
  const r = (await rows)[0];
  if (r === undefined) throw new Error('The write returned no row');
  return r;
}

/**
 * What went wrong, in the database's own words, for a log or a stored error: drizzle wraps a
 * driver's error on PostgreSQL ("Failed query: <the SQL> params: <the values>", the driver's
 * error as `cause`), which would put statements and customer data where only the reason belongs.
 */
export function errorMessage(e: unknown): string {
  const err = e instanceof DrizzleQueryError && e.cause instanceof Error ? e.cause : e;
  return (err instanceof Error ? err.message : '') || String(err);
}
