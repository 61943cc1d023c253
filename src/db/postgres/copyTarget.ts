// The PostgreSQL half of `hxdesk copy-store` (SPEC C6, docs/decisions/029): the copy's plan
// (every table of the PostgreSQL schema in foreign-key order), the checks of the target, and the
// one transaction the rows are written in. src/cli/copyStore.ts runs the copy; the SQLite half
// (the source) is src/db/sqlite/copySource.ts.
import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { StoreError } from '../shared/storeError.js';
import { requireUtf8 } from './migrate.js';
import * as pgSchema from './schema.js';
import { syncSequences } from './sequences.js';

/** How one table's column is carried over: its name and what PostgreSQL wants of a SQLite value. */
export interface ColumnPlan {
  name: string;
  kind: 'integer' | 'bigint' | 'boolean' | 'text' | 'bytea' | 'double';
  notNull: boolean;
}
export interface TablePlan {
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
      throw new Error(
        `${where}: copy-store does not know how to carry a ${sqlType} column; teach src/db/postgres/copyTarget.ts`,
      );
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

/** Connects to `url`; `where` names it in messages (the URL without its password). */
async function connect(url: string, where: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 15_000 });
  client.on('error', () => {
    /* reported by the query that meets it */
  });
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => {});
    throw new StoreError(`cannot connect to ${where} (${(e as Error).message || (e as { code?: string }).code})`);
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

/**
 * Refuses a target that cannot serve hxdesk or already holds something (PostgreSQL 14+, UTF-8,
 * pg_trgm and unaccent available, empty), before anything is created there; returns notes worth printing.
 */
export async function checkTarget(url: string, where: string, plan: TablePlan[]): Promise<string[]> {
  const client = await connect(url, where);
  try {
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
    // Both come with PostgreSQL's contrib modules: pg_trgm for substrings, unaccent for words (decision 084).
    for (const extension of ['pg_trgm', 'unaccent']) {
      const found = await client.query('SELECT 1 FROM pg_available_extensions WHERE name = $1', [extension]);
      if (found.rowCount === 0)
        throw new StoreError(
          `${where}: the ${extension} extension is not installed on that server (Debian: postgresql-contrib); hxdesk's search needs it`,
        );
    }
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
  } finally {
    await client.end().catch(() => {});
  }
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

export interface Batching {
  /** Rows per INSERT (at most; fewer when a batch's bytes reach batchBytes). */
  batchRows: number;
  batchBytes: number;
}

/** The target while the rows are written: one transaction, every table of the plan locked. */
export interface CopyTarget {
  /**
   * Begins the copy's transaction: nobody else reads or writes the tables until it commits (a
   * server started on the target meanwhile waits, then finds the copied data and seeds no
   * administrator of its own); their emptiness is checked again under the locks.
   */
  begin(): Promise<void>;
  /**
   * Writes one table's rows (as the source reads them: values in the plan's column order) in
   * multi-row INSERTs, then compares the table's count with the rows read.
   */
  copyTable(t: TablePlan, rows: Iterable<unknown[]>, batching: Batching): Promise<{ rows: number; bytes: number }>;
  /** Moves each sequence past the copied ids, and commits. */
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** VACUUM ANALYZE: planner statistics for the new rows, the GIN indexes' pending lists merged (decision 025). */
  vacuum(): Promise<void>;
  end(): Promise<void>;
}

/** Connects to the (checked, migrated) target for the copy itself. */
export async function openTarget(url: string, where: string, plan: TablePlan[]): Promise<CopyTarget> {
  const client = await connect(url, where);
  return {
    async begin() {
      await client.query('BEGIN');
      await client.query(`LOCK TABLE ${plan.map((t) => quote(t.name)).join(', ')} IN ACCESS EXCLUSIVE MODE`);
      const again = await targetContents(client, plan);
      if (again.filled.length > 0)
        throw new StoreError(
          `${where} received data while the copy started (${again.filled.join(', ')}); is a server running on it? Nothing was copied`,
        );
    },
    async copyTable(t, source, batching) {
      const copied = await insertRows(client, t, source, batching);
      const there = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(t.name)}`)).rows[0].n;
      if (there !== copied.rows)
        throw new StoreError(`${t.name}: ${copied.rows} rows read but ${there} in PostgreSQL; nothing was copied`);
      return copied;
    },
    async commit() {
      await syncSequences(client);
      await client.query('COMMIT');
    },
    async rollback() {
      await client.query('ROLLBACK').catch(() => {});
    },
    async vacuum() {
      await client.query('VACUUM ANALYZE');
    },
    async end() {
      await client.end().catch(() => {});
    },
  };
}

/** Inserts one table's rows in multi-row INSERTs, converting each value for its column. */
async function insertRows(
  client: pg.ClientBase,
  t: TablePlan,
  source: Iterable<unknown[]>,
  opts: Batching,
): Promise<{ rows: number; bytes: number }> {
  const cols = t.columns.map((c) => quote(c.name)).join(', ');
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
  for (const raw of source) {
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
