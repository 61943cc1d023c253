// `hxdesk copy-store --to postgres://…` (SPEC C6, docs/decisions/029): moves a SQLite install to
// PostgreSQL with every row of every table of the schema, ids included. This is dialect work on
// both sides at once, so it lives here beside the store factory, not under sqlite/ or postgres/.
//
//  1. The SQLite file: must exist, be hxdesk's, pass integrity_check, and have no migration
//     pending (nor one newer than this code). It is locked exclusively for the whole copy: a
//     server still running on it is refused (what it wrote after the copy would be lost), and
//     none can start meanwhile. No row of it is ever written.
//  2. The target: reachable, PostgreSQL 14+, UTF-8, pg_trgm available, and empty — no table
//     that is not hxdesk's, and no row in hxdesk's. All of this is checked before anything is
//     created there, so a refusal changes nothing.
//  3. The target is migrated (the same migrations the server applies at start).
//  4. One transaction: every table locked, emptiness checked again under the locks, every
//     table copied in foreign-key order in batches with its ids, each table's count compared,
//     syncSequences(). Any failure rolls it all back: the target is left migrated and empty.
//  5. VACUUM ANALYZE: statistics for the planner and the GIN pending lists flushed (decision 025).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { migratePostgres, requireUtf8 } from './postgres/migrate.js';
import * as pgSchema from './postgres/schema.js';
import { syncSequences } from './postgres/sequences.js';
import { checkHxdeskDatabase, StoreError } from './sqlite/backup.js';

/** How one table's column is carried over: its name and what PostgreSQL wants of a SQLite value. */
interface ColumnPlan {
  name: string;
  kind: 'integer' | 'bigint' | 'boolean' | 'text' | 'bytea' | 'double';
  notNull: boolean;
}
interface TablePlan {
  name: string;
  columns: ColumnPlan[];
  orderBy: string[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function kindOf(sqlType: string, where: string): ColumnPlan['kind'] {
  switch (sqlType) {
    case 'integer':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'boolean':
      return 'boolean';
    case 'text':
      return 'text';
    case 'bytea':
      return 'bytea';
    case 'double precision':
      return 'double';
    default:
      throw new Error(`${where}: copy-store does not know how to carry a ${sqlType} column; teach src/db/copyStore.ts`);
  }
}

/**
 * Every table of the PostgreSQL schema (derived from src/db/sqlite/schema.ts), parents before the
 * tables whose foreign keys point at them, so each row's references exist when it is inserted.
 */
export function copyPlan(): TablePlan[] {
  const tables = (Object.values(pgSchema) as unknown[])
    .filter((t): t is PgTable => is(t, PgTable))
    .map((t) => getTableConfig(t));
  const byName = new Map(tables.map((c) => [c.name, c]));
  const ordered: TablePlan[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, from: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting')
      throw new Error(`copy-store: foreign keys form a cycle (${[...from, name].join(' → ')})`);
    state.set(name, 'visiting');
    const c = byName.get(name)!;
    for (const fk of c.foreignKeys) {
      const parent = getTableConfig(fk.reference().foreignTable).name;
      if (parent !== name) visit(parent, [...from, name]);
    }
    state.set(name, 'done');
    const pk = c.columns.filter((col) => col.primary).map((col) => col.name);
    const composite = c.primaryKeys[0]?.columns.map((col) => col.name) ?? [];
    ordered.push({
      name,
      columns: c.columns.map((col) => ({
        name: col.name,
        kind: kindOf(col.getSQLType(), `${name}.${col.name}`),
        notNull: col.notNull,
      })),
      orderBy: pk.length ? pk : composite,
    });
  };
  for (const c of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(c.name, []);
  return ordered;
}

export interface TableCopied {
  table: string;
  rows: number;
  bytes: number;
  ms: number;
}
export interface CopyStoreResult {
  source: string;
  target: string;
  tables: TableCopied[];
  rows: number;
  /** Bytes of attachments and raw mail (bytea) copied. */
  bytes: number;
  /** SQLite tables not copied, by name: the FTS5 search index, search_pending, drizzle's bookkeeping (shadow and sqlite_ tables go unnamed). */
  skipped: string[];
  /** Tables in the file that are not hxdesk's (made by hand?): not copied either, named so the user knows. */
  foreign: string[];
  /** Notes about the target worth reading (a locale that folds case for ASCII only). */
  warnings: string[];
  /** Whether VACUUM ANALYZE ran (a failure of it is a warning: the copy itself is committed). */
  vacuumed: boolean;
  ms: number;
}

export interface CopyStoreOptions {
  /** Called after each table is copied (progress). */
  onTable?: (t: TableCopied) => void;
  /** Rows per INSERT (at most; fewer when a batch's bytes reach batchBytes). */
  batchRows?: number;
  batchBytes?: number;
}

/** The URL for messages: without its password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(the URL)';
  }
}

/** Checks that `url` names a PostgreSQL database (postgres:// or postgresql://, with a database name). */
export function checkPostgresUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a URL; give postgres://user@host:port/database`;
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    return `${redactUrl(url)} is not a PostgreSQL URL; give postgres://user@host:port/database`;
  if (!u.hostname && !u.searchParams.get('host'))
    return `${redactUrl(url)} names no host; give postgres://user@host:port/database`;
  if (u.pathname.replace(/^\//, '') === '')
    return `${redactUrl(url)} names no database; give postgres://user@host:port/database`;
  return null;
}

/** The SQLite tables that have no PostgreSQL counterpart by design (what PostgreSQL does instead is in decision 025). */
function internalTables(db: Database.Database): { all: Set<string>; named: string[] } {
  const rows = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as {
    name: string;
    sql: string | null;
  }[];
  const virtual = rows.filter((r) => /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(r.sql ?? '')).map((r) => r.name);
  const shadow = (n: string) => n.startsWith('sqlite_') || virtual.some((v) => n.startsWith(`${v}_`));
  const all = rows
    .map((r) => r.name)
    .filter((n) => shadow(n) || n === '__drizzle_migrations' || n === 'search_pending' || virtual.includes(n));
  // The ones worth naming: the FTS5 tables themselves, not their shadow tables or SQLite's statistics.
  return { all: new Set(all), named: all.filter((n) => !shadow(n)) };
}

/** Opens the SQLite file, holding its exclusive lock: refused while a server has it open. */
function openSource(file: string): Database.Database {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) throw new StoreError(`no database at ${file}`);
  if (!st.isFile()) throw new StoreError(`${file} is not a file`);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 1000 });
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    // As hxdesk restore does (decision 024): a server's connection holds a shared lock on a WAL
    // database even when idle, so this fails while one runs; once taken, the lock stays until
    // close (exclusive locking mode), so no server starts on the file during the copy.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
    return db;
  } catch (e) {
    db?.close();
    const code = (e as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new StoreError(
        `${file} is in use (a running hxdesk server?); stop the server first, or what it writes after the copy would not reach PostgreSQL`,
      );
    }
    throw new StoreError(`${file} cannot be opened as an SQLite database (${(e as Error).message})`);
  }
}

