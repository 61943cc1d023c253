import { afterAll, afterEach, beforeAll } from 'vitest';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { dialectOf } from '../../src/db/port.js';
import { type Db, poolOf, sqliteOf } from '../../src/db/store.js';
import { createMigratedDatabase } from './postgres.js';
import { testStore } from './store.js';

// Raw SQL on a test server's own store, SQLite or PostgreSQL, for tests that arrange or inspect
// database state the API does not show (a stored hash, a row count, a due time). The statement is
// written once with `?` placeholders (the form both dialects share after translation); on
// PostgreSQL each `?` becomes `$1`, `$2`, … . Keep the SQL itself neutral (no SQLite-only
// functions, no `::casts`): what cannot be is a test about one dialect (`itOn` in ./store.ts).
//
// This goes around the store's units of work, as an operator's client would: use it between
// requests, not to race them.

type HasDb = { db: Db } | Db;
const dbOf = (s: HasDb): Db => ('select' in s ? s : s.db);

/** `?` placeholders as `$1`, `$2`, … (outside string literals and quoted names). */
export function toPgParams(text: string): string {
  let n = 0;
  let out = '';
  let quote: string | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
      continue;
    }
    out += ch === '?' ? `$${++n}` : ch;
  }
  return out;
}

/** The rows a statement returns (a SELECT, or a write with RETURNING). */
export async function rawQuery<Row = Record<string, unknown>>(
  s: HasDb,
  text: string,
  params: unknown[] = [],
): Promise<Row[]> {
  const db = dbOf(s);
  if (dialectOf(db) === 'postgres') return (await poolOf(db).query(toPgParams(text), params)).rows as Row[];
  return sqliteOf(db)
    .prepare(text)
    .all(...params) as Row[];
}

/** The first row a statement returns, or undefined. */
export async function rawGet<Row = Record<string, unknown>>(
  s: HasDb,
  text: string,
  params: unknown[] = [],
): Promise<Row | undefined> {
  return (await rawQuery<Row>(s, text, params))[0];
}

/** Runs a write (or DDL) without RETURNING; returns how many rows it changed. */
export async function rawRun(s: HasDb, text: string, params: unknown[] = []): Promise<number> {
  const db = dbOf(s);
  if (dialectOf(db) === 'postgres') return (await poolOf(db).query(toPgParams(text), params)).rowCount ?? 0;
  const stmt = sqliteOf(db).prepare(text);
  return stmt.run(...params).changes;
}

/**
 * `rawRun` of a change to configuration every process keeps (scrips, templates, queues …; decision
 * 067), and the bump of `config_version` any such change makes, as the app's own writes do: without
 * it, a running server would go on using what it had kept.
 */
export async function rawConfigRun(s: HasDb, text: string, params: unknown[] = []): Promise<number> {
  const n = await rawRun(s, text, params);
  await rawRun(
    s,
    'INSERT INTO config_version (id, version) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET version = config_version.version + 1',
  );
  return n;
}

/** `SELECT count(*) … FROM table [WHERE …]` as a number, on either store. */
export async function rawCount(s: HasDb, table: string, where = '', params: unknown[] = []): Promise<number> {
  const row = await rawGet<{ n: number | string }>(
    s,
    `SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ''}`,
    params,
  );
  return Number(row?.n);
}

/**
 * The settings for one store that several server lives (or processes) share, besides DATA_DIR:
 * on PostgreSQL a fresh migrated database of the file's cluster (`DATABASE_URL`), on SQLite
 * nothing (the file in DATA_DIR is the store).
 */
export async function sharedStoreEnv(): Promise<Record<string, string>> {
  return testStore() === 'postgres' ? { DATABASE_URL: await createMigratedDatabase() } : {};
}

/** A store that server processes (spawned, or started and stopped in turn) share, and raw SQL on it from outside them. */
export interface SharedStore {
  /** DATA_DIR, and DATABASE_URL on PostgreSQL: what every process on this store is started with. */
  env: Record<string, string>;
  /** The rows a statement returns, on a connection of its own (the servers may be running, or dead). */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a write; returns how many rows it changed. */
  run(text: string, params?: unknown[]): Promise<number>;
}

/**
 * The store for server processes on `dataDir`: its SQLite file, or (on PostgreSQL) a fresh
 * migrated database of the test file's cluster. Each `query`/`run` opens its own connection and
 * closes it, as an operator's client would (foreign keys enforced on SQLite, as the server does).
 */
export async function sharedStore(dataDir: string): Promise<SharedStore> {
  const env: Record<string, string> = { DATA_DIR: dataDir, ...(await sharedStoreEnv()) };
  if (env.DATABASE_URL) {
    const url = env.DATABASE_URL;
    const withClient = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return await fn(c);
      } finally {
        await c.end();
      }
    };
    return {
      env,
      query: (text, params = []) => withClient(async (c) => (await c.query(toPgParams(text), params)).rows),
      run: (text, params = []) => withClient(async (c) => (await c.query(toPgParams(text), params)).rowCount ?? 0),
    };
  }
  const withFile = <T>(fn: (f: Database.Database) => T): T => {
    const f = new Database(path.join(dataDir, 'hxdesk.db'));
    try {
      f.pragma('foreign_keys = ON');
      return fn(f);
    } finally {
      f.close();
    }
  };
  return {
    env,
    query: async (text, params = []) => withFile((f) => f.prepare(text).all(...params) as never[]),
    run: async (text, params = []) => withFile((f) => f.prepare(text).run(...params).changes),
  };
}

/**
 * A PostgreSQL connection of the test's own beside the server's (to hold a lock the server must
 * wait for, or to look at what it committed), opened before the describe's tests and closed
 * after them; a test that fails with a transaction open leaves no lock to the next (ROLLBACK
 * after each, a no-op outside a transaction). `url` is read when the connection opens.
 */
export function sideConnection(url: () => string | undefined): { readonly client: pg.Client } {
  let client: pg.Client | undefined;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: url() });
    await client.connect();
  });
  afterEach(async () => {
    await client?.query('ROLLBACK');
  });
  afterAll(async () => {
    await client?.end();
  });
  return {
    get client() {
      if (!client) throw new Error('the side connection is open only inside its describe’s tests');
      return client;
    },
  };
}
