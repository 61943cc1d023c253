import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getTableName } from 'drizzle-orm';
import { CACHED_TABLES } from '../src/db/configCache.js';
import { importCycles, importGraph, type ImportEdge } from './helpers/importGraph.js';

// ARCHITECTURE.md's arrows and its "Never" list, checked on the import graph of src/ as
// TypeScript's parser reads it (tests/helpers/importGraph.ts, docs/decisions/046): each rule
// names the edges that break it, by file and line. A new rule is one more entry in RULES.

const root = path.resolve(import.meta.dirname, '..');
const graph = importGraph(root);

/**
 * The layers, lowest first. An import goes to a lower rank, or stays in its own layer; two
 * layers of one rank are strangers. A file's layer is the first whose prefix it starts with.
 */
const LAYERS = [
  // Modules that import nothing of ours, so every layer may read them: the settings, the
  // logger, private files, and the ticket lifecycle (the domain's vocabulary, which the scrip
  // engine's conditions speak too; views still get statuses as props).
  {
    name: 'leaf',
    rank: 0,
    prefixes: [
      'src/env.ts',
      'src/log.ts',
      'src/dataDir.ts',
      'src/domain/lifecycle.ts',
      'src/markdown.ts',
      'src/stackSource.ts',
      'src/threadHeap.ts',
    ],
  },
  {
    name: 'store port',
    rank: 1,
    // The tables (src/db/tables.ts) are the one schema description, written in SQLite's terms
    // beside SQLite's migrations: everything outside src/db/sqlite/ reads them through tables.ts.
    prefixes: [
      'src/db/port.ts',
      // What a store is (its handles and interfaces, types only), re-exported by port.ts.
      'src/db/storeContract.ts',
      // What a ticket list asks a store, and the errors a store throws (both parts of the port).
      'src/db/ticketListSpec.ts',
      'src/db/storageErrors.ts',
      'src/db/tables.ts',
      'src/db/sqlite/schema.ts',
      // Its tables, a file per part of the product (schema.ts re-exports them).
      'src/db/sqlite/schema/',
      'src/db/storageWatch.ts',
      'src/db/shared/',
      // Decision 066: a unit of work's memo and a write's priority, both AsyncLocalStorage only.
      'src/db/unitMemo.ts',
      'src/db/priority.ts',
      // Decision 098: how many requests the process is answering (a counter, no imports).
      'src/db/requestLoad.ts',
      // Decision 067: the configuration a process keeps between units of work, by version (the query builder only).
      'src/db/configCache.ts',
    ],
  },
  // The one clock (decision 047) belongs to a store and reads nothing but the port: every layer above may ask it the time.
  { name: 'clock', rank: 2, prefixes: ['src/domain/clock.ts'] },
  // SPEC D3 (decision 073): what a status means, read through the port and the configuration
  // cache only, so the scrip engine's conditions and actions ask by category too.
  { name: 'lifecycles', rank: 2, prefixes: ['src/domain/lifecycles/categories.ts'] },
  { name: 'store implementation', rank: 3, prefixes: ['src/db/sqlite/', 'src/db/postgres/'] },
  { name: 'store factory', rank: 4, prefixes: ['src/db/store.ts'] },
  { name: 'scrips', rank: 5, prefixes: ['src/scrips/'] },
  { name: 'events', rank: 5, prefixes: ['src/events/'] },
  { name: 'domain', rank: 6, prefixes: ['src/domain/'] },
  { name: 'mail', rank: 7, prefixes: ['src/mail/'] },
  { name: 'views', rank: 7, prefixes: ['src/views/'] },
  { name: 'routes', rank: 8, prefixes: ['src/routes/'] },
  { name: 'app', rank: 9, prefixes: ['src/app.tsx', 'src/settings.ts'] },
  {
    name: 'start',
    rank: 10,
    prefixes: ['src/server.ts', 'src/cli.ts', 'src/cli/', 'src/workers.ts', 'src/httpServer.ts'],
  },
] as const;
type Layer = (typeof LAYERS)[number];

/** Whether `file` is one of `prefixes` or lies in one of those ending in `/`. */
const under = (file: string, ...prefixes: readonly string[]) =>
  prefixes.some((p) => file === p || (p.endsWith('/') && file.startsWith(p)));
