import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type { SQL } from 'drizzle-orm';
import type * as schema from './tables.js';
import type { TicketListSpec } from './ticketListSpec.js';
import type { PageParts } from './shared/pageParts.js';
import type { StorageUnavailable } from './storageErrors.js';

// What a store is (docs/decisions/026): the handles it gives out and the interfaces it
// implements, types only. src/db/port.ts re-exports them beside the functions the domain calls;
// the domain imports both from there.

/**
 * The query builder of a handle: drizzle's dialect core for SQLite in its async form, no driver
 * (its query API — select, insert … returning, update, delete, onConflict… — is the one both
 * dialects share; the PostgreSQL store runs the same builders through its own dialect, decision
 * 027). What only one dialect has is left out: `get`, `all`, `run`, `values` (raw SQL in one
 * dialect), `transaction` (`transaction()` in port.ts), `batch`.
 */
export type QueryBuilder = Omit<
  BaseSQLiteDatabase<'async', unknown, typeof schema>,
  'get' | 'all' | 'run' | 'values' | 'transaction'
>;

/**
 * A handle to build queries on: the store's reader outside a unit of work, the unit of work's
 * own handle inside one. It carries the store that gave it out (decision 065): the port's
 * functions (port.ts) ask that store, with no lookup and nothing global.
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
