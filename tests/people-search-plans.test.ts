import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peopleSearchQueries as pgPeopleSearchQueries } from '../src/db/postgres/people.js';
import { PEOPLE_SEARCH_WINDOW } from '../src/db/shared/peopleSearch.js';
import { peopleSearchQueries } from '../src/db/sqlite/people.js';
import { closeDb, type Db, openDb, openStore, poolOf, sqliteOf } from '../src/db/store.js';
import { countingBuilds } from './helpers/builds.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';

// The people search's name-or-address read (decision 090) is asked of the trigram index, not of
// every recent user: EXPLAIN on both stores with more users than the window. Run in the SQLite
// project with a cluster of its own for PostgreSQL (like pg-store-plans.test.ts).

const USERS = PEOPLE_SEARCH_WINDOW + 10_000;
const at = '2026-01-01T00:00:00.000Z';

describe('SQLite: the people search reads users_people', () => {
  let dir: string;
  let db: Db;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-people-plans-'));
    db = openDb(path.join(dir, 'hxdesk.db'));
    sqliteOf(db).exec(`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${USERS})
      INSERT INTO users (email, name, role, created_at, updated_at)
      SELECT 'person' || n || '@example.com', 'Person ' || n, 'requester', '${at}', '${at}' FROM g;
      ANALYZE`);
  }, 60_000);
  afterAll(async () => {
    await closeDb(db);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const explain = (needle: string) => {
    const { sql, params } = peopleSearchQueries(db, needle, 50).recent.toSQL();
    return (
      sqliteOf(db)
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...(params as unknown[])) as { detail: string }[]
    ).map((r) => r.detail);
  };

  for (const needle of ['son 123', 'person', 'xample.co']) {
    it(`${JSON.stringify(needle)}: newest first off the index, each joined by its id, nothing sorted`, () => {
      const lines = explain(needle);
      const text = lines.join('\n');
      expect(lines[0], text).toMatch(/^SCAN users_people VIRTUAL TABLE INDEX \d+:M/);
      expect(text).toMatch(/SEARCH users USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(text).not.toMatch(/TEMP B-TREE|SCAN users\b/);
    });
  }

  it('finds the oldest user by a part of the name, and reads only as many as asked', async () => {
    expect((await peopleSearchQueries(db, 'person1@', 50).recent).map((u) => u.email)).toEqual(['person1@example.com']);
    expect(await peopleSearchQueries(db, 'son', 7).recent).toHaveLength(7);
  });

  it("the store's search compiles its reads once per shape of needle: other needles build nothing and find their own people (decision 108)", async () => {
    const search = async (needle: string) => {
      const { answer, builds } = await countingBuilds(() => db.store.queries.searchPeople(db, needle, 5));
      return { emails: [...new Set(answer.map((u) => u.email))].sort(), builds };
    };
    await search('person12345@');
    expect(await search('person12345@')).toEqual({ emails: ['person12345@example.com'], builds: 0 });
    expect(await search('person2@')).toEqual({ emails: ['person2@example.com'], builds: 0 });
    // One or two characters (no trigram index) and a letter LIKE does not fold are shapes of their own.
    expect((await search('n9')).builds).toBe(3);
    expect(await search('n8')).toMatchObject({ builds: 0 });
    expect((await search('pérson')).builds).toBe(3);
    expect(await search('PÉRSON 7')).toEqual({ emails: [], builds: 0 });
  });

  it('a needle of one or two characters, which trigrams cannot answer, reads the window of newest users', () => {
    const { sql, params } = peopleSearchQueries(db, 'on', 50).recent.toSQL();
    const text = (
      sqliteOf(db)
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...(params as unknown[])) as { detail: string }[]
    )
      .map((r) => r.detail)
      .join('\n');
    expect(text).toMatch(/SEARCH users USING INTEGER PRIMARY KEY \(rowid>\?\)/);
    expect(text).not.toContain('users_people');
  });
});

describe.skipIf(!pgAvailable())('PostgreSQL: the people search reads the pg_trgm indexes', () => {
  let db: Db;
  beforeAll(async () => {
    db = (await openStore({ DATABASE_URL: await createMigratedDatabase(), dbPath: '' })).db;
    await poolOf(db).query(`INSERT INTO users (email, name, role, created_at, updated_at)
      SELECT 'person' || g || '@example.com', 'Person ' || g, 'requester', '${at}', '${at}' FROM generate_series(1, ${USERS}) g`);
    await poolOf(db).query('VACUUM ANALYZE users');
  }, 60_000);
  afterAll(async () => {
    await closeDb(db);
    await releasePostgres();
  });

  it('a rare part of a name or address: a bitmap of both indexes, no sequential scan', async () => {
    const { sql, params } = pgPeopleSearchQueries(db, 'son 1234', 50).recent.toSQL();
    const lines = (await poolOf(db).query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows.map(
      (r) => r['QUERY PLAN'],
    );
    const text = lines.join('\n');
    expect(text).toContain('users_name_trgm_idx');
    expect(text).toContain('users_email_trgm_idx');
    expect(text).not.toMatch(/Seq Scan on users/);
    expect((await pgPeopleSearchQueries(db, 'person1@', 50).recent).map((u) => u.email)).toEqual([
      'person1@example.com',
    ]);
  });
});
