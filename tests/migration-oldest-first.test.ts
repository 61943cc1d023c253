import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import type { TicketListSpec } from '../src/db/ticketListSpec.js';
import { writerHandle } from '../src/db/sqlite/client.js';
import { cfHolders, listQueries as pgListQueries } from '../src/db/postgres/ticketList.js';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import { listQueries } from '../src/db/sqlite/ticketList.js';
import { closeDb, openDb, openStore, sqliteOf } from '../src/db/store.js';
import { databaseBefore, migrationsBefore, migrationTag, tempDirs } from './helpers/migrations.js';
import { createDatabase, releasePostgres } from './helpers/postgres.js';
import { onlyOn } from './helpers/store.js';
import { listSpecOf } from './helpers/listSpec.js';

// Decision 107's indexes on an install that has statistics (`PRAGMA optimize` keeps them): a list
// by `created` reads its page from them, and no other list takes them. As plain indexes, SQLite
// took (status, created_at) for (status, updated_at), at the same estimated cost, for a common
// custom value with two statuses by `updated`, and read and sorted every ticket of the statuses.

const tmp = tempDirs('hxdesk-mig-oldest-');
const TICKETS = 8_000; // severity high on 5,333: too many to lead the list (SET_LEADS_UNDER)
const NOW = '2026-11-29T12:00:00.000Z';

/** An install before decision 107: tickets in two queues and three statuses, two thirds of them severity high, analysed. */
function fill(raw: Database.Database): void {
  raw.exec(
    `INSERT INTO queues (id, name, created_at, updated_at) VALUES (1, 'One', '${NOW}', '${NOW}'), (2, 'Two', '${NOW}', '${NOW}')`,
  );
  raw.exec(
    `INSERT INTO custom_fields (id, key, name, type, created_at, updated_at) VALUES (1, 'severity', 'Severity', 'text', '${NOW}', '${NOW}')`,
  );
  raw.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${TICKETS})
    INSERT INTO tickets (id, queue_id, subject, status, created_at, updated_at)
    SELECT i, 1 + i % 2, 'Ticket ' || i, CASE i % 4 WHEN 0 THEN 'new' WHEN 1 THEN 'open' ELSE 'resolved' END,
      strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' minutes'),
      strftime('%Y-%m-%dT%H:%M:%fZ', '2026-06-01', '+' || ((i * 7919) % ${TICKETS}) || ' minutes')
    FROM n`);
  raw.exec(
    `INSERT INTO ticket_custom_values (ticket_id, field_id, value) SELECT id, 1, CASE WHEN id % 3 = 0 THEN 'low' ELSE 'high' END FROM tickets`,
  );
  raw.exec('ANALYZE');
}

const spec = listSpecOf;

onlyOn('sqlite')('the oldest-first indexes on an analysed install (decision 107)', () => {
  it('a list by `created` reads its page from them; a list by `updated` keeps its own index', async () => {
    const file = databaseBefore(tmp(), migrationTag('src/db/sqlite/migrations', 'oldest_first'), fill);
    const db = openDb(file);
    try {
      const raw = sqliteOf(db);
      const plan = (f: TicketListSpec) => {
        const page = listQueries(writerHandle(db), f).page.toSQL();
        return (raw.prepare(`EXPLAIN QUERY PLAN ${page.sql}`).all(...page.params) as { detail: string }[])
          .map((r) => r.detail)
          .join('\n');
      };
      // A common value with two statuses, by `updated`: the statuses' updated_at index.
      const byUpdated = plan(spec({ status: ['new', 'open'], cf: [{ field_id: 1, value: 'high' }] }));
      expect(byUpdated).toMatch(/USING INDEX tickets_status_updated_idx/);
      expect(byUpdated).not.toMatch(/_created_idx/);
      // Oldest first: the new indexes, in order.
      for (const [f, index] of [
        [{ status: ['open'] }, 'tickets_status_created_idx'],
        [{ queue_id: 2 }, 'tickets_queue_created_idx'],
        [{ queue_id: 2, status: ['open'] }, 'tickets_queue_status_created_idx'],
      ] satisfies [Partial<TicketListSpec>, string][]) {
        const byCreated = plan(spec({ ...f, sort: 'created', desc: false }));
        expect(byCreated).toMatch(new RegExp(`USING (COVERING )?INDEX ${index}`));
        expect(byCreated).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      }
    } finally {
      await closeDb(db);
    }
  });
});

onlyOn('postgres')('the oldest-first indexes on an analysed PostgreSQL install (decision 107)', () => {
  afterAll(releasePostgres);
  it('a list by `created` reads its page from them; a list by `updated` does not take them', async () => {
    const url = await createDatabase();
    await migratePostgres(
      url,
      migrationsBefore(tmp(), 'src/db/postgres/migrations', migrationTag('src/db/postgres/migrations', 'oldest_first')),
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const store = await openStore({ DATABASE_URL: url, dbPath: '' });
    try {
      await client.query(
        `INSERT INTO queues (id, name, created_at, updated_at) VALUES (1, 'One', '${NOW}', '${NOW}'), (2, 'Two', '${NOW}', '${NOW}')`,
      );
      await client.query(
        `INSERT INTO custom_fields (id, key, name, type, created_at, updated_at) VALUES (1, 'severity', 'Severity', 'text', '${NOW}', '${NOW}')`,
      );
      await client.query(`INSERT INTO tickets (id, queue_id, subject, status, created_at, updated_at)
        SELECT i, 1 + i % 2, 'Ticket ' || i, CASE i % 4 WHEN 0 THEN 'new' WHEN 1 THEN 'open' ELSE 'resolved' END,
          to_char(timestamp '2026-01-01' + i * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          to_char(timestamp '2026-06-01' + ((i * 7919) % ${TICKETS}) * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        FROM generate_series(1, ${TICKETS}) i`);
      await client.query(
        "INSERT INTO ticket_custom_values (ticket_id, field_id, value) SELECT id, 1, CASE WHEN id % 3 = 0 THEN 'low' ELSE 'high' END FROM tickets",
      );
      await client.query('ANALYZE');
      await migratePostgres(url);
      await client.query('ANALYZE');
      const plan = async (f: TicketListSpec) => {
        const page = pgListQueries(store.db, f, undefined, await cfHolders(store.db, f.cf)).page.toSQL();
        return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${page.sql}`, page.params)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      };
      expect(await plan(spec({ status: ['new', 'open'], cf: [{ field_id: 1, value: 'high' }] }))).not.toMatch(
        /_created_idx/,
      );
      for (const [f, index] of [
        [{ status: ['open'] }, 'tickets_status_created_idx'],
        [{ queue_id: 2 }, 'tickets_queue_created_idx'],
        [{ queue_id: 2, status: ['open'] }, 'tickets_queue_status_created_idx'],
      ] satisfies [Partial<TicketListSpec>, string][])
        expect(await plan(spec({ ...f, sort: 'created', desc: false }))).toContain(index);
    } finally {
      await client.end();
      await closeDb(store.db);
    }
  });
});
