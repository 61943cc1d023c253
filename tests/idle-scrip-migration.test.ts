import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, expect, it } from 'vitest';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import { closeDb, openDb, sqliteOf } from '../src/db/store.js';
import { CLOSE_IDLE_SCRIP, TEMPLATES } from '../src/domain/seed.js';
import { databaseBefore, migrationsBefore } from './helpers/migrations.js';
import { createDatabase, releasePostgres } from './helpers/postgres.js';
import { onlyOn } from './helpers/store.js';

// SPEC D2 (decision 072): an install made before migration 0027 (PostgreSQL 0014) gets the shipped
// "Close idle tickets" scrip, disabled, and the "Closing" template it mails — the same as a new
// install's seed; an admin's own scrip of that key or template of that name stays as it is.

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mig27-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
afterAll(releasePostgres);

const now = new Date(0).toISOString();
const ADMIN = `INSERT INTO users (id, email, name, role, created_at, updated_at) VALUES (1, 'admin@example.com', 'Admin', 'admin', '${now}', '${now}')`;
const OWN_TEMPLATE = `INSERT INTO templates (name, subject, body, created_at, updated_at) VALUES ('closing', 'Mine', 'My own', '${now}', '${now}')`;
const SCRIPS =
  "SELECT key, condition, action, template_id, queue_id, enabled, sort_order, config FROM scrips WHERE key = 'close_idle_tickets'";
const TEMPLATE = "SELECT name, description, subject, body FROM templates WHERE lower(name) = 'closing'";
const closing = TEMPLATES.find((t) => t.name === 'Closing')!;
const expected = (enabled: unknown) => ({
  key: 'close_idle_tickets',
  condition: 'on_idle',
  action: 'close_idle',
  template_id: null,
  queue_id: null,
  enabled,
  sort_order: CLOSE_IDLE_SCRIP.sort_order,
});

type Found = { scrips: Record<string, unknown>[]; templates: Record<string, unknown>[] };
function check(found: Found, enabled: unknown, ownTemplate: boolean) {
  expect(found.scrips).toHaveLength(1);
  expect(found.scrips[0]).toMatchObject(expected(enabled));
  expect(JSON.parse(found.scrips[0].config as string)).toEqual(CLOSE_IDLE_SCRIP.config);
  expect(found.templates).toEqual(
    ownTemplate ? [{ name: 'closing', description: '', subject: 'Mine', body: 'My own' }] : [closing],
  );
}

onlyOn('sqlite')('migration 0027 on an SQLite install made before it', () => {
  it("adds the disabled scrip and the Closing template; keeps an admin's own template; an empty database gets none", async () => {
    for (const [fill, own] of [
      [[ADMIN], false],
      [[ADMIN, OWN_TEMPLATE], true],
      [[], null],
    ] as const) {
      const file = databaseBefore(tmp(), '0027_', (raw: Database.Database) => {
        for (const q of fill) raw.exec(q);
      });
      const db = openDb(file);
      try {
        const raw = sqliteOf(db);
        const found = { scrips: raw.prepare(SCRIPS).all(), templates: raw.prepare(TEMPLATE).all() } as Found;
        if (own === null) expect(found).toEqual({ scrips: [], templates: [] });
        else check(found, 0, own);
      } finally {
        await closeDb(db);
      }
    }
  });
});

onlyOn('postgres')('migration 0014 on a PostgreSQL install made before it', () => {
  it("adds the disabled scrip and the Closing template; keeps an admin's own template; an empty database gets none", async () => {
    for (const [fill, own] of [
      [[ADMIN], false],
      [[ADMIN, OWN_TEMPLATE], true],
      [[], null],
    ] as const) {
      const url = await createDatabase();
      await migratePostgres(url, migrationsBefore(tmp(), 'src/db/postgres/migrations', '0014_'));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const q of fill) await client.query(q);
        await migratePostgres(url);
        const found = {
          scrips: (await client.query(SCRIPS)).rows,
          templates: (await client.query(TEMPLATE)).rows,
        };
        if (own === null) expect(found).toEqual({ scrips: [], templates: [] });
        else check(found, false, own);
      } finally {
        await client.end();
      }
    }
  });
});
