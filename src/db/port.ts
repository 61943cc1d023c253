import { noteLockedTicket, oncePerUnit as onceIn, type UnitOutcome, withUnitMemo } from './unitMemo.js';
import { DrizzleQueryError, eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { tickets as ticketsTable } from './tables.js';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type * as schema from './tables.js';
import { causeChain, StorageUnavailable } from './storageErrors.js';
import type { TicketListSpec } from './ticketListSpec.js';
import type { PageParts } from './shared/pageParts.js';

// The store port (docs/decisions/026): everything the domain, the scrips and the mail intake
// may ask of the database, with no dialect and no driver in it. A store (src/db/sqlite or
// src/db/postgres, opened by src/db/store.ts) is an object, `Store`, handed to the app in its
// dependencies; every handle it gives out carries it (`conn.store`, decision 065). The domain builds queries with
// drizzle's query builder on a handle, always `await`s them (never `.get()`, `.all()`, `.run()`:
// those exist on one dialect only), writes only inside `transaction()`, and asks the store for
// what differs between dialects (case-insensitive names, text search, ticket lists).

/**
 * The query builder of a handle: drizzle's dialect core for SQLite in its async form, no driver
 * (its query API — select, insert … returning, update, delete, onConflict… — is the one both
 * dialects share; the PostgreSQL store runs the same builders through its own dialect, decision
 * 027). What only one dialect has is left out: `get`, `all`, `run`, `values` (raw SQL in one
 * dialect), `transaction` (`transaction()` below), `batch`.
 */
export type QueryBuilder = Omit<
  BaseSQLiteDatabase<'async', unknown, typeof schema>,
  'get' | 'all' | 'run' | 'values' | 'transaction'
>;

/**
 * A handle to build queries on: the store's reader outside a unit of work, the unit of work's
 * own handle inside one. It carries the store that gave it out (decision 065): the port's
 * functions below ask that store, with no lookup and nothing global.
 */
export type Db = QueryBuilder & { readonly store: Store };
/** The handle inside a unit of work. */
export type Tx = Db;
/** Helpers that run inside or outside a unit of work take a `Conn`. */
export type Conn = Db;

/** A value now on SQLite (whose driver is synchronous), a promise on PostgreSQL: always `await` it. */
export type Awaitable<T> = T | Promise<T>;

/** A query built once per store and run with `sql.placeholder()` parameters. */
export interface Prepared<Row> {
  get(params?: Record<string, unknown>): Awaitable<Row | undefined>;
  all(params?: Record<string, unknown>): Awaitable<Row[]>;
  run(params?: Record<string, unknown>): Awaitable<{ changes: number }>;
}

/**
 * The storage failure `err` stands for, or undefined: `err` itself, one in its causes, or the
 * reading by the store of `conn` of a driver error that escaped a unit of work (each store reads
 * its own driver's errors: two stores in one process never mix them up).
 */
export function storageUnavailable(conn: Conn, err: unknown): StorageUnavailable | undefined {
  for (const e of causeChain(err)) if (e instanceof StorageUnavailable) return e;
  return conn.store.errors.storageFailure(err);
}

/** A row of `tickets`, as the query builder returns it. */
export type TicketRowOf = typeof schema.tickets.$inferSelect;
export type UserRowOf = typeof schema.users.$inferSelect;

/** The unit of work: running one, the handle inside it, its locks and its prepared statements. */
export interface StoreWork {
  /** Runs `fn` as one unit of work: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>, opts?: UnitOfWork): Promise<T>;
  /**
   * Locks a ticket's row for a change until the unit of work ends (absent: one writer, nothing to
   * lock), and returns the row as it is once locked (null: there is no such ticket; undefined: the
   * unit of work had locked it already). It notes the configuration's version (decision 067) as it goes.
   */
  lockTicket?(tx: Tx, id: number): Awaitable<TicketRowOf | null | undefined>;
  /** Locks a name until the unit of work ends (absent: one writer, nothing to lock); notes the configuration's version. */
  lockName?(tx: Tx, name: string): Awaitable<void>;
  /**
   * The configuration's version (decision 067) read by a unit of work that has not learnt it with
   * a lock: PostgreSQL reads it with the statement that takes the transaction id. Absent: read
   * with the query builder.
   */
  readConfigVersion?(tx: Tx): Promise<number>;
  /** Units of work run again after a conflict, and given up, per operation (absent: none). */
  writeRetries?(): WriteRetries;
  /** Whether `conn` is the handle of an open unit of work. */
  isTx(conn: Conn): boolean;
  /**
   * Runs one statement built on this store's handle (an INSERT carrying file bytes) on its own,
   * committed at once, away from the thread that serves requests; its rows (absent: the store
   * runs it as a unit of work of its own).
   */
  writeApart?(query: unknown, opts?: { handOver?: ReadonlySet<unknown> }): Promise<Record<string, unknown>[]>;
  prepare<Row>(conn: Conn, key: object, build: (db: Db) => unknown): Prepared<Row>;
  /**
   * Called inside a unit of work before it appends to the change log (the `transactions` table,
   * SPEC C5): PostgreSQL takes the transaction id before the entry's id (what logHorizon relies
   * on) and notes that the unit of work appended, to NOTIFY once it has committed (no lock).
   * SQLite (one writer) notes that the unit of work appended, and tells its listeners once it
   * has committed.
   */
  logAppend(tx: Tx): Awaitable<void>;
}

/** The queries whose SQL differs between dialects (ticket lists, people search, names, the change log's horizon). */
export interface StoreQueries {
  /** `column = value`, ignoring letter case: what the unique name indexes compare. */
  sameName(column: unknown, value: string): SQL;
  /** A column in a condition that must not drive the plan through its index (SQLite: `+column`). */
  notIndexed(column: unknown): SQL;
  /** `column IN` a batch of ids given as one parameter (`ids`: its placeholder, or idsParam's value). */
  idsIn(column: unknown, ids: unknown): SQL;
  /** The value of that parameter for a batch of ids (SQLite: a JSON array; PostgreSQL: the array itself). */
  idsParam(ids: readonly number[]): unknown;
  /** The domain of an e-mail column (after its first @), lower-cased: the expression `users_email_domain_idx` holds. */
  emailDomain(column: unknown): SQL;
  /** A page of tickets and the total, for a list filter; with what `spec.parts` asks for beside them, if the store reads it (decision 105). */
  listTickets(
    conn: Conn,
    spec: TicketListSpec,
  ): Promise<{ rows: TicketRowOf[]; total: number; exact: boolean; parts?: PageParts }>;
  /** Active users whose name or e-mail contains `needle` (lower-cased), at most `n`, e-mail prefix matches first. */
  searchPeople(conn: Conn, needle: string, n: number): Promise<UserRowOf[]>;
  /**
   * SPEC D3: the text index of these tickets made afresh after entries moved between them (a
   * merge, an unmerge), inside that unit of work. Absent: the store searches the rows themselves.
   */
  reindexTicketText?(conn: Conn, ids: number[]): Promise<void>;
  /**
   * How far the change log may be read without ever skipping an entry that commits later (SPEC
   * D1): SQLite's one writer commits in id order (the newest id); PostgreSQL's writers do not
   * (src/db/postgres/logHorizon.ts).
   */
  logHorizon(): Promise<LogHorizon>;
}

/** Coordination between units of work and processes: claims, process locks, signals. */
export interface StoreCoordination {
  /**
   * Rows a select reads inside a unit of work, locked for it and skipped by every other process
   * that claims at the same time (PostgreSQL: `FOR UPDATE SKIP LOCKED`). SQLite has one writer at
   * a time, so the query is returned as it is.
   */
  claimRows<Q>(query: Q): Q;
  /**
   * A lock held by this process until released, or until the process dies (PostgreSQL: a
   * session advisory lock on a connection of its own), or null when another process holds it.
   * SQLite serves one process per file: always granted.
   */
  tryLock(name: string): Promise<HeldLock | null>;
  /**
   * Hears the store's signals, from every process of the store: `'log'` after a unit of work that
   * appended to the change log committed (and after a lost LISTEN connection came back, when
   * some may have been missed), `'message'` with a payload someone `broadcast`. Returns the
   * unsubscribe.
   */
  listen(fn: (signal: StoreSignal) => void): () => void;
  /** Sends a short message (at most 7,000 bytes) to every listener of every process of the store. */
  broadcast(payload: string): Promise<void>;
}

/** What a driver's errors mean, and whether the store can serve. */
export interface StoreErrors {
  /** The columns (`table.column`) of the unique constraint `err` broke; undefined for other errors. */
  uniqueViolation(err: unknown): string[] | undefined;
  /** Why the store cannot serve, or null when it can (health check). */
  problem(): Promise<string | null>;
  /** The storage failure a driver error means (disk full, read-only…), or undefined for any other error. */
  storageFailure(err: unknown): StorageUnavailable | undefined;
  /**
   * The storage failure the store's writes met, while it lasts, or null: set when a unit of work
   * fails for lack of storage, cleared once a probe write of the store's own commits again
   * (tried when asked, at most once a second).
   */
  storageProblem(): Promise<StorageUnavailable | null>;
}

/**
 * A store: what `openStore()` (src/db/store.ts) returns and the app is handed in its
 * dependencies (decision 065); each dialect's implements it (SPEC D1: split by concern).
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** The handle of the database outside any unit of work (reads only). */
  readonly db: Db;
  readonly work: StoreWork;
  readonly queries: StoreQueries;
  readonly coordination: StoreCoordination;
  readonly errors: StoreErrors;
  /** The configuration this process keeps between units of work, by version (decision 067). */
  readonly config: ConfigCache;
  /**
   * The store's own background work (SQLite: search indexing, WAL checkpoints); stopped at shutdown.
   * `onError` hears each failure (a StorageUnavailable when it is one); the caller limits the lines.
   */
  startMaintenance(
    onError: (what: string, error: unknown) => void,
    opts: { searchIndexMs: number },
  ): { stop(): Promise<void> };
  close(): Promise<void>;
}

