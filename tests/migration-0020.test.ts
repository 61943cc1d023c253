import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, expect, it } from 'vitest';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import { closeDb, openDb, sqliteOf } from '../src/db/store.js';
import { databaseBefore, migrationsBefore } from './helpers/migrations.js';
import { createDatabase, releasePostgres } from './helpers/postgres.js';
import { onlyOn } from './helpers/store.js';

// Migrations 0020 (SQLite) and 0007 (PostgreSQL), decision 048, on an install made before them:
// people on a ticket get the order they were added in, the ticket's requester_id first; canned
// response names that repeat (any case) within one owner's, or among the shared ones, are renamed
// after the oldest ("Thanks (2)"); then unique indexes hold the rule, for every writer.

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mig20-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
afterAll(releasePostgres);

const now = new Date().toISOString();
/** What the old install holds, as SQL both dialects take (ids given, as they were). */
const FILL = [
  "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (1, 'admin@example.com', 'Admin', 'admin', '$now', '$now')",
  "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (2, 'ann@example.com', 'Ann', 'agent', '$now', '$now')",
  "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (3, 'zoe@customer.example', 'Zoe', 'requester', '$now', '$now')",
  "INSERT INTO queues (id, name, created_at, updated_at) VALUES (1, 'General', '$now', '$now')",
  // Ticket 1: Zoe (id 3) was named first, then Ann (id 2); the same instant, so only the order of writing tells.
  "INSERT INTO tickets (id, queue_id, subject, status, requester_id, created_at, updated_at) VALUES (1, 1, 'Printer', 'open', 3, '$now', '$now')",
  "INSERT INTO ticket_watchers (ticket_id, role, user_id, created_at) VALUES (1, 'requester', 3, '$now')",
  "INSERT INTO ticket_watchers (ticket_id, role, user_id, created_at) VALUES (1, 'requester', 2, '$now')",
  "INSERT INTO ticket_watchers (ticket_id, role, user_id, created_at) VALUES (1, 'cc', 1, '$now')",
  // Canned responses: "Thanks" twice for Ann (another case), once for the admin; "Welcome" twice shared, once Ann's.
  "INSERT INTO canned_responses (id, name, body, owner_id, created_at, updated_at) VALUES (1, 'Thanks', 'a', 2, '$now', '$now')",
  "INSERT INTO canned_responses (id, name, body, owner_id, created_at, updated_at) VALUES (2, 'THANKS', 'b', 2, '$now', '$now')",
  "INSERT INTO canned_responses (id, name, body, owner_id, created_at, updated_at) VALUES (3, 'thanks', 'c', 1, '$now', '$now')",
  "INSERT INTO canned_responses (id, name, body, owner_id, created_at, updated_at) VALUES (4, 'Welcome', 'd', NULL, '$now', '$now')",
  "INSERT INTO canned_responses (id, name, body, owner_id, created_at, updated_at) VALUES (5, 'welcome', 'e', NULL, '$now', '$now')",
  "INSERT INTO canned_responses (id, name, body, owner_id, created_at, updated_at) VALUES (6, 'Welcome', 'f', 2, '$now', '$now')",
].map((q) => q.replaceAll('$now', now));

const RENAMED = ['1:Thanks', '2:THANKS (2)', '3:thanks', '4:Welcome', '5:welcome (5)', '6:Welcome'];
/** A repeat of each kind, and the index that refuses it. */
const DUPLICATES: [string, string][] = [
  [
    "INSERT INTO canned_responses (id, name, body, owner_id, created_at, updated_at) VALUES (7, 'tHaNkS', 'x', 2, '$now', '$now')",
    'canned_responses_own_name_uq',
  ],
  [
    "INSERT INTO canned_responses (id, name, body, owner_id, created_at, updated_at) VALUES (8, 'WELCOME', 'x', NULL, '$now', '$now')",
    'canned_responses_shared_name_uq',
  ],
].map(([q, index]) => [q.replaceAll('$now', now), index]);
/** SQLite names an index's columns in its message. */
const SQLITE_COLUMNS: Record<string, string> = {
  canned_responses_own_name_uq: 'canned_responses.owner_id, canned_responses.name',
  canned_responses_shared_name_uq: 'canned_responses.name',
};

onlyOn('sqlite')('migration 0020 on an SQLite install made before it', () => {
  it('orders people as they were added (requester_id first), renames repeated response names, and refuses new repeats', async () => {
    const file = databaseBefore(tmp(), '0020_', (raw: Database.Database) => {
      for (const q of FILL) raw.exec(q);
    });
    const db = openDb(file);
    try {
      const raw = sqliteOf(db);
      const order = (role: string) =>
        (
          raw
            .prepare('SELECT user_id FROM ticket_watchers WHERE ticket_id = 1 AND role = ? ORDER BY position')
            .all(role) as { user_id: number }[]
        ).map((r) => r.user_id);
      expect(order('requester')).toEqual([3, 2]);
      expect(
        (raw.prepare('SELECT id, name FROM canned_responses ORDER BY id').all() as { id: number; name: string }[]).map(
          (r) => `${r.id}:${r.name}`,
        ),
      ).toEqual(RENAMED);
      for (const [q, index] of DUPLICATES)
        expect(() => raw.exec(q)).toThrow(`UNIQUE constraint failed: ${SQLITE_COLUMNS[index]}`);
      expect(raw.prepare('SELECT count(*) AS n FROM canned_responses').get()).toEqual({ n: 6 });
    } finally {
      await closeDb(db);
    }
  });
});

onlyOn('postgres')('migration 0007 on a PostgreSQL install made before it', () => {
  it('orders people with requester_id first, renames repeated response names, and refuses new repeats', async () => {
    const url = await createDatabase();
    await migratePostgres(url, migrationsBefore(tmp(), 'src/db/postgres/migrations', '0007_'));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const q of FILL) await client.query(q);
      await migratePostgres(url);
      // PostgreSQL kept no order of writing: requester_id first, the rest as they were listed before (by id).
      const order = async (role: string) =>
        (
          await client.query(
            'SELECT user_id FROM ticket_watchers WHERE ticket_id = 1 AND role = $1 ORDER BY position',
            [role],
          )
        ).rows.map((r) => r.user_id);
      expect(await order('requester')).toEqual([3, 2]);
      expect(
        (await client.query('SELECT id, name FROM canned_responses ORDER BY id')).rows.map((r) => `${r.id}:${r.name}`),
      ).toEqual(RENAMED);
      for (const [q, index] of DUPLICATES)
        await expect(client.query(q)).rejects.toMatchObject({ code: '23505', constraint: index });
    } finally {
      await client.end();
    }
  });
});
