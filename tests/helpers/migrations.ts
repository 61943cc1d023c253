import fs from 'node:fs';
import os from 'node:os';
import { afterEach } from 'vitest';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';

/**
 * A database file in `dir` migrated with every migration before the one whose tag starts with
 * `before` (`0013_`), as an install made before it has it; `fill` writes its data. The server's
 * own openDb then applies the rest, as an upgrade does.
 */
export function databaseBefore(dir: string, before: string, fill: (raw: Database.Database) => void): string {
  const old = migrationsBefore(dir, 'src/db/sqlite/migrations', before);
  const file = path.join(dir, 'hxdesk.db');
  const raw = new Database(file);
  try {
    migrate(drizzle(raw), { migrationsFolder: old });
    fill(raw);
  } finally {
    raw.close();
    fs.rmSync(old, { recursive: true, force: true }); // a copy for this migration only: the data dir holds the database, as an install has it
  }
  return file;
}

/**
 * A copy (in `dir`) of the migrations folder `from` (relative to the repository) holding every
 * migration before the one whose tag starts with `before`; for a database as an older install has it
 * (`migratePostgres(url, pgFolder)` with `src/db/postgres/migrations`).
 */
export function migrationsBefore(dir: string, from: string, before: string): string {
  const old = path.join(dir, `migrations-before-${before.replace(/\W/g, '')}`);
  fs.cpSync(path.resolve(import.meta.dirname, '../..', from), old, { recursive: true });
  const journalFile = path.join(old, 'meta/_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8'));
  const at = journal.entries.findIndex((e: { tag: string }) => e.tag.startsWith(before));
  if (at < 1) throw new Error(`no migration ${before} after the first`);
  journal.entries = journal.entries.slice(0, at);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return old;
}

/**
 * The tag prefix (`0036_`) of the migration tagged `…_<name>` in a migrations folder (`src/db/sqlite/migrations`):
 * migrations are renumbered when branches merge, so tests name them by what they do.
 */
export function migrationTag(folder: string, name: string): string {
  const journal = JSON.parse(
    fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', folder, 'meta/_journal.json'), 'utf8'),
  ) as { entries: { tag: string }[] };
  const entry = journal.entries.find((e) => e.tag.endsWith(`_${name}`));
  if (!entry) throw new Error(`no migration tagged _${name} in ${folder}`);
  return `${entry.tag.split('_')[0]}_`;
}

/** A maker of temporary directories (`prefix` then random), each removed after the test that made it. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
