// Uniqueness is decided by the database's unique indexes (decision 018): for every resource, a
// duplicate create and a duplicate rename are 409 conflict naming the field, nothing changes,
// and two creates of the same value racing each other give exactly one 201 and one 409 — within
// one server, and between two server processes sharing the SQLite file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, openDb, sqliteOf } from '../src/db/store.js';
import { expectError } from './helpers/expect.js';
import { killAll, spawnServer, type ServerProcess } from './helpers/process.js';
import { startServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { databaseBefore } from './helpers/migrations.js';
import { itOn, onlyOn } from './helpers/store.js';
import { uniq } from './helpers/unique.js';

let s: TestServer;

beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

async function created(res: ApiResponse) {
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number } & Record<string, unknown>;
}

/** 409 conflict with exactly one detail, on `field`, and the field named in the message too. */
function expectConflict(res: ApiResponse, field: string, mentions: string) {
  expectError(res, 409, 'conflict', [field]);
  expect(res.body.error.message).toContain(mentions);
  expect(res.body.error.details[0].message).toContain(mentions);
}

interface Resource {
  name: string;
  route: string;
  /** The list's key in GET <route>. */
  list: string;
  field: string;
  /** A valid create body whose unique field is `value`. */
  body: (value: string) => Record<string, unknown>;
  value: () => string;
  /** The same value as another person would type it (another case), when the field ignores case. */
  variant?: (value: string) => string;
}

const lower = (v: string) => v.toLowerCase();
const RESOURCES: Resource[] = [
  {
    name: 'users',
    route: '/users',
    list: 'users',
    field: 'email',
    value: () => `${uniq('Person')}@Example.com`,
    variant: (v) => v.toUpperCase(),
    body: (email) => ({ email, name: 'Someone', role: 'agent' }),
  },
  {
    name: 'teams',
    route: '/teams',
    list: 'teams',
    field: 'name',
    value: () => uniq('Support '),
    variant: lower,
    body: (name) => ({ name }),
  },
  {
    name: 'queues (name)',
    route: '/queues',
    list: 'queues',
    field: 'name',
    value: () => uniq('Billing '),
    variant: lower,
    body: (name) => ({ name }),
  },
  {
    name: 'queues (mail alias)',
    route: '/queues',
    list: 'queues',
    field: 'mail_alias',
    value: () => `${uniq('help')}@example.com`,
    variant: (v) => v.toUpperCase(),
    body: (mail_alias) => ({ name: uniq('Aliased '), mail_alias }),
  },
  {
    name: 'templates',
    route: '/templates',
    list: 'templates',
    field: 'name',
    value: () => uniq('Reply note '),
    variant: lower,
    body: (name) => ({ name, subject: 'Re: {{ ticket.subject }}', body: 'Hello' }),
  },
  {
    name: 'scrips',
    route: '/scrips',
    list: 'scrips',
    field: 'key',
    value: () => uniq('reopen_'),
    body: (key) => ({ key, condition: 'on_correspond', action: 'open_inactive' }),
  },
  {
    name: 'custom fields',
    route: '/custom-fields',
    list: 'custom_fields',
    field: 'key',
    value: () => uniq('order_ref_'),
    body: (key) => ({ key, name: 'Order reference', type: 'text' }),
  },
  // An administrator's own canned responses, and the shared ones (owner_id null: decision 048).
  {
    name: 'canned responses (own)',
    route: '/responses',
    list: 'responses',
    field: 'name',
    value: () => uniq('Thanks '),
    variant: lower,
    body: (name) => ({ name, body: 'Thank you!' }),
  },
  {
    name: 'canned responses (shared)',
    route: '/responses',
    list: 'responses',
    field: 'name',
    value: () => uniq('Welcome '),
    variant: lower,
    body: (name) => ({ name, body: 'Welcome!', owner_id: null }),
  },
];

const count = async (r: Resource) => ((await s.api('GET', r.route)).body[r.list] as unknown[]).length;