/** Reads the source's state and checks it can be copied as it is; returns its table plan's checks. */
function checkSource(db: Database.Database, file: string, plan: TablePlan[]): { skipped: string[]; foreign: string[] } {
  const { pending } = checkHxdeskDatabase(db, file);
  if (pending.length > 0) {
    throw new StoreError(
      `${file} has migrations pending (${pending.join(', ')}): start this version's server on it once (it migrates, keeping a copy in backups/), stop it, then copy`,
    );
  }
  const { all: internal, named } = internalTables(db);
  const present = (
    db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]
  ).map((r) => r.name);
  const ours = new Set(plan.map((t) => t.name));
  for (const t of plan) {
    const cols = new Set(
      (db.prepare(`PRAGMA table_info(${quote(t.name)})`).all() as { name: string }[]).map((c) => c.name),
    );
    if (cols.size === 0)
      throw new StoreError(`${file} has no table ${t.name}, which this version's schema has; is it migrated?`);
    const missing = t.columns.filter((c) => !cols.has(c.name)).map((c) => c.name);
    const extra = [...cols].filter((c) => !t.columns.some((p) => p.name === c));
    if (missing.length || extra.length) {
      throw new StoreError(
        `${file}: table ${t.name} differs from the PostgreSQL schema (${[...missing.map((c) => `no column ${c}`), ...extra.map((c) => `extra column ${c}`)].join(', ')})`,
      );
    }
  }
  return {
    skipped: named,
    foreign: present.filter((n) => !internal.has(n) && !ours.has(n)),
  };
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 15_000 });
  client.on('error', () => {
    /* reported by the query that meets it */
  });
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => {});
    throw new StoreError(
      `cannot connect to ${redactUrl(url)} (${(e as Error).message || (e as { code?: string }).code})`,
    );
  }
  return client;
}

/**
 * What the target holds of hxdesk's tables (rows per table, only those with rows) and which of
 * its tables are not hxdesk's. Looks in every schema but PostgreSQL's own and drizzle's bookkeeping.
 */