const layerOf = (file: string): Layer | undefined => LAYERS.find((l) => under(file, ...l.prefixes));
const storeImplementation = (file: string) => /^src\/db\/(sqlite|postgres)\//.exec(file)?.[0];
/** The one schema description (decision 025), in SQLite's folder; src/db/tables.ts hands it on. */
const SCHEMA_FILE = 'src/db/sqlite/schema.ts';
const schemaEdge = (e: ImportEdge) => e.from === 'src/db/tables.ts' && e.to === SCHEMA_FILE;
const describeEdge = (e: ImportEdge) =>
  `${e.from}:${e.line} imports ${e.to}${e.typeOnly ? ' (types only)' : ' at run time'}${e.kind === 'static' ? '' : ` (${e.kind})`}`;

interface Rule {
  /** The rule as ARCHITECTURE.md says it. */
  never: string;
  /** What to do instead, for the failure message. */
  instead: string;
  offends(e: ImportEdge): boolean;
}

const RULES: Rule[] = [
  {
    never:
      'views → db, domain or scrips at run time (views → nothing of ours but other views, plain types and the Markdown renderer the mail shares, decision 053)',
    instead:
      'pass what the view shows as props from the route (permissions as booleans, choices as lists); import types with `import type`',
    offends: (e) => under(e.from, 'src/views/') && !e.typeOnly && !under(e.to, 'src/views/', 'src/markdown.ts'),
  },
  {
    never: 'domain → routes or views',
    instead: 'the domain returns data; the route renders it',
    offends: (e) => under(e.from, 'src/domain/') && under(e.to, 'src/routes/', 'src/views/'),
  },
  {
    never: 'domain → a store implementation',
    instead: 'talk to src/db/port.ts',
    offends: (e) => under(e.from, 'src/domain/') && storeImplementation(e.to) !== undefined,
  },
  {
    never: 'db → anything above it',
    instead: 'the store may use only the store and leaf modules (settings, logger, private files)',
    offends: (e) => under(e.from, 'src/db/') && !under(e.to, 'src/db/') && layerOf(e.to)?.name !== 'leaf',
  },
  {
    never: 'scrips → routes or views',
    instead: 'the scrip engine works on the store; what the admin screens show reaches them through the routes',
    offends: (e) => under(e.from, 'src/scrips/') && under(e.to, 'src/routes/', 'src/views/'),
  },
  {
    never: 'mail → routes or views',
    instead: 'mail parses and calls the domain',
    offends: (e) => under(e.from, 'src/mail/') && under(e.to, 'src/routes/', 'src/views/'),
  },
  {
    never: "anything but the store factory and the CLI's copy-store (src/cli/copyStore.ts) → a store implementation",
    instead: 'open the store through src/db/store.ts and use src/db/port.ts',
    offends: (e) => {
      const impl = storeImplementation(e.to);
      return impl !== undefined && !under(e.from, 'src/db/store.ts', 'src/cli/copyStore.ts', impl) && !schemaEdge(e);
    },
  },
  {
    never: 'anything outside src/db/sqlite/ but src/db/tables.ts → the SQLite schema file',
    instead: 'import the tables from src/db/tables.ts',
    offends: (e) => e.to === SCHEMA_FILE && !under(e.from, 'src/db/tables.ts', 'src/db/sqlite/'),
  },
  {
    never: 'an arrow upward: an import from a lower layer to a higher one, or between two layers of one rank',
    instead:
      'move what both need down into a module of its own (a leaf, or the lower layer), or hand it over as an argument',
    offends: (e) => {
      const [from, to] = [layerOf(e.from), layerOf(e.to)];
      return from !== undefined && to !== undefined && from !== to && from.rank <= to.rank;
    },
  },
  {
    never: 'a leaf module importing one of ours',
    instead: 'a leaf imports packages and node: modules only',
    offends: (e) => layerOf(e.from)?.name === 'leaf',
  },
];

describe('ARCHITECTURE.md: never', () => {
  for (const rule of RULES) {
    it(rule.never, () => {
      const offending = graph.edges.filter((e) => rule.offends(e)).map(describeEdge);
      expect(offending, `${rule.never}. Instead: ${rule.instead}`).toEqual([]);
    });
  }
});

