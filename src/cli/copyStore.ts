// `hxdesk copy-store --to postgres://…` (SPEC C6, docs/decisions/029): moves a SQLite install to
// PostgreSQL with every row of every table of the schema, ids included. This module runs the
// copy; what each database is asked lives in its own folder: the source in
// src/db/sqlite/copySource.ts, the plan and the target in src/db/postgres/copyTarget.ts.
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
import path from 'node:path';
import { checkTarget, copyPlan, openTarget } from '../db/postgres/copyTarget.js';
import { migratePostgres } from '../db/postgres/migrate.js';
import { StoreError } from '../db/shared/storeError.js';
import { openSource } from '../db/sqlite/copySource.js';

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
  /** SQLite tables not copied, by name: the FTS5 search indexes, search_pending, word_terms, ticket_parts_version, drizzle's bookkeeping (shadow and sqlite_ tables go unnamed). */
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
  const src = openSource(source, plan);
  try {
    const warnings = await checkTarget(url, where, plan);
    try {
      await migratePostgres(url);
    } catch (e) {
      throw new StoreError(`cannot migrate ${where} (${(e as Error).message}); no row was copied`);
    }

    const target = await openTarget(url, where, plan);
    const tables: TableCopied[] = [];
    try {
      await target.begin();
      const batching = { batchRows: opts.batchRows ?? 500, batchBytes: opts.batchBytes ?? 8 * 1024 * 1024 };
      src.begin();
      try {
        for (const t of plan) {
          const s = performance.now();
          const copied = await target.copyTable(t, src.rows(t), batching);
          const done = { table: t.name, rows: copied.rows, bytes: copied.bytes, ms: Math.round(performance.now() - s) };
          tables.push(done);
          opts.onTable?.(done);
        }
      } finally {
        src.end();
      }
      await target.commit();
    } catch (e) {
      await target.rollback();
      await target.end();
      if (e instanceof StoreError) throw e;
      throw new StoreError(
        `the copy to ${where} failed and was rolled back, nothing was copied (${(e as Error).message})`,
      );
    }
    let vacuumed = false;
    try {
      await target.vacuum();
      vacuumed = true;
    } catch (e) {
      warnings.push(
        `the copy is complete, but VACUUM ANALYZE failed (${(e as Error).message}); run it on the database before serving from it`,
      );
    } finally {
      await target.end();
    }
    return {
      source,
      target: where,
      tables,
      skipped: src.skipped,
      foreign: src.foreign,
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