async function targetContents(
  client: pg.ClientBase,
  plan: TablePlan[],
): Promise<{ filled: string[]; foreign: string[] }> {
  const ours = new Set(plan.map((t) => t.name));
  const { rows } = await client.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
      WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg\\_%'
        AND NOT (table_schema = 'drizzle' AND table_name = '__drizzle_migrations')
      ORDER BY 1, 2`,
  );
  const foreign = rows
    .filter((r) => !ours.has(r.name))
    .map((r) => (r.schema === 'public' ? r.name : `${r.schema}.${r.name}`));
  const filled: string[] = [];
  // In copy order (users first): the tables that tell most about what the database is.
  const rank = (name: string) => plan.findIndex((t) => t.name === name);
  for (const r of rows.filter((x) => ours.has(x.name)).sort((a, b) => rank(a.name) - rank(b.name))) {
    const n = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(r.schema)}.${quote(r.name)}`))
      .rows[0].n;
    if (n > 0) filled.push(`${r.name} (${n} row${n === 1 ? '' : 's'})`);
  }
  return { filled, foreign };
}

/** Refuses a target that cannot serve hxdesk or already holds something; returns notes worth printing. */
async function checkTarget(client: pg.ClientBase, where: string, plan: TablePlan[]): Promise<string[]> {
  const setting = async (name: string) =>
    (await client.query<{ v: string }>('SELECT current_setting($1) AS v', [name])).rows[0].v;
  const version = Number(await setting('server_version_num'));
  if (version < 140000)
    throw new StoreError(`${where} runs PostgreSQL ${await setting('server_version')}; hxdesk needs 14 or newer`);
  // The check the store makes at every start, made before anything is written.
  try {
    await requireUtf8(client);
  } catch (e) {
    throw new StoreError(`${where}: ${(e as Error).message}`);
  }
  const trgm = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'");
  if (trgm.rowCount === 0)
    throw new StoreError(
      `${where}: the pg_trgm extension is not installed on that server (Debian: postgresql-contrib); hxdesk's search needs it`,
    );
  const { filled, foreign } = await targetContents(client, plan);
  if (filled.length > 0) {
    throw new StoreError(
      `${where} already holds data (${filled.slice(0, 5).join(', ')}${filled.length > 5 ? ', …' : ''}); copy into an empty database (createdb), nothing was changed`,
    );
  }
  if (foreign.length > 0) {
    throw new StoreError(
      `${where} holds tables that are not hxdesk's (${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}); copy into an empty database, nothing was changed`,
    );
  }
  const warnings: string[] = [];
  const ctype = await setting('lc_ctype');
  if (!/utf-?8/i.test(ctype))
    warnings.push(
      `the database's LC_CTYPE is ${ctype}: search folds case for ASCII letters only there; a UTF-8 locale (C.UTF-8) folds all of them, as SQLite's search does`,
    );
  return warnings;
}

/** A SQLite value as PostgreSQL takes it for the column, or an error naming the row. */
function convert(value: unknown, col: ColumnPlan, where: () => string): unknown {
  if (value === null || value === undefined) {
    if (col.notNull) throw new StoreError(`${where()}: NULL in a NOT NULL column`);
    return null;
  }
  switch (col.kind) {
    case 'boolean':
      if (value === 0 || value === 1 || value === 0n || value === 1n) return Number(value) === 1;
      if (value === true || value === false) return value;
      throw new StoreError(`${where()}: ${JSON.stringify(String(value))} is not a boolean (0 or 1)`);
    case 'integer':
    case 'bigint': {
      const n = typeof value === 'bigint' ? Number(value) : value;
      const max = col.kind === 'integer' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
      if (typeof n !== 'number' || !Number.isInteger(n))
        throw new StoreError(`${where()}: ${JSON.stringify(String(value))} is not an integer`);
      if (n > max || n < -max - 1) throw new StoreError(`${where()}: ${n} does not fit PostgreSQL's ${col.kind}`);
      return n;
    }
    case 'double':
      if (typeof value !== 'number')
        throw new StoreError(`${where()}: ${JSON.stringify(String(value))} is not a number`);
      return value;
    case 'text': {
      const s = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
      // PostgreSQL text cannot hold U+0000; dropping it silently would change the message.
      if (s.includes('\u0000'))
        throw new StoreError(
          `${where()}: the text holds a NUL character, which PostgreSQL cannot store in text; nothing was copied`,
        );
      return s;
    }
    case 'bytea':
      return Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'utf8');
  }
}