describe.each(RESOURCES)('$name: $field is unique', (r) => {
  it('a duplicate create is 409 naming the field, and creates nothing', async () => {
    const value = r.value();
    await created(await s.api('POST', r.route, { body: r.body(value) }));
    const before = await count(r);
    // Addresses are stored lower-case; names as typed.
    const shown = (v: string) => (r.field === 'email' || r.field === 'mail_alias' ? v.toLowerCase() : v);
    expectConflict(await s.api('POST', r.route, { body: r.body(value) }), r.field, shown(value));
    if (r.variant)
      expectConflict(
        await s.api('POST', r.route, { body: r.body(r.variant(value)) }),
        r.field,
        shown(r.variant(value)),
      );
    expect(await count(r)).toBe(before);
  });

  it("renaming onto another one's value is 409 naming the field and changes nothing; keeping one's own is fine", async () => {
    const taken = r.value();
    await created(await s.api('POST', r.route, { body: r.body(taken) }));
    const own = r.value();
    const mine = await created(await s.api('POST', r.route, { body: r.body(own) }));
    const res = await s.api('PATCH', `${r.route}/${mine.id}`, { body: { [r.field]: taken } });
    expectError(res, 409, 'conflict', [r.field]);
    if (r.variant)
      expectError(
        await s.api('PATCH', `${r.route}/${mine.id}`, { body: { [r.field]: r.variant(taken) } }),
        409,
        'conflict',
        [r.field],
      );
    const after = (await s.api('GET', `${r.route}/${mine.id}`)).body;
    expect(after[r.field]).toBe(mine[r.field]);
    expect(after.updated_at).toBe(mine.updated_at);
    // The same value again, or re-cased, is its own: no conflict.
    const again = await s.api('PATCH', `${r.route}/${mine.id}`, {
      body: { [r.field]: r.variant ? r.variant(own) : own },
    });
    expect(again.status, again.text).toBe(200);
  });

  it('two concurrent creates of the same value: exactly one 201 and one 409', async () => {
    const value = r.value();
    const results = await Promise.all([0, 1].map(() => s.api('POST', r.route, { body: r.body(value) })));
    expect(results.map((x) => x.status).sort()).toEqual([201, 409]);
    expectError(results.find((x) => x.status === 409)!, 409, 'conflict', [r.field]);
  });
});

describe('team members: (team, user) is unique', () => {
  it('adding a member twice is 409 naming user_id; concurrent adds give one 201 and one 409', async () => {
    const team = await created(await s.api('POST', '/teams', { body: { name: uniq('Crew ') } }));
    const [a, b] = await Promise.all([s.user('agent'), s.user('agent')]);
    await created(await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: a.id } }));
    expectConflict(
      await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: a.id } }),
      'user_id',
      `User ${a.id}`,
    );
    const results = await Promise.all(
      [0, 1].map(() => s.api('POST', `/teams/${team.id}/members`, { body: { user_id: b.id } })),
    );
    expect(results.map((x) => x.status).sort()).toEqual([201, 409]);
    // Members are listed by user id (a and b were created at the same time: either may be first).
    expect((await s.api('GET', `/teams/${team.id}`)).body.members).toEqual([a.id, b.id].sort((x, y) => x - y));
  });
});

describe('an HTML form gets the conflict in words', () => {
  it('an htmx create with a taken name answers 409 with the field and the reason', async () => {
    await created(await s.api('POST', '/teams', { body: { name: 'Night shift' } }));
    const res = await s.api('POST', '/teams', { form: { name: 'night SHIFT' }, headers: { 'hx-request': 'true' } });
    expect(res.status).toBe(409);
    expect(res.text).toContain('>A team with the name &quot;night SHIFT&quot; already exists<');
  });
});