/** The per-store cache (`Store.config`, src/db/configCache.ts): one per store object, so two apps in one process never share one. */
export interface ConfigCache {
  /** The value of `key` loaded under `version`, or undefined. */
  get(key: string, version: number): unknown;
  /** Keeps `value` for `key` under `version` (a newer version than the kept one forgets the rest). */
  set(key: string, version: number, value: unknown): void;
  /** Units of work of this process that changed configuration and have not settled (nothing is kept meanwhile). */
  pending: number;
  /** Forgets everything (a unit of work that changed configuration failed). */
  clear(): void;
}

/** How a unit of work runs (docs/decisions/058). */
export interface UnitOfWork {
  /** What the unit of work is, for the retry counts and logs (default: the calling function's name). */
  op?: string;
  /** SERIALIZABLE instead of READ COMMITTED (PostgreSQL): for a rule over several rows no row lock covers. */
  serializable?: boolean;
}

/** Per operation: how often a unit of work ran again after a deadlock or serialization failure, and gave up. */
export type WriteRetries = Record<string, { retries: number; give_ups: number }>;

/** Where a store writes its log lines (the app's logger). */
export type StoreLog = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export type StoreSignal = { kind: 'log' } | { kind: 'message'; payload: string };

/**
 * How far the change log may be read (SPEC D1): every entry with an id at or below `upTo` has
 * committed or never will; `settled` is false while entries above it may still commit (units of
 * work in flight), so a reader asks again shortly.
 */
export interface LogHorizon {
  upTo: number;
  settled: boolean;
}

export interface HeldLock {
  /**
   * Whether the lock is still this process's (PostgreSQL: its connection is alive — a session
   * lock ends with its session, e.g. when the server restarted or the network cut it).
   */
  held(): Promise<boolean>;
  release(): Promise<void>;
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
