import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import { closeDb, openDb, sqliteOf } from '../src/db/store.js';
import { databaseBefore, migrationsBefore } from './helpers/migrations.js';
import { createDatabase, releasePostgres } from './helpers/postgres.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { onlyOn } from './helpers/store.js';

// SPEC D6 "New becomes open when staff take it up" (decision 052): the default scrip
// open_on_staff_reply moves a ticket in `new` to `open` on a staff member's public reply or Take,
// as a Status entry in the same unit of work; never on a requester's reply or an internal note.
// Migration 0022 (PostgreSQL 0009) gives an existing install the scrip.

let s: TestServer;
let agent: { id: number; token: string };
let other: { id: number; token: string };
let customer: { id: number; token: string };

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  other = await s.user('agent');
  customer = await s.user('requester');
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

const newTicket = async () => {
  const r = await s.api('POST', '/tickets', {
    token: customer.token,
    body: { queue_id: 1, subject: 'Printer jammed', description: 'Paper everywhere' },
  });
  expect(r.status, r.text).toBe(201);
  expect(r.body.ticket.status).toBe('new');
  return r.body.ticket.id as number;
};
const statusEntries = async (id: number) =>
  (await transactionsOf(s, id))
    .filter((t) => t.type === 'Status')
    .map((t) => `${t.old_value}→${t.new_value} by ${t.creator_id}`);

describe('open_on_staff_reply', () => {
  it('is a default scrip admins can see (and turn off)', async () => {
    const r = await s.api('GET', '/scrips');
    const scrip = r.body.scrips.find((x: { key: string }) => x.key === 'open_on_staff_reply');
    expect(scrip).toMatchObject({ condition: 'on_staff_take_up', action: 'open_new', enabled: true });
  });

  it("a staff member's public reply opens a new ticket, in the same change", async () => {
    const id = await newTicket();
    const r = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'On my way', internal: false },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.scrip_results.map((x: { key: string }) => x.key)).toContain('open_on_staff_reply');
    expect((await ticketOf(s, id)).status).toBe('open');
    expect(await statusEntries(id)).toEqual(['new→open by null']);
    // The Status entry comes right after the reply.
    const all = await transactionsOf(s, id);
    expect(all.map((t) => t.type)).toEqual(['Create', 'Correspond', 'Status']);
  });

  it('Take (owner ← me) opens a new ticket; assigning someone else does not', async () => {
    const id = await newTicket();
    await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { owner_id: other.id } });
    expect((await ticketOf(s, id)).status).toBe('new');
    const r = await s.api('PATCH', `/tickets/${id}`, {
      token: agent.token,
      body: { owner_id: agent.id, confirm_owner_id: other.id },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.ticket.status).toBe('open');
    expect(await statusEntries(id)).toEqual(['new→open by null']);
  });

  it("a requester's reply and an internal note leave it new", async () => {
    const id = await newTicket();
    await s.api('POST', `/tickets/${id}/comment`, { token: customer.token, body: { body: 'Any news?' } });
    await s.api('POST', `/tickets/${id}/comment`, { token: agent.token, body: { body: 'Looking', internal: true } });
    expect((await ticketOf(s, id)).status).toBe('new');
    expect(await statusEntries(id)).toEqual([]);
  });

  it('only touches new tickets: a Take of a stalled ticket leaves it stalled', async () => {
    const id = await newTicket();
    await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { status: 'stalled' } });
    const r = await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { owner_id: agent.id } });
    expect(r.body.scrip_results.map((x: { key: string }) => x.key)).toContain('open_on_staff_reply');
    expect((await ticketOf(s, id)).status).toBe('stalled');
  });

  it('turned off, a staff reply leaves the ticket new', async () => {
    const scrip = (await s.api('GET', '/scrips')).body.scrips.find(
      (x: { key: string }) => x.key === 'open_on_staff_reply',
    );
    expect((await s.api('PATCH', `/scrips/${scrip.id}`, { body: { enabled: false } })).status).toBe(200);
    try {
      const id = await newTicket();
      await s.api('POST', `/tickets/${id}/comment`, { token: agent.token, body: { body: 'Hi', internal: false } });
      expect((await ticketOf(s, id)).status).toBe('new');
    } finally {
      await s.api('PATCH', `/scrips/${scrip.id}`, { body: { enabled: true } });
    }
  });
});

// ---- The migration, on an install made before it ----

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mig22-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const now = new Date(0).toISOString();
const ADMIN = `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (1, 'admin@example.com', 'Admin', 'admin', '${now}', '${now}')`;
/** An install whose admin already made a scrip of that key (turned off): it stays as it is. */
const OWN = `INSERT INTO scrips (key, description, condition, action, enabled, sort_order, config, created_at, updated_at) VALUES ('open_on_staff_reply', 'mine', 'on_create', 'open_inactive', false, 5, '{}', '${now}', '${now}')`;
const ROW = 'SELECT key, condition, action, template_id, queue_id, enabled, sort_order FROM scrips';
const EXPECTED = {
  key: 'open_on_staff_reply',
  condition: 'on_staff_take_up',
  action: 'open_new',
  template_id: null,
  queue_id: null,
  sort_order: 65,
};

onlyOn('sqlite')('migration 0022 on an SQLite install made before it', () => {
  it('adds the scrip to an install with users; leaves an own scrip of that key; an empty database gets none', async () => {
    for (const [fill, expected] of [
      [[ADMIN], [{ ...EXPECTED, enabled: 1 }]],
      [[ADMIN, OWN.replace('false', '0')], [{ key: 'open_on_staff_reply', condition: 'on_create', enabled: 0 }]],
      [[], []],
    ] as const) {
      const file = databaseBefore(tmp(), '0022_', (raw: Database.Database) => {
        for (const q of fill) raw.exec(q);
      });
      const db = openDb(file);
      try {
        const rows = sqliteOf(db).prepare(`${ROW} WHERE key = 'open_on_staff_reply'`).all();
        expect(rows).toHaveLength(expected.length);
        rows.forEach((r, i) => {
          expect(r).toMatchObject(expected[i]);
        });
      } finally {
        await closeDb(db);
      }
    }
  });
});

onlyOn('postgres')('migration 0009 on a PostgreSQL install made before it', () => {
  it('adds the scrip to an install with users; leaves an own scrip of that key', async () => {
    for (const [fill, expected] of [
      [[ADMIN], [{ ...EXPECTED, enabled: true }]],
      [[ADMIN, OWN], [{ key: 'open_on_staff_reply', condition: 'on_create', enabled: false }]],
      [[], []],
    ] as const) {
      const url = await createDatabase();
      await migratePostgres(url, migrationsBefore(tmp(), 'src/db/postgres/migrations', '0009_'));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const q of fill) await client.query(q);
        await migratePostgres(url);
        const { rows } = await client.query(`${ROW} WHERE key = 'open_on_staff_reply'`);
        expect(rows).toHaveLength(expected.length);
        rows.forEach((r, i) => {
          expect(r).toMatchObject(expected[i]);
        });
      } finally {
        await client.end();
      }
    }
  });
});
