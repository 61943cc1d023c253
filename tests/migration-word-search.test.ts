import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import { writerHandle } from '../src/db/sqlite/client.js';
import { flushSearch } from '../src/db/sqlite/search.js';
import { closeDb, openDb, sqliteOf } from '../src/db/store.js';
import { databaseBefore, migrationsBefore, migrationTag, tempDirs } from './helpers/migrations.js';
import { createDatabase, releasePostgres } from './helpers/postgres.js';
import { onlyOn } from './helpers/store.js';

// The word search's migrations (decision 084; tagged `…_word_search` on each store) on an install
// made before them: the text already there is in the word index at once — subjects and public
// messages in the public column, internal notes and ratings in the internal one — and text still
// waiting in SQLite's search_pending goes in with the next flush, once; SQLite lists the index's
// words (word_terms, decision 092) from the migration on.

const tmp = tempDirs('hxdesk-migwords-');
afterAll(releasePostgres);

const tagOf = (folder: string) => migrationTag(folder, 'word_search');

const now = new Date().toISOString();
/** What the old install holds, as SQL both dialects take. */
const FILL = [
  "INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (1, 'admin@example.com', 'Admin', 'admin', '$now', '$now')",
  "INSERT INTO queues (id, name, created_at, updated_at) VALUES (1, 'General', '$now', '$now')",
  "INSERT INTO tickets (id, queue_id, subject, status, requester_id, created_at, updated_at) VALUES (1, 1, 'Crème brûlée machine', 'open', 1, '$now', '$now')",
  "INSERT INTO tickets (id, queue_id, subject, status, requester_id, created_at, updated_at) VALUES (2, 1, 'Other', 'open', 1, '$now', '$now')",
  "INSERT INTO transactions (id, ticket_id, type, body, creator_id, created_at) VALUES (1, 1, 'Create', 'The café burner is broken', 1, '$now')",
  "INSERT INTO transactions (id, ticket_id, type, field, new_value, creator_id, created_at) VALUES (2, 1, 'Status', 'status', 'open', 1, '$now')",
  "INSERT INTO transactions (id, ticket_id, type, body, creator_id, created_at) VALUES (3, 1, 'Comment', 'Internal: vendor is Glaxowidget', 1, '$now')",
  "INSERT INTO transactions (id, ticket_id, type, field, new_value, body, creator_id, created_at) VALUES (4, 1, 'Rating', 'csat', 'bad', 'Sluggishness everywhere', 1, '$now')",
  "INSERT INTO transactions (id, ticket_id, type, body, creator_id, created_at) VALUES (5, 2, 'Create', 'Nothing to see', 1, '$now')",
].map((q) => q.replaceAll('$now', now));

onlyOn('sqlite')('the word search migration on an SQLite install made before it', () => {
  it('indexes the words already there, each in its column, and pending text once at the next flush', async () => {
    const file = databaseBefore(tmp(), tagOf('src/db/sqlite/migrations'), (raw: Database.Database) => {
      for (const q of FILL) raw.exec(q);
      // The indexer had moved ticket 1's text into the trigram index; ticket 2's still waits in search_pending.
      raw.exec(`INSERT INTO message_search(rowid, public_text, internal_text)
        SELECT id, public_text, internal_text FROM search_pending WHERE id >> 20 = 1`);
      raw.exec('DELETE FROM search_pending WHERE id >> 20 = 1');
    });
    const db = openDb(file);
    try {
      const raw = sqliteOf(db);
      const match = (q: string) =>
        (
          raw
            .prepare(
              'SELECT rowid >> 20 AS t, rowid & 1048575 AS n FROM message_words WHERE message_words MATCH ? ORDER BY rowid',
            )
            .all(q) as {
            t: number;
            n: number;
          }[]
        ).map((r) => `${r.t}:${r.n}`);
      expect(match('creme')).toEqual(['1:0']); // the subject
      expect(match('cafe')).toEqual(['1:1']); // the description, its place among the ticket's entries
      expect(match('{public_text} : glaxowidget')).toEqual([]);
      expect(match('{internal_text} : glaxowidget')).toEqual(['1:3']);
      expect(match('{public_text} : sluggishness')).toEqual([]);
      expect(match('{internal_text} : sluggishness')).toEqual(['1:4']);
      // The index's words are listed for prefix searches (migration 0037, decision 092); the
      // pending ones with the flush that indexes them.
      const terms = () =>
        (
          raw
            .prepare(
              "SELECT term FROM word_terms WHERE term IN ('creme', 'cafe', 'glaxowidget', 'sluggishness', 'nothing') ORDER BY term",
            )
            .all() as { term: string }[]
        ).map((r) => r.term);
      expect(terms()).toEqual(['cafe', 'creme', 'glaxowidget', 'sluggishness']);
      // What was pending is indexed by the flush, not twice.
      expect(match('nothing')).toEqual([]);
      expect(raw.prepare('SELECT count(*) AS n FROM search_pending').get()).toEqual({ n: 2 });
      expect(flushSearch(writerHandle(db))).toBe(2);
      expect(match('nothing')).toEqual(['2:1']);
      expect(terms()).toEqual(['cafe', 'creme', 'glaxowidget', 'nothing', 'sluggishness']);
      // The maintenance settings of the trigram index hold for this one too (decisions 011, 032).
      const config = Object.fromEntries(
        (
          raw.prepare("SELECT k, v FROM message_words_config WHERE k IN ('automerge', 'crisismerge')").all() as {
            k: string;
            v: number;
          }[]
        ).map((r) => [r.k, r.v]),
      );
      expect(config).toEqual({ automerge: 8, crisismerge: 1000 });
    } finally {
      await closeDb(db);
    }
  });
});

onlyOn('postgres')('the word search migration on a PostgreSQL install made before it', () => {
  it('indexes the words already there; internal notes and ratings are told apart by their type', async () => {
    const url = await createDatabase();
    await migratePostgres(
      url,
      migrationsBefore(tmp(), 'src/db/postgres/migrations', tagOf('src/db/postgres/migrations')),
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const q of FILL) await client.query(q);
      await migratePostgres(url);
      const bodies = async (q: string) =>
        (
          await client.query(
            "SELECT id, type FROM transactions WHERE body IS NOT NULL AND hx_words(body) @@ to_tsquery('hx_words', $1) ORDER BY id",
            [q],
          )
        ).rows.map((r) => `${r.id}:${r.type}`);
      expect(await bodies('cafe')).toEqual(['1:Create']);
      expect(await bodies('glaxo:*')).toEqual(['3:Comment']);
      expect(await bodies('sluggishness')).toEqual(['4:Rating']);
      const subjects = await client.query(
        "SELECT id FROM tickets WHERE hx_words(subject) @@ to_tsquery('hx_words', 'creme <-> brulee')",
      );
      expect(subjects.rows).toEqual([{ id: 1 }]);
      // Served by the migration's indexes.
      await client.query('SET enable_seqscan = off');
      const plan = await client.query(
        "EXPLAIN SELECT id FROM transactions WHERE body IS NOT NULL AND hx_words(body) @@ to_tsquery('hx_words', 'cafe')",
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('transactions_body_words_idx');
    } finally {
      await client.end();
    }
  });
});