/** Copies one table: reads it in primary-key order, inserts it in multi-row INSERTs. */
async function copyTable(
  src: Database.Database,
  client: pg.ClientBase,
  t: TablePlan,
  opts: Required<Pick<CopyStoreOptions, 'batchRows' | 'batchBytes'>>,
): Promise<{ rows: number; bytes: number }> {
  const cols = t.columns.map((c) => quote(c.name)).join(', ');
  const order = t.orderBy.length ? ` ORDER BY ${t.orderBy.map(quote).join(', ')}` : '';
  const read = src.prepare(`SELECT ${cols} FROM ${quote(t.name)}${order}`).raw(true);
  // PostgreSQL takes at most 65535 parameters per statement.
  const perInsert = Math.max(1, Math.min(opts.batchRows, Math.floor(65535 / t.columns.length)));
  const idCol = t.orderBy.length === 1 ? t.columns.findIndex((c) => c.name === t.orderBy[0]) : -1;
  let batch: unknown[][] = [];
  let batchBytes = 0;
  let rows = 0;
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const values = batch
      .map((_, r) => `(${t.columns.map((__, c) => `$${r * t.columns.length + c + 1}`).join(', ')})`)
      .join(', ');
    await client.query(`INSERT INTO ${quote(t.name)} (${cols}) VALUES ${values}`, batch.flat());
    batch = [];
    batchBytes = 0;
  };
  for (const raw of read.iterate() as Iterable<unknown[]>) {
    const row = raw.map((v, i) =>
      convert(
        v,
        t.columns[i],
        () => `${t.name} ${idCol >= 0 ? `id ${String(raw[idCol])}` : `row ${rows + 1}`}, column ${t.columns[i].name}`,
      ),
    );
    for (const v of row) {
      const size = Buffer.isBuffer(v) ? v.length : typeof v === 'string' ? v.length : 8;
      batchBytes += size;
      if (Buffer.isBuffer(v)) bytes += v.length;
    }
    batch.push(row);
    rows++;
    if (batch.length >= perInsert || batchBytes >= opts.batchBytes) await flush();
  }
  await flush();
  return { rows, bytes };
}

/**
 * Copies the hxdesk SQLite database in `file` into the empty PostgreSQL database at `url` (see
 * the top of this file). Throws StoreError with a one-line reason when it refuses or fails; the
 * SQLite file is never changed, and the target keeps no copied row unless everything was copied.
 */
export async function copyStore(file: string, url: string, opts: CopyStoreOptions = {}): Promise<CopyStoreResult> {
  const t0 = performance.now();
  const source = path.resolve(file);
  const urlProblem = checkPostgresUrl(url);
  if (urlProblem) throw new StoreError(urlProblem);
  const where = redactUrl(url);
  const plan = copyPlan();
  const src = openSource(source);
  try {
    const { skipped, foreign } = checkSource(src, source, plan);
    let client = await connect(url);
    let warnings: string[];
    try {
      warnings = await checkTarget(client, where, plan);
    } finally {
      await client.end().catch(() => {});
    }
    try {
      await migratePostgres(url);
    } catch (e) {
      throw new StoreError(`cannot migrate ${where} (${(e as Error).message}); no row was copied`);
    }

    client = await connect(url);
    const tables: TableCopied[] = [];
    try {
      await client.query('BEGIN');
      // Nobody else reads or writes these tables until the copy commits: a server started on the
      // target meanwhile waits, then finds the copied data (and seeds no administrator of its own).
      await client.query(`LOCK TABLE ${plan.map((t) => quote(t.name)).join(', ')} IN ACCESS EXCLUSIVE MODE`);
      const again = await targetContents(client, plan);
      if (again.filled.length > 0)
        throw new StoreError(
          `${where} received data while the copy started (${again.filled.join(', ')}); is a server running on it? Nothing was copied`,
        );
      const batch = { batchRows: opts.batchRows ?? 500, batchBytes: opts.batchBytes ?? 8 * 1024 * 1024 };
      // One read transaction on the source for the whole copy (it is locked anyway).
      src.exec('BEGIN');
      try {
        for (const t of plan) {
          const s = performance.now();
          const copied = await copyTable(src, client, t, batch);
          const there = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(t.name)}`)).rows[0]
            .n;
          if (there !== copied.rows)
            throw new StoreError(`${t.name}: ${copied.rows} rows read but ${there} in PostgreSQL; nothing was copied`);
          const done = { table: t.name, rows: copied.rows, bytes: copied.bytes, ms: Math.round(performance.now() - s) };
          tables.push(done);
          opts.onTable?.(done);
        }
      } finally {
        src.exec('COMMIT');
      }
      await syncSequences(client);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      await client.end().catch(() => {});
      if (e instanceof StoreError) throw e;
      throw new StoreError(
        `the copy to ${where} failed and was rolled back, nothing was copied (${(e as Error).message})`,
      );
    }
    let vacuumed = false;
    try {
      // Planner statistics for the new rows, and the GIN indexes' pending lists merged (decision 025).
      await client.query('VACUUM ANALYZE');
      vacuumed = true;
    } catch (e) {
      warnings.push(
        `the copy is complete, but VACUUM ANALYZE failed (${(e as Error).message}); run it on the database before serving from it`,
      );
    } finally {
      await client.end().catch(() => {});
    }
    return {
      source,
      target: where,
      tables,
      skipped,
      foreign,
      warnings,
      vacuumed,
      rows: tables.reduce((n, t) => n + t.rows, 0),
      bytes: tables.reduce((n, t) => n + t.bytes, 0),
      ms: Math.round(performance.now() - t0),
    };
  } finally {
    src.close();
  }
}
