import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Decision 026 and ARCHITECTURE: the domain (and everything above the store) is unaware of
// which database it runs on. It talks to src/db/port.ts; only src/db/store.ts (the factory),
// the CLI and the server may reach an implementation.

const root = path.resolve(import.meta.dirname, '..');
const files = (dir: string): string[] => fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []);
const ABOVE_THE_STORE = ['src/domain', 'src/scrips', 'src/mail', 'src/routes', 'src/views', 'src/events'].filter((d) => fs.existsSync(path.join(root, d)))
  .flatMap(files).concat('src/app.tsx', 'src/workers.ts');

const DIALECT_MODULES = /from '(better-sqlite3|pg|drizzle-orm\/(sqlite-core|better-sqlite3|pg-core|node-postgres)|[./]+\/db\/(sqlite|postgres)\/[^']*|[./]+\/db\/store\.js)'/;
/** SQL that exists on one dialect only (or an SQLite planner hint). */
const DIALECT_SQL = /COLLATE NOCASE|hx_contains|hx_check|\bMATCH\b|\browid\b|\+\$\{|IFNULL|group_concat|strftime|julianday|unixepoch|json_extract|INSERT OR |\bILIKE\b|::(int|text|bigint)|FOR UPDATE|pg_advisory/i;

describe('the domain imports no dialect', () => {
  it.each(ABOVE_THE_STORE)('%s', (file) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const imports = text.split('\n').filter((l) => DIALECT_MODULES.test(l));
    expect(imports, 'imports a database implementation').toEqual([]);
    const sqlTexts = [...text.matchAll(/sql(?:<[^>]*>)?`([^`]*)`/g)].map((m) => m[1]).filter((s) => DIALECT_SQL.test(s));
    expect(sqlTexts, 'writes dialect-specific SQL').toEqual([]);
    expect(text, 'opens a transaction of a driver instead of the port').not.toMatch(/\.transaction\(\(|\$client/);
  });
});

// Decision 042: a full disk or a read-only store reaches the rest of the code as the port's
// StorageUnavailable; which driver codes mean it is known under src/db/<dialect>/ only.
const OUTSIDE_THE_DIALECTS = files('src').filter((f) => !/^src\/db\/(sqlite|postgres)\//.test(f));
const DIALECT_ERROR_CODES = /\bSQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)\w*|['"](53\d{3}|53[0-9A-Z]{3}|25006|58030)['"]/;

describe('storage failures are read by the stores', () => {
  it.each(OUTSIDE_THE_DIALECTS)('%s', (file) => {
    const hits = fs.readFileSync(path.join(root, file), 'utf8').split('\n').filter((l) => DIALECT_ERROR_CODES.test(l));
    expect(hits, 'names a database error code outside src/db/<dialect>/').toEqual([]);
  });
});