describe('two server processes on one database (the SQLite file, or the PostgreSQL database)', () => {
  let other: ServerProcess;
  beforeAll(async () => {
    other = await spawnServer({
      DATA_DIR: s.dir,
      NODE_ENV: 'test',
      ...(s.env.DATABASE_URL ? { DATABASE_URL: s.env.DATABASE_URL } : {}),
    });
  }, 30_000);
  afterAll(() => {
    killAll([other.child]);
  });

  it('racing creates of the same team name: one 201, one 409 naming `name`, one row', async () => {
    for (let i = 0; i < 5; i++) {
      const name = uniq('Race ');
      const post = (base: string) =>
        fetch(`${base}/teams`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
      const results = await Promise.all([post(s.url), post(other.base)]);
      expect(results.map((x) => x.status).sort()).toEqual([201, 409]);
      expect(results.find((x) => x.status === 409)!.body.error.details).toEqual([
        { path: 'name', message: `A team with the name "${name}" already exists` },
      ]);
      expect((await s.api('GET', '/teams')).body.teams.filter((t: { name: string }) => t.name === name)).toHaveLength(
        1,
      );
    }
  });

  /** POST /responses to one of the two processes, as the administrator. */
  const postResponse = (base: string, body: Record<string, unknown>) =>
    fetch(`${base}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'Hello', ...body }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

  /** One 201 and one 409 with the body a lone duplicate gets; one row of that name. */
  async function expectOneWinner(results: { status: number; body: any }[], name: string, shared: boolean) {
    expect(results.map((x) => x.status).sort(), name).toEqual([201, 409]);
    const message = `A ${shared ? 'shared ' : ''}canned response named "${name}" already exists`;
    expect(results.find((x) => x.status === 409)!.body.error).toEqual({
      code: 'conflict',
      message,
      details: [{ path: 'name', message }],
    });
    expect((await s.api('GET', `/responses?q=${encodeURIComponent(name)}`)).body.responses).toHaveLength(1);
  }

  it("racing creates of the same canned response name, shared or one's own: one 201, one 409 naming `name` as a lone create does", async () => {
    for (const shared of [false, true, false, true]) {
      const name = uniq(shared ? 'Shared race ' : 'Own race ');
      const body = { name, ...(shared ? { owner_id: null } : {}) };
      await expectOneWinner(
        await Promise.all([postResponse(s.url, body), postResponse(other.base, body)]),
        name,
        shared,
      );
    }
  });

  // Really at the same time: both writers wait on a lock of the table, then go together, so each
  // would pass a check made before its insert; only the unique index can refuse the second.
  itOn('postgres')('canned responses created at the same moment on two connections: one 201, one 409', async () => {
    const client = new pg.Client({ connectionString: s.env.DATABASE_URL });
    await client.connect();
    try {
      for (const shared of [true, false]) {
        const name = uniq(shared ? 'Shared moment ' : 'Own moment ');
        const body = { name, ...(shared ? { owner_id: null } : {}) };
        await client.query('BEGIN');
        await client.query('LOCK TABLE canned_responses IN ACCESS EXCLUSIVE MODE');
        const racing = Promise.all([postResponse(s.url, body), postResponse(other.base, body)]);
        // Both writers are waiting for the table (a state, polled: nothing here moves time).
        for (let waited = 0; ; waited++) {
          const { rows } = await client.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'canned_responses'::regclass AND NOT granted",
          );
          if (rows[0].n >= 2) break;
          if (waited > 1000) throw new Error('the two creates never reached the table');
          await new Promise((r) => setTimeout(r, 5));
        }
        await client.query('COMMIT');
        await expectOneWinner(await racing, name, shared);
      }
    } finally {
      await client.end();
    }
  });
});

// SQLite's own migration over an SQLite file (PostgreSQL's schema began with case-insensitive names).
onlyOn('sqlite')('migration 0012 on a database with names that differ only in case', () => {
  it('keeps the oldest name, renames the later ones with their id, and makes names case-insensitively unique', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mig-'));
    try {
      const now = new Date().toISOString();
      // The migrations as they were before 0012.
      const file = databaseBefore(dir, '0012_', (raw) => {
        for (const [table, names] of [
          ['teams', ['Support', 'support', 'SUPPORT', 'Sales']],
          ['queues', ['General', 'general', 'Billing']],
          ['templates', ['Autoreply', 'AUTOREPLY']],
        ] as const) {
          for (const name of names)
            raw.prepare(`INSERT INTO ${table} (name, created_at, updated_at) VALUES (?, ?, ?)`).run(name, now, now);
        }
      });

      const db = openDb(file);
      try {
        const names = (table: string) =>
          (
            sqliteOf(db).prepare(`SELECT id, name FROM ${table} ORDER BY id`).all() as { id: number; name: string }[]
          ).map((r) => `${r.id}:${r.name}`);
        expect(names('teams')).toEqual(['1:Support', '2:support (2)', '3:SUPPORT (3)', '4:Sales']);
        expect(names('queues')).toEqual(['1:General', '2:general (2)', '3:Billing']);
        expect(names('templates')).toEqual(['1:Autoreply', '2:AUTOREPLY (2)']);
        expect(() =>
          sqliteOf(db)
            .prepare('INSERT INTO teams (name, created_at, updated_at) VALUES (?, ?, ?)')
            .run('sales', now, now),
        ).toThrow(/UNIQUE constraint failed: teams.name/);
      } finally {
        await closeDb(db);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
