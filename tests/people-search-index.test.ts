import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/port.js';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import { PEOPLE_SEARCH_WINDOW } from '../src/db/shared/peopleSearch.js';
import { closeDb, openDb, openStore, sqliteOf } from '../src/db/store.js';
import { users } from '../src/db/tables.js';
import { databaseBefore, migrationsBefore, migrationTag, tempDirs } from './helpers/migrations.js';
import { createDatabase, releasePostgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';
import { onlyOn } from './helpers/store.js';

// The people search by any part of a name or address through a trigram index (decision 090):
// every user, not only the newest PEOPLE_SEARCH_WINDOW; the same matches as the LIKE test it
// replaces (any case, accents kept); a renamed user by the new name only; disabled people never.

let s: TestServer;
const ids: Record<string, number> = {};

const ok = async (method: string, p: string, body?: unknown) => {
  const res = await s.api(method, p, { body });
  expect(res.status, `${method} ${p}: ${res.text}`).toBeLessThan(300);
  return res.body;
};
const person = async (email: string, name: string) =>
  (await ok('POST', '/users', { email, name, role: 'requester' })).id as number;
/** The emails GET /users?q= answers, in its order. */
const found = async (q: string) =>
  ((await ok('GET', `/users?q=${encodeURIComponent(q)}&limit=100`)).users as { email: string }[]).map((u) => u.email);

beforeAll(async () => {
  s = await startServer();
  ids.old = await person('ophelia.w@harbour.example', 'Ophelia Windowsill');
  ids.ticket = (
    await ok('POST', '/tickets', { queue_id: 1, subject: 'A leak', description: 'Water', requester_id: ids.old })
  ).ticket.id;
  // Someone far newer: Ophelia is now older than the window (ids are what the window counts).
  await transaction(s.db, async (tx) => {
    const at = new Date().toISOString();
    await tx.insert(users).values({
      id: ids.old + PEOPLE_SEARCH_WINDOW + 10,
      email: 'newest@harbour.example',
      name: 'Newest Person',
      role: 'requester',
      created_at: at,
      updated_at: at,
    });
  });
  ids.emile = await person('emile.z@lyon.example', 'Émile Zoëlle');
  ids.kwame = await person('kwame.osei@volta-river.example', 'Kwame Osei');
  ids.renamed = await person('ren@rename.example', 'Bartholomew Oldname');
  ids.gone = await person('gone@away.example', 'Griselda Departed');
});
afterAll(async () => {
  await s?.close();
});

describe('the people search through the trigram index', () => {
  it('finds a user older than the window by a part of their name, and their tickets by it', async () => {
    expect(await found('indowsi')).toEqual(['ophelia.w@harbour.example']);
    expect(await found('PHELIA W')).toEqual(['ophelia.w@harbour.example']);
    const list = (await ok('GET', '/tickets?q=indowsill&sort=id')).tickets as { id: number }[];
    expect(list.map((t) => t.id)).toEqual([ids.ticket]);
  });

  it('a name with accents: any case, accents as written', async () => {
    expect(await found('émile')).toEqual(['emile.z@lyon.example']);
    expect(await found('ÉMILE ZO')).toEqual(['emile.z@lyon.example']);
    expect(await found('zoël')).toEqual(['emile.z@lyon.example']);
    // As the LIKE test before it: an unaccented letter is not its accented one.
    expect(await found('zoel')).toEqual([]);
  });

  it('a part of an address, and characters LIKE would have taken as wildcards', async () => {
    expect(await found('volta-riv')).toEqual(['kwame.osei@volta-river.example']);
    expect(await found('osei@')).toEqual(['kwame.osei@volta-river.example']);
    expect(await found('osei%')).toEqual([]);
    expect(await found('o_ei')).toEqual([]);
    expect(await found('"osei"')).toEqual([]);
  });

  it('a renamed user is found by the new name and not by the old', async () => {
    await ok('PATCH', `/users/${ids.renamed}`, { name: 'Bartholomew Newname' });
    expect(await found('newnam')).toEqual(['ren@rename.example']);
    expect(await found('oldnam')).toEqual([]);
    await ok('PATCH', `/users/${ids.renamed}`, { email: 'ren@elsewhere.example' });
    expect(await found('elsewher')).toEqual(['ren@elsewhere.example']);
    expect(await found('rename.ex')).toEqual([]);
  });

  it('a disabled user is not found, and is again once enabled', async () => {
    expect(await found('griseld')).toEqual(['gone@away.example']);
    await ok('PATCH', `/users/${ids.gone}`, { disabled: true });
    expect(await found('griseld')).toEqual([]);
    expect(await found('departe')).toEqual([]);
    await ok('PATCH', `/users/${ids.gone}`, { disabled: false });
    expect(await found('departe')).toEqual(['gone@away.example']);
  });
});

const tmp = tempDirs('hxdesk-migpeople-');
afterAll(releasePostgres);

const tagOf = (folder: string) => migrationTag(folder, 'people_search');

const now = new Date().toISOString();
/** An old install's people, as SQL both dialects take: one far older than the window. */
const FILL = [
  `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (1, 'admin@example.com', 'Admin', 'admin', '${now}', '${now}')`,
  `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (2, 'mireille@caen.example', 'Mireille Ancienne', 'requester', '${now}', '${now}')`,
  `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (${PEOPLE_SEARCH_WINDOW + 100}, 'late@caen.example', 'Late Comer', 'requester', '${now}', '${now}')`,
];
const names = async (db: Parameters<typeof transaction>[0], q: string) =>
  (await db.store.queries.searchPeople(db, q, 10)).map((u) => u.email);

onlyOn('sqlite')('the people search migration on an SQLite install made before it', () => {
  it('indexes the people already there', async () => {
    const file = databaseBefore(tmp(), tagOf('src/db/sqlite/migrations'), (raw: Database.Database) => {
      for (const q of FILL) raw.exec(q);
    });
    const db = openDb(file);
    try {
      expect(await names(db, 'ancienn')).toEqual(['mireille@caen.example']);
      expect(await names(db, 'aen.exa')).toEqual(['late@caen.example', 'mireille@caen.example']);
      // The maintenance settings of the other FTS5 indexes hold for this one (decisions 011, 032).
      const config = sqliteOf(db)
        .prepare("SELECT k, v FROM users_people_config WHERE k IN ('automerge', 'crisismerge') ORDER BY k")
        .all();
      expect(config).toEqual([
        { k: 'automerge', v: 8 },
        { k: 'crisismerge', v: 1000 },
      ]);
    } finally {
      await closeDb(db);
    }
  });
});

onlyOn('postgres')('the people search migration on a PostgreSQL install made before it', () => {
  it('indexes the people already there', async () => {
    const url = await createDatabase();
    await migratePostgres(
      url,
      migrationsBefore(tmp(), 'src/db/postgres/migrations', tagOf('src/db/postgres/migrations')),
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const q of FILL) await client.query(q);
    } finally {
      await client.end();
    }
    await migratePostgres(url);
    const store = await openStore({ DATABASE_URL: url, dbPath: '' });
    try {
      expect(await names(store.db, 'ancienn')).toEqual(['mireille@caen.example']);
      expect(await names(store.db, 'aen.exa')).toEqual(['late@caen.example', 'mireille@caen.example']);
    } finally {
      await store.close();
    }
  });
});
