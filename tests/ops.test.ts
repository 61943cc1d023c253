// What an operator relies on, checked against the real server process (the server
// compiled once for the run, as the other process tests start it): a bad setting stops the start with its
// name, production mode writes one JSON object per log line and caches static files, and
// /healthz answers 503 when the database is really gone.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/port.js';
import { users } from '../src/db/tables.js';
import { rawGet, rawQuery, rawRun, sharedStore } from './helpers/db.js';
import { expectError } from './helpers/expect.js';
import { runServerToExit, spawnServer, type ServerProcess, processScope } from './helpers/process.js';
import { postgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';
import { itOn, onlyOn, testStore } from './helpers/store.js';

const { tmp, children, dataDir } = processScope('ops');
const STACK = /\n\s+at .+:\d+:\d+/;

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
  };
}

/** Every line a production server wrote, parsed; fails on any line that is not one JSON object. */
function jsonLines(output: string): { time: string; level: string; msg: string; [k: string]: unknown }[] {
  return output
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      let parsed: any;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
      expect(parsed, line).toMatchObject({
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        level: expect.stringMatching(/^(debug|info|warn|error)$/),
        msg: expect.any(String),
      });
      return parsed;
    });
}

describe('a bad setting stops the server with a message naming it', () => {
  const busy = net.createServer();
  let busyPort = 0;
  beforeAll(async () => {
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    busyPort = (busy.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => busy.close(() => r())));

  const file = path.join(tmp, 'not-a-directory');
  fs.writeFileSync(file, 'x');
  const cases: [string, () => Record<string, string>, RegExp][] = [
    ['PORT=abc', () => ({ PORT: 'abc' }), /PORT/],
    ['PORT=70000', () => ({ PORT: '70000' }), /PORT/],
    ['SMTP_URL=ftp://x', () => ({ SMTP_URL: 'ftp://x' }), /SMTP_URL: Expected smtp:\/\/ or smtps:\/\/ URL/],
    ['MAILGATE_TOKEN=short', () => ({ MAILGATE_TOKEN: 'short' }), /MAILGATE_TOKEN must be at least 16 characters/],
    ['NODE_ENV=prod', () => ({ NODE_ENV: 'prod' }), /NODE_ENV/],
    ['PUBLIC_URL=example', () => ({ PUBLIC_URL: 'example' }), /PUBLIC_URL/],
    ['IMAP_URL=http://x', () => ({ IMAP_URL: 'http://mail.example.com' }), /IMAP_URL/],
    ['DATA_DIR naming a file', () => ({ DATA_DIR: path.join(file, 'data') }), /DATA_DIR=/],
    ['PORT already in use', () => ({ PORT: String(busyPort) }), /PORT=\d+ is already in use/],
  ];
  // The first seven are refused by the environment's schema before any store is opened, the same
  // code on either store: run once, on SQLite (the CI run's time goes to what differs by store).
  const storeFree = testStore() === 'sqlite' ? cases : cases.slice(7);
  it.each(storeFree)('%s: exit code 1, the variable named, no stack trace', async (_name, env, message) => {
    const run = await runServerToExit({ DATA_DIR: dataDir(), ADMIN_PASSWORD: 'a-long-password-1', ...env() });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(STACK);
    expect(run.stdout).not.toContain('listening on');
  });

  itOn('sqlite')('in production the message is one JSON log line too', async () => {
    const run = await runServerToExit({
      NODE_ENV: 'production',
      DATA_DIR: dataDir(),
      SMTP_URL: 'ftp://x',
      PORT: 'abc',
    });
    expect(run.code).toBe(1);
    const [line, ...rest] = jsonLines(run.stderr);
    expect(rest).toEqual([]);
    expect(line.level).toBe('error');
    expect(line.msg).toMatch(/PORT/);
    expect(line.msg).toMatch(/SMTP_URL/);
  });
});

describe('production mode', () => {
  let prod: ServerProcess;
  let dir: string;
  let store: Record<string, string>;
  beforeAll(async () => {
    dir = dataDir();
    store = (await sharedStore(dir)).env; // the SQLite file in dir, or a PostgreSQL database
    prod = await spawnServer({
      NODE_ENV: 'production',
      ...store,
      ADMIN_EMAIL: 'ops@example.com',
      ADMIN_PASSWORD: '',
      MAILGATE_TOKEN: 'a-mailgate-token-of-some-length',
    });
    children.push(prod);
  });

  it('writes one JSON object per line (level, msg, time), the first-start password included', async () => {
    const lines = jsonLines(prod.output());
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^hxdesk listening on http:/), 'initialized a new database']),
    );
    const first = lines.find((l) => l.msg.startsWith('First start:'))!;
    const password = /with password (\S+)/.exec(first.msg)![1];
    const login = await fetch(`${prod.base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@example.com', password }),
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('set-cookie')).toMatch(/; Secure/i);
  });

  it('serves static files with Cache-Control: public, max-age', async () => {
    for (const file of ['/static/app.css', '/static/app.js', '/static/htmx.min.js']) {
      const res = await get(prod.base + file);
      expect(res.status, file).toBe(200);
      expect(res.headers.get('cache-control'), file).toMatch(/^public, max-age=\d+$/);
      expect(Number(/max-age=(\d+)/.exec(res.headers.get('cache-control')!)![1])).toBeGreaterThanOrEqual(3600);
    }
  });

  itOn('sqlite')(
    '/healthz: 200 while the database is there; 503 with the error body, logged with the request id, when its file is gone',
    async () => {
      expect((await get(`${prod.base}/healthz`)).body).toEqual({ ok: true });
      const file = path.join(dir, 'hxdesk.db');
      const aside = path.join(tmp, 'moved-away.db');

      // The file moved away: SQLite would keep writing to it where nobody will look.
      fs.renameSync(file, aside);
      const moved = await get(`${prod.base}/healthz`, { 'x-request-id': 'probe-1' });
      expectError(moved, 503, 'unavailable');
      expect(moved.body.error.message).toMatch(/database file is gone/);
      expect(moved.headers.get('x-request-id')).toBe('probe-1');
      await expect
        .poll(() => jsonLines(prod.output()).find((l) => l.request_id === 'probe-1' && l.msg !== 'request'), {
          timeout: 5000,
        })
        .toMatchObject({
          level: 'error',
          msg: 'health check failed',
          problem: expect.stringMatching(/database file is gone/),
        });

      // Back in place: healthy again.
      fs.renameSync(aside, file);
      expect((await get(`${prod.base}/healthz`)).status).toBe(200);

      // The whole data directory removed.
      fs.rmSync(dir, { recursive: true, force: true });
      const gone = await get(`${prod.base}/healthz`);
      expectError(gone, 503, 'unavailable');
      expect(gone.text).not.toMatch(STACK);
      expect(gone.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  itOn('postgres')(
    '/healthz: 200 while the database answers; 503 with the error body, logged with the request id, while it refuses connections',
    async () => {
      expect((await get(`${prod.base}/healthz`)).body).toEqual({ ok: true });
      const name = new URL(store.DATABASE_URL).pathname.slice(1);
      const admin = new pg.Client({ connectionString: (await postgres()).url() });
      await admin.connect();
      try {
        // The database stops taking connections and the server's are cut (as a restart or an operator would).
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
        const down = await get(`${prod.base}/healthz`, { 'x-request-id': 'probe-pg' });
        expectError(down, 503, 'unavailable');
        expect(down.body.error.message).toMatch(/database does not answer/);
        expect(down.text).not.toMatch(STACK);
        expect(down.headers.get('x-request-id')).toBe('probe-pg');
        await expect
          .poll(() => jsonLines(prod.output()).find((l) => l.request_id === 'probe-pg' && l.msg !== 'request'), {
            timeout: 5000,
          })
          .toMatchObject({
            level: 'error',
            msg: 'health check failed',
            problem: expect.stringMatching(/database does not answer/),
          });

        // Taking connections again: healthy again, with no restart.
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
        expect((await get(`${prod.base}/healthz`)).status).toBe(200);
      } finally {
        await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
        await admin.end();
      }
    },
  );

  it('stops on SIGTERM with exit code 0, still writing JSON lines', async () => {
    process.kill(prod.child.pid!, 'SIGTERM');
    expect(await prod.exit).toEqual({ code: 0, signal: null });
    const lines = jsonLines(prod.output());
    expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'SIGTERM: shutting down' });
  });
});

describe('development mode', () => {
  it('serves static files with Cache-Control: no-cache', async () => {
    const dev = await spawnServer({
      NODE_ENV: 'development',
      DATA_DIR: dataDir(),
      ADMIN_PASSWORD: 'a-long-password-1',
    });
    children.push(dev);
    for (const file of ['/static/app.css', '/static/app.js', '/static/htmx.min.js']) {
      const res = await get(dev.base + file);
      expect(res.status, file).toBe(200);
      expect(res.headers.get('cache-control'), file).toBe('no-cache');
    }
    process.kill(dev.child.pid!, 'SIGTERM');
    expect((await dev.exit).code).toBe(0);
  });
});

onlyOn('postgres')('a PostgreSQL connection cut in the middle of a unit of work', () => {
  it('fails that unit of work, not the process; the next requests are served', async () => {
    const s = await startServer();
    try {
      let resume!: () => void;
      const resumed = new Promise<void>((r) => {
        resume = r;
      });
      let started!: (pid: number) => void;
      const backend = new Promise<number>((r) => {
        started = r;
      });
      const work = transaction(s.db, async (tx) => {
        const [row] = await tx.select({ pid: sql<number>`pg_backend_pid()` }).from(users).limit(1);
        started(row.pid);
        await resumed; // between two queries: the connection is checked out and idle
        return tx.select().from(users).limit(1);
      });
      const pid = await backend;
      expect(await rawGet(s, 'SELECT pg_terminate_backend(?) AS ok', [pid])).toEqual({ ok: true });
      // The server has closed it; let the client hear so (its 'error' event) before the unit of work goes on.
      await expect
        .poll(() => rawQuery(s, 'SELECT 1 FROM pg_stat_activity WHERE pid = ?', [pid]), { timeout: 5000 })
        .toEqual([]);
      await new Promise((r) => setTimeout(r, 50));
      resume();
      await expect(work).rejects.toThrow();
      expect((await s.api('GET', '/teams')).status).toBe(200);
      expect((await s.api('POST', '/teams', { body: { name: 'After the cut' } })).status).toBe(201);
      expect((await s.api('GET', '/healthz')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('an unexpected failure in production', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ NODE_ENV: 'production' });
  });
  afterAll(async () => {
    await s.close();
  });

  it('is a 500 with the request id and neither stack nor SQL, in JSON and in HTML', async () => {
    // A real fault underneath the app: a table it reads is missing.
    await rawRun(s, 'DROP TABLE saved_views');
    const json = await s.api('GET', '/saved-views', { headers: { 'x-request-id': 'req-42' } });
    expectError(json, 500, 'internal');
    expect(json.body.error).toEqual({ code: 'internal', message: 'Internal server error (request req-42)' });
    expect(json.headers.get('x-request-id')).toBe('req-42');

    const html = await s.api('GET', '/saved-views', {
      headers: { accept: 'text/html', 'x-request-id': 'bad id with spaces' },
    });
    expect(html.status).toBe(500);
    const id = html.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(html.text).toContain(`Internal server error (request ${id})`);
    expect(html.text).not.toMatch(/saved_views|SqliteError|no such table|relation/);
    expect(html.text).not.toMatch(STACK);
  });
});
