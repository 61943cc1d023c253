import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import { writerHandle } from '../src/db/sqlite/client.js';
import { flushSearch } from '../src/db/sqlite/search.js';
import { closeDb, openDb, sqliteOf } from '../src/db/store.js';
import { TEMPLATES } from '../src/domain/seed.js';
import { databaseBefore, migrationsBefore } from './helpers/migrations.js';
import { createDatabase, releasePostgres } from './helpers/postgres.js';
import { onlyOn } from './helpers/store.js';

// Migrations 0032 (SQLite) and 0019 (PostgreSQL), decision 082, on an install made before them:
// a rating's comment, staff-only text, leaves the public column of SQLite's search index for the
// internal one (old ratings and new ones), and the "Resolved" template as the seed wrote it before
// D4 gets the rating links, while one its admin edited is left as it is.

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mig32-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
afterAll(releasePostgres);

/** The seed's "Resolved" body before D4 (commit 0e7eb84 added the rating links). */
const OLD_RESOLVED = `Hello {{ recipient.name | default: "there" }},

Ticket #{{ ticket.id }} ("{{ ticket.subject }}") has been resolved. If something is still wrong, simply reply to this message and the ticket will be reopened.

{{ ticket.url }}`;
const NEW_RESOLVED = (TEMPLATES.find((t) => t.name === 'Resolved') as { body: string }).body;
const EDITED = `${OLD_RESOLVED}\n\nThe Support Team`;

const now = new Date().toISOString();
const fill = (resolvedBody: string) =>
  [
    "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (1, 'ann@example.com', 'Ann', 'agent', '$now', '$now')",
    "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (2, 'zoe@customer.example', 'Zoe', 'requester', '$now', '$now')",
    "INSERT INTO queues (id, name, created_at, updated_at) VALUES (1, 'General', '$now', '$now')",
    "INSERT INTO tickets (id, queue_id, subject, status, requester_id, created_at, updated_at) VALUES (7, 1, 'Printer', 'resolved', 2, '$now', '$now')",
    "INSERT INTO transactions (ticket_id, creator_id, type, body, created_at) VALUES (7, 2, 'Create', 'paper jams daily', '$now')",
    "INSERT INTO transactions (ticket_id, creator_id, type, field, new_value, body, created_at) VALUES (7, 2, 'Rating', 'csat', 'bad', 'grumpyfeedback', '$now')",
    `INSERT INTO templates (name, subject, body, created_at, updated_at) VALUES ('Resolved', 'Resolved: {{ ticket.subject }}', '${resolvedBody.replaceAll("'", "''")}', '$now', '$now')`,
  ].map((q) => q.replaceAll('$now', now));

it('the seed text of old is what the migration looks for', () => {
  expect(OLD_RESOLVED).toMatch(/^Hello \{\{ recipient.name/);
  expect(OLD_RESOLVED).not.toContain('csat_url');
  expect(NEW_RESOLVED).toContain('{{ ticket.csat_url }}');
});

onlyOn('sqlite')('migration 0032 on an SQLite install made before it', () => {
  const migrated = (resolvedBody: string) => {
    const file = databaseBefore(tmp(), '0032_', (raw: Database.Database) => {
      for (const q of fill(resolvedBody)) raw.exec(q);
    });
    return openDb(file);
  };
  /** The tickets whose `column` holds the word (the index after a flush, as searches read it). */
  const found = (raw: Database.Database, column: string, word: string) =>
    (
      raw
        .prepare('SELECT rowid >> 20 AS id FROM message_search WHERE message_search MATCH ?')
        .all(`{${column}} : "${word}"`) as { id: number }[]
    ).map((r) => r.id);

  it('moves an old rating comment to the internal text, indexes new ones there, and adds the rating links to the seed Resolved', async () => {
    const db = migrated(OLD_RESOLVED);
    try {
      const raw = sqliteOf(db);
      raw.exec(
        `INSERT INTO transactions (ticket_id, creator_id, type, field, new_value, body, created_at) VALUES (7, 2, 'Rating', 'csat', 'good', 'cheerfulfeedback', '${now}')`,
      );
      while (flushSearch(writerHandle(db)) > 0);
      expect(found(raw, 'public_text', 'grumpyfeedback')).toEqual([]);
      expect(found(raw, 'internal_text', 'grumpyfeedback')).toEqual([7]);
      expect(found(raw, 'public_text', 'cheerfulfeedback')).toEqual([]);
      expect(found(raw, 'internal_text', 'cheerfulfeedback')).toEqual([7]);
      expect(found(raw, 'public_text', 'paper jams')).toEqual([7]);
      expect(raw.prepare("SELECT body FROM templates WHERE name = 'Resolved'").get()).toEqual({ body: NEW_RESOLVED });
    } finally {
      await closeDb(db);
    }
  });

  it('leaves a Resolved template its admin edited as it is', async () => {
    const db = migrated(EDITED);
    try {
      expect(sqliteOf(db).prepare("SELECT body FROM templates WHERE name = 'Resolved'").get()).toEqual({
        body: EDITED,
      });
    } finally {
      await closeDb(db);
    }
  });
});

onlyOn('postgres')('migration 0019 on a PostgreSQL install made before it', () => {
  const cases: [string, string, string][] = [
    ['adds the rating links to the Resolved template the seed wrote', OLD_RESOLVED, NEW_RESOLVED],
    ['leaves a Resolved template its admin edited as it is', EDITED, EDITED],
  ];
  describe.each(cases)('%s', (_name, before, after) => {
    it('migrates', async () => {
      const url = await createDatabase();
      await migratePostgres(url, migrationsBefore(tmp(), 'src/db/postgres/migrations', '0019_'));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const q of fill(before)) await client.query(q);
        await migratePostgres(url);
        expect((await client.query("SELECT body FROM templates WHERE name = 'Resolved'")).rows).toEqual([
          { body: after },
        ]);
      } finally {
        await client.end();
      }
    });
  });
});