describe('the import graph', () => {
  it('has every source file in a layer', () => {
    expect(
      graph.files.filter((f) => !layerOf(f)),
      'files in no layer of tests/architecture.test.ts (place them in LAYERS)',
    ).toEqual([]);
  });

  it('has no import naming a file that is not there', () => {
    expect(graph.unresolved.map((u) => `${u.from}:${u.line} ${u.specifier}`)).toEqual([]);
  });

  // Type-only circles count too (decision 046): they are the same tangle, one refactor from a
  // run-time one. A worker thread's entry is left out: it is loaded in a thread of its own.
  it('has no import circle, not even through types', () => {
    const circles = importCycles(
      graph.files,
      graph.edges.filter((e) => e.kind !== 'worker'),
    );
    const described = circles.map((c) => {
      const others = c.files.filter((f) => !c.circle.includes(f));
      return c.circle.join(' → ') + (others.length ? `; tangled with them: ${others.join(', ')}` : '');
    });
    expect(described, 'import circles (move what the files share into a file of its own)').toEqual([]);
  });

  it('tells type-only imports from run-time ones, and finds circles through types', () => {
    const fixture = importGraph(path.join(root, 'tests/fixtures/import-graph'));
    const from = (f: string) =>
      fixture.edges
        .filter((e) => e.from === f)
        .map((e) => `${e.to.replace('src/', '')} ${e.kind}${e.typeOnly ? ' type' : ''}`);
    expect(from('src/a.ts').sort()).toEqual([
      'circleB.ts static',
      // `import { type U }` loads inline.ts: verbatimModuleSyntax keeps it as `import {} from`.
      'inline.ts static',
      'lazy.ts dynamic',
      'reexport.ts reexport',
      'side.ts static',
      'typeQuery.ts static type',
      'typeReexport.ts reexport type',
      'types.ts static type',
      'worker.ts worker',
    ]);
    expect(importCycles(fixture.files, fixture.edges).map((c) => c.circle)).toEqual([
      ['src/a.ts', 'src/circleB.ts', 'src/circleC.ts', 'src/a.ts'],
    ]);
  });

  it('sees the imports it must see (the reader is not blind)', () => {
    const has = (from: string, to: string, typeOnly: boolean) =>
      graph.edges.some((e) => e.from === from && e.to === to && e.typeOnly === typeOnly);
    expect(has('src/server.ts', 'src/app.tsx', false)).toBe(true);
    expect(has('src/db/store.ts', 'src/db/sqlite/backup.ts', false)).toBe(true); // export … from
    expect(has('src/cli.ts', 'src/cli/copyStore.ts', false)).toBe(true); // import('…') of the CLI's own
    expect(has('src/cli.ts', 'src/db/store.ts', false)).toBe(true); // import('…')
    expect(has('src/db/sqlite/readers.ts', 'src/db/sqlite/listWorker.ts', false)).toBe(true); // new URL('./listWorker…', import.meta.url)
    expect(has('src/views/tickets/show.tsx', 'src/domain/transactions.ts', true)).toBe(true); // import type
  });
});

// The rules below read the files' text (a rule that is not about our own imports goes here, as a
// describe of its own): driver packages, SQL and error codes of one dialect.

// Decision 026 and ARCHITECTURE: the domain (and everything above the store) is unaware of
// which database it runs on. It talks to src/db/port.ts; only src/db/store.ts (the factory),
// the CLI and the server may reach an implementation.

const files = (dir: string): string[] =>
  fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : [],
    );
const ABOVE_THE_STORE = ['src/domain', 'src/scrips', 'src/mail', 'src/routes', 'src/views', 'src/events']
  .filter((d) => fs.existsSync(path.join(root, d)))
  .flatMap(files)
  .concat('src/app.tsx', 'src/workers.ts');

const DIALECT_MODULES =
  /from '(better-sqlite3|pg|drizzle-orm\/(sqlite-core|better-sqlite3|pg-core|node-postgres)|[./]+\/db\/(sqlite|postgres)\/[^']*|[./]+\/db\/store\.js)'/;
