import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, openDb, type Db } from '../src/db/store.js';
import { sqliteHandle } from '../src/db/sqlite/client.js';
import { fastPrepared } from '../src/db/sqlite/rows.js';
import { customFields, ticketCustomValues, tickets } from '../src/db/tables.js';
import { seedIfEmpty } from '../src/domain/seed.js';
import { createTicket } from '../src/domain/tickets/write.js';
import { loadSettings } from '../src/settings.js';
import { loadEnv } from '../src/env.js';

// Issue 32: compiled SQLite queries map their rows with a function made once for their columns
// (src/db/sqlite/rows.ts) instead of drizzle's mapper. The rows must be what drizzle gives:
// booleans, JSON-less text, nulls, `sql` expressions with and without `.mapWith`, joined columns.

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-rows-'));
  db = openDb(path.join(dir, 'hxdesk.db'));
  await seedIfEmpty(db, { adminEmail: 'admin@example.com', adminPassword: 'admin-password-123' });
  const admin = { id: 1, email: 'admin@example.com', name: 'Admin', role: 'admin' } as const;
  const { notify } = await loadSettings(db, loadEnv({ NODE_ENV: 'test', DATA_DIR: dir }));
  await createTicket(db, admin, { queue_id: 1, subject: 'One', description: 'x' }, notify);
  await createTicket(db, admin, { queue_id: 1, subject: 'Two', description: 'y', owner_id: 1 }, notify);
});
afterAll(async () => {
  await closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('rows of a compiled query (fastPrepared)', () => {
  const h = () => sqliteHandle(db);
  const cases = {
    'every ticket column (booleans, nulls)': () => h().select().from(tickets).orderBy(tickets.id),
    'sql expressions, with and without mapWith': () =>
      h()
        .select({
          id: tickets.id,
          n: sql<number>`${tickets.id} * 2`,
          s: sql`${tickets.subject}`.mapWith(String),
          b: sql<boolean>`${tickets.replied_while_snoozed}`.mapWith(Boolean),
          none: sql<null>`NULL`,
        })
        .from(tickets),
    'a join with flat fields': () =>
      h()
        .select({ ticket_id: ticketCustomValues.ticket_id, key: customFields.key })
        .from(ticketCustomValues)
        .innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id)),
  };
  for (const [name, build] of Object.entries(cases)) {
    it(`${name}: the same rows as drizzle's own mapping`, () => {
      const q = build();
      const fast = fastPrepared(q.prepare() as never);
      expect(fast.all()).toEqual(q.all());
      expect(fast.get()).toEqual(q.get());
    });
  }

  it('the rows carry the decoded types (a boolean is a boolean, a missing value null)', () => {
    const rows = fastPrepared(h().select().from(tickets).orderBy(tickets.id).prepare() as never).all() as {
      replied_while_snoozed: unknown;
      owner_id: unknown;
    }[];
    expect(rows.map((r) => [typeof r.replied_while_snoozed, r.owner_id])).toEqual([
      ['boolean', null],
      ['boolean', 1],
    ]);
  });

  it('a nested selection keeps drizzle’s own path', () => {
    const q = h()
      .select({ t: { id: tickets.id } })
      .from(tickets)
      .prepare();
    expect(fastPrepared(q as never)).toBe(q);
  });
});
