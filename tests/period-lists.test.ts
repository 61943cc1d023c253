import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, openDb, type Db, sqliteOf } from '../src/db/store.js';
import { sqliteHandle } from '../src/db/sqlite/client.js';
import { listQueries, listTickets } from '../src/db/sqlite/ticketList.js';
import type { TicketListSpec } from '../src/db/ticketListSpec.js';
import { listSpecOf } from './helpers/listSpec.js';
import { seedIfEmpty } from '../src/domain/seed.js';

// Decision 109 on SQLite: a report's drill-down lists the tickets created in a period. Tickets
// are updated after they are created, so an old period lies at the far end of the `updated`
// indexes, and with a status its page walked every newer ticket of the status first (13.9 ms at
// 100k). The period names the condition of the partial (status | queue, created_at) indexes: its
// tickets of a status are then a range of one, which SQLite reads, counts and sorts.
// (PostgreSQL's side, a period read and sorted by choice: tests/pg-store-plans.test.ts.)

const TICKETS = 6_000;
let dir: string;
let db: Db;
/** The first ticket's creation; ticket i was created i minutes later and last updated then. */
const BASE = Date.parse('2025-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(BASE + minutes * 60_000).toISOString();
const STATUSES = ['open', 'resolved', 'new', 'resolved', 'stalled'];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-period-'));
  db = openDb(path.join(dir, 'hxdesk.db'));
  await seedIfEmpty(db, { adminEmail: 'admin@example.com', adminPassword: 'admin-password-123' });
  const sqlite = sqliteOf(db);
  const insert = sqlite.prepare(
    'INSERT INTO tickets (queue_id, subject, status, priority, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?)',
  );
  sqlite.transaction(() => {
    for (let i = 0; i < TICKETS; i++) insert.run(`Ticket ${i}`, STATUSES[i % 5], i % 7, at(i), at(i));
  })();
  // As a server's own `PRAGMA optimize` leaves it: the planner knows the indexes' sizes.
  sqlite.exec('ANALYZE');
});
afterAll(async () => {
  await closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

const spec = (f: Partial<TicketListSpec>): TicketListSpec => listSpecOf({ countUpTo: 1000, ...f });
const plan = (q: { toSQL(): { sql: string; params: unknown[] } }) => {
  const { sql, params } = q.toSQL();
  return (
    sqliteOf(db)
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params) as { detail: string }[]
  )
    .map((r) => r.detail)
    .join('\n');
};
/** The tickets of the oldest `n` minutes with `status`, in the list's order, straight from the table. */
const truth = (n: number, status: string, order = 'updated_at DESC, id DESC') =>
  (
    sqliteOf(db)
      .prepare(`SELECT id FROM tickets WHERE created_at < ? AND status = ? ORDER BY ${order}`)
      .all(at(n), status) as { id: number }[]
  ).map((r) => r.id);

describe('a period of creation by update (decision 109)', () => {
  it('an old period with a status: a range of tickets_status_created_idx, counted there, the page sorted from it', () => {
    for (const status of [['open'], ['new', 'open']]) {
      const f = spec({ createdTo: at(1_000), status });
      const q = listQueries(sqliteHandle(db), f);
      try {
        const page = plan(q.page);
        expect(page, status.join()).toMatch(
          /SEARCH tickets USING INDEX tickets_status_created_idx \(status=\? AND created_at/,
        );
        expect(page).toMatch(/USE TEMP B-TREE FOR ORDER BY/);
        expect(plan(q.count!)).toMatch(/COVERING INDEX tickets_status_created_idx/);
      } finally {
        q.release();
      }
    }
    const f = spec({ createdTo: at(1_000), status: ['open'] });
    const listed = listTickets(sqliteHandle(db), f);
    expect(listed.rows.map((r) => r.id)).toEqual(truth(1_000, 'open').slice(0, 50));
    expect({ total: listed.total, exact: listed.exact }).toEqual({ total: 200, exact: true });
    const deeper = listTickets(sqliteHandle(db), { ...f, sort: 'priority', offset: 120, limit: 30 });
    expect(deeper.rows.map((r) => r.id)).toEqual(truth(1_000, 'open', 'priority DESC, id DESC').slice(120, 150));
  });
});