/** SQL that exists on one dialect only (or an SQLite planner hint). */
const DIALECT_SQL =
  /COLLATE NOCASE|hx_contains|hx_check|\bMATCH\b|\browid\b|\+\$\{|IFNULL|group_concat|strftime|julianday|unixepoch|json_extract|INSERT OR |\bILIKE\b|::(int|text|bigint)|FOR UPDATE|pg_advisory/i;

describe('the domain imports no dialect', () => {
  it.each(ABOVE_THE_STORE)('%s', (file) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const imports = text.split('\n').filter((l) => DIALECT_MODULES.test(l));
    expect(imports, 'imports a database implementation').toEqual([]);
    const sqlTexts = [...text.matchAll(/sql(?:<[^>]*>)?`([^`]*)`/g)]
      .map((m) => m[1])
      .filter((s) => DIALECT_SQL.test(s));
    expect(sqlTexts, 'writes dialect-specific SQL').toEqual([]);
    expect(text, 'opens a transaction of a driver instead of the port').not.toMatch(/\.transaction\(\(|\$client/);
  });
});

// Decision 067: every process keeps the configuration (scrips, templates, queues …) for as long
// as `config_version` is unchanged, so a write to one of its tables that does not bump it in the
// same unit of work would leave every process's copy stale. Each top-level function (or const)
// of src/ outside src/db/ that writes to such a table through the query builder calls
// `configChanged(tx)` or runs its unit of work with `configTransaction`; none writes to one in SQL text.
const CONFIG_TABLE_NAMES = Object.keys(CACHED_TABLES);
const CONFIG_WRITE = new RegExp(String.raw`\.(insert|update|delete)\(\s*(${CONFIG_TABLE_NAMES.join('|')})\b`);
const CONFIG_SQL_WRITE = new RegExp(
  String.raw`(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(${Object.values(CACHED_TABLES)
    .map((t) => getTableName(t))
    .join('|')})\b`,
  'i',
);
/** A file's top-level declarations, each with its text (a declaration starts at the line's first column). */
function topLevelChunks(text: string): { name: string; line: number; text: string }[] {
  const chunks: { name: string; line: number; text: string }[] = [];
  text.split('\n').forEach((l, i) => {
    const m = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+(\w+)|(?:const|let|class)\s+(\w+))/.exec(l);
    if (m || chunks.length === 0) chunks.push({ name: m?.[1] ?? m?.[2] ?? '(top)', line: i + 1, text: '' });
    chunks[chunks.length - 1].text += `${l}\n`;
  });
  return chunks;
}
/** Where `text` writes to a cached configuration table without bumping its version, as `name:line`. */
function unbumpedConfigWrites(text: string): string[] {
  return topLevelChunks(text)
    .filter((c) => CONFIG_WRITE.test(c.text) && !/\bconfig(Changed|Transaction)\(/.test(c.text))
    .map((c) => `${c.name}:${c.line}`);
}
const OUTSIDE_THE_STORE = files('src').filter((f) => !f.startsWith('src/db/'));

// Decision 104: the staff (the lookups' owner pickers and names) are kept with the configuration.
// A function of src/ that writes `users` bumps its version in that unit of work, unless all it
// writes is what no staff list shows, or requesters alone: those are named here, with why.
const USERS_WRITE = /\.(insert|update)\(\s*users\b/;
const USERS_WRITES_WITHOUT_BUMP: Record<string, string> = {
  'src/domain/users.ts:ensureMailUser': 'creates the stub requester of an inbound address',
  'src/domain/users.ts:revokeCredentials': 'raises portal_epoch alone (its callers bump)',
  'src/domain/portal.ts:revokePortalLinks': 'raises portal_epoch alone',
  'src/domain/passwordReset.ts:resetPassword': 'sets the password alone',
  'src/domain/spam.ts:markSpam': 'sets blocked alone',
  'src/domain/spam.ts:unblockUser': 'sets blocked alone',
};
/** Where `text` (the file `file`) writes users without bumping the configuration's version, as `file:name`. */
const unbumpedUserWrites = (file: string, text: string): string[] =>
  topLevelChunks(text)
    .filter((c) => USERS_WRITE.test(c.text) && !/\bconfig(Changed|Transaction)\(/.test(c.text))
    .map((c) => `${file}:${c.name}`)
    .filter((at) => !(at in USERS_WRITES_WITHOUT_BUMP));

describe('a change of a user that may be staff bumps the configuration version (decision 104)', () => {
  it('the check sees a write without the bump, and one with it', () => {
    expect(unbumpedUserWrites('f.ts', 'async function f(tx) {\n  await tx.update(users).set({});\n}\n')).toEqual([
      'f.ts:f',
    ]);
    expect(
      unbumpedUserWrites('f.ts', 'async function f(tx) {\n  await configChanged(tx);\n  await tx.insert(users);\n}\n'),
    ).toEqual([]);
  });
  it('every exception still writes users (a stale entry is removed)', () => {
    for (const at of Object.keys(USERS_WRITES_WITHOUT_BUMP)) {
      const [file, name] = at.split(':');
      const chunk = topLevelChunks(fs.readFileSync(path.join(root, file), 'utf8')).find((c) => c.name === name);
      expect(chunk && USERS_WRITE.test(chunk.text), at).toBe(true);
    }
  });
  // Each file of src/ outside the store is checked with the configuration's writes, below.
});

describe('a change of cached configuration bumps its version in its unit of work (decision 067)', () => {
  it('the check sees a write without the bump, and one with it', () => {
    expect(unbumpedConfigWrites('async function f(tx) {\n  await tx.update(scrips).set({});\n}\n')).toEqual(['f:1']);
    expect(
      unbumpedConfigWrites('async function f(tx) {\n  await configChanged(tx);\n  await tx.delete(teamMembers);\n}\n'),
    ).toEqual([]);
    expect(unbumpedConfigWrites('async function f(tx) {\n  await tx.update(tickets).set({});\n}\n')).toEqual([]);
  });
  it('the cached tables include the ones every write reads', () => {
    expect(CONFIG_TABLE_NAMES).toEqual(
      expect.arrayContaining([
        'queues',
        'queueWatchers',
        'scrips',
        'templates',
        'customFields',
        'teamMembers',
        'appSettings',
      ]),
    );
  });
  it.each(OUTSIDE_THE_STORE)('%s', (file) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    expect(unbumpedConfigWrites(text), 'writes cached configuration without configChanged').toEqual([]);
    // Decision 104 (above): a write of users that may be staff bumps the version too.
    expect(unbumpedUserWrites(file, text), 'writes users without configChanged').toEqual([]);
    const sqlWrites = [...text.matchAll(/sql(?:<[^>]*>)?`([^`]*)`/g)]
      .map((m) => m[1])
      .filter((t) => CONFIG_SQL_WRITE.test(t));
    expect(sqlWrites, 'writes cached configuration in SQL text').toEqual([]);
  });
});

// Decision 042: a full disk or a read-only store reaches the rest of the code as the port's
// StorageUnavailable; which driver codes mean it is known under src/db/<dialect>/ only.
const OUTSIDE_THE_DIALECTS = files('src').filter((f) => !/^src\/db\/(sqlite|postgres)\//.test(f));
const DIALECT_ERROR_CODES =
  /\bSQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)\w*|['"](53\d{3}|53[0-9A-Z]{3}|25006|58030)['"]/;

describe('storage failures are read by the stores', () => {
  it.each(OUTSIDE_THE_DIALECTS)('%s', (file) => {
    const hits = fs
      .readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .filter((l) => DIALECT_ERROR_CODES.test(l));
    expect(hits, 'names a database error code outside src/db/<dialect>/').toEqual([]);
  });
});

// Decision 065: the port names no driver (its handle is typed with drizzle's dialect core), keeps
// no store of its own (each handle carries the store that gave it out), and the PostgreSQL store
// converts no handle with a double cast: it narrows at run time (src/db/postgres/handle.ts).
const DRIVERS =
  /(?:from\s+|import\()['"](better-sqlite3|pg|drizzle-orm\/better-sqlite3|drizzle-orm\/node-postgres)['"]/;

describe('the store port is typed without a driver', () => {
  const port = fs.readFileSync(path.join(root, 'src/db/port.ts'), 'utf8').split('\n');
  it('src/db/port.ts imports no driver', () => {
    expect(port.filter((l) => DRIVERS.test(l))).toEqual([]);
    // The rule can see one (the reader is not blind).
    expect(DRIVERS.test("import type { NodePgDatabase } from 'drizzle-orm/node-postgres';")).toBe(true);
    expect(DRIVERS.test("import pg from 'pg';")).toBe(true);
  });
  it('src/db/port.ts keeps no store in a module variable (the app is handed its store)', () => {
    expect(port.filter((l) => /^(let|var)\s|^(export\s+)?const\s+\w+\s*=\s*new\s+(Weak)?Map\b/.test(l))).toEqual([]);
  });
  it('src/db/postgres/ has no `as unknown as`', () => {
    const casts = files('src/db/postgres').flatMap((f) =>
      fs
        .readFileSync(path.join(root, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (/\bas\s+unknown\s+as\b/.test(l) ? [`${f}:${i + 1}: ${l.trim()}`] : [])),
    );
    expect(casts).toEqual([]);
    expect(files('src/db/postgres').length).toBeGreaterThan(5);
  });
});

// Decision 062: query-building both stores share is written once, under src/db/shared/. The LIKE
// escape is the telltale one: a second copy is how the two stores' patterns drift apart.
const LIKE_ESCAPE = /\[\\\\%_\]|\[%_\\\\\]|\[_%\\\\\]/;

describe('query-building both stores share is written once', () => {
  it('escapes LIKE patterns in src/db/shared/like.ts only', () => {
    const copies = files('src')
      .filter((f) => f !== 'src/db/shared/like.ts')
      .flatMap((f) =>
        fs
          .readFileSync(path.join(root, f), 'utf8')
          .split('\n')
          .flatMap((l, i) => (LIKE_ESCAPE.test(l) ? [`${f}:${i + 1}: ${l.trim()}`] : [])),
      );
    expect(copies, 'escapes LIKE wildcards itself: use likeEscape/containsPattern of src/db/shared/like.ts').toEqual(
      [],
    );
    expect(LIKE_ESCAPE.test(fs.readFileSync(path.join(root, 'src/db/shared/like.ts'), 'utf8'))).toBe(true);
  });
});

// ARCHITECTURE and decision 047: nothing but the clock (src/domain/clock.ts) reads the time for
// business: the domain, the scrips, the events and the routes ask the store's clock (nowIso,
// nowMs, clockOf), so a test clock (SPEC D2) moves all of it. What is machinery, not business —
// log lines, retry pauses, liveness, the delivery schedule — reads the real time, in the files
// below or on a line marked `// real time: <why>` (on it or just above it).

/** Files that read only the real time, and why. */
const REAL_TIME_FILES: Record<string, string> = {
  'src/domain/clock.ts': 'the clock itself',
  'src/log.ts':
    "the time of a log line, and the window that holds back repeated lines (the workers give the store's clock)",
  'src/server.ts': 'the time of a log line written before the logger exists',
  'src/events/presence.ts': 'liveness of live updates: presence and typing expire after seconds of real time',
  'src/scrips/delivery.ts': "the delivery worker's own turns and waits (the outbox schedule, in real time)",
  'src/db/storageWatch.ts': 'how often a failed store is probed again',
  'src/db/sqlite/checkpointer.ts': 'the pause after a failed WAL checkpoint',
  'src/db/sqlite/client.ts': 'the pause after a failed search-index run',
  'src/db/sqlite/backup.ts': 'the name of a backup file: when it was taken, on the machine',
};

/** Reading the time: Date.now (called or handed on), new Date() and Date() with nothing to convert. */
const READS_TIME = /\bDate\.now\b|\bnew Date\(\s*\)|(?<![\w.])Date\(\s*\)/;
const MARK = /\/\/ real time: \S/;

describe('time', () => {
  const sources = files('src').filter((f) => !REAL_TIME_FILES[f]);

  it.each(sources)('%s reads business time from the clock only', (file) => {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    const hits = lines.flatMap((line, i) => {
      const code = line.trimStart();
      if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return [];
      if (!READS_TIME.test(line) || MARK.test(line) || MARK.test(lines[i - 1] ?? '')) return [];
      return [`${file}:${i + 1}: ${code}`];
    });
    expect(
      hits,
      'reads the time: use nowIso/nowMs/clockOf of src/domain/clock.ts, or mark real time with `// real time: <why>`',
    ).toEqual([]);
  });

  it('the list of real-time files names files that exist', () => {
    for (const f of Object.keys(REAL_TIME_FILES)) expect(fs.existsSync(path.join(root, f)), f).toBe(true);
  });
});
