// SPEC D5, docs/decisions/044: a production server writes one JSON access line per request on
// stdout, with the id its answer carries in X-Request-Id; LOG_LEVEL=warn leaves those lines out.
// Checked on the real server process (the build the other process tests start), reading its output.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIST } from './helpers/buildOnce.js';
import { sharedStoreEnv } from './helpers/db.js';
import { freePort } from './helpers/net.js';
import { CLEAN, killAll, processScope, runServerToExit, spawnServer, type ServerProcess } from './helpers/process.js';
import { signIn } from './helpers/session.js';
import { itOn } from './helpers/store.js';

const { tmp, children, dataDir } = processScope('access-log');
const PASSWORD = 'a-long-password-1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Line {
  time: string;
  level: string;
  msg: string;
  [k: string]: unknown;
}
/** Every line the process wrote, parsed: each must be one JSON object. */
const lines = (output: string): Line[] =>
  output
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`not a JSON log line: ${l}`);
      }
    });

interface Sent {
  status: number;
  id: string;
  body: any;
}
async function request(
  base: string,
  method: string,
  p: string,
  opts: { cookie?: string; headers?: Record<string, string>; json?: unknown; form?: string } = {},
): Promise<Sent> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.cookie) {
    headers.cookie = opts.cookie;
    headers.origin = base;
  }
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  }
  if (opts.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = opts.form;
  }
  const res = await fetch(base + p, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return {
    status: res.status,
    id: res.headers.get('x-request-id') ?? '',
    body: (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text,
  };
}

describe("a production server's access log", () => {
  let prod: ServerProcess;
  let dir: string;
  let cookie: string;
  let adminId: number;
  beforeAll(async () => {
    dir = dataDir();
    prod = await spawnServer({
      NODE_ENV: 'production',
      DATA_DIR: dir,
      ...(await sharedStoreEnv()),
      ADMIN_EMAIL: 'ops@example.com',
      ADMIN_PASSWORD: PASSWORD,
    });
    children.push(prod);
    cookie = await signIn(prod.base, 'ops@example.com', PASSWORD);
    adminId = (await request(prod.base, 'GET', '/me', { cookie })).body.id;
  });

  /** The access lines that carry `id` (waited for: the process writes them as it answers). */
  async function accessLines(id: string): Promise<Line[]> {
    await expect
      .poll(() => lines(prod.output()).filter((l) => l.msg === 'request' && l.request_id === id).length, {
        timeout: 5000,
      })
      .toBeGreaterThan(0);
    return lines(prod.output()).filter((l) => l.msg === 'request' && l.request_id === id);
  }

  it('has one line per answer, with the id of its X-Request-Id, the method, the route pattern, the status, the duration and the user', async () => {
    const created = await request(prod.base, 'POST', '/tickets', {
      cookie,
      json: { subject: 'Printer on fire', queue_id: 1 },
    });
    expect(created.status).toBe(201);
    const ticket = created.body.ticket.id as number;
    const cases: [Sent, Record<string, unknown>][] = [
      [created, { method: 'POST', route: '/tickets', status: 201, user_id: adminId }],
      [
        await request(prod.base, 'GET', `/tickets/${ticket}`, { cookie }),
        { method: 'GET', route: '/tickets/:id', status: 200, user_id: adminId },
      ],
      [
        await request(prod.base, 'GET', '/tickets/999999', { cookie }),
        { method: 'GET', route: '/tickets/:id', status: 404, user_id: adminId },
      ],
      [
        await request(prod.base, 'GET', `/tickets/${ticket}`),
        { method: 'GET', route: '/tickets/:id', status: 401, user_id: null },
      ],
      [await request(prod.base, 'GET', '/healthz'), { method: 'GET', route: '/healthz', status: 200, user_id: null }],
      [
        await request(prod.base, 'GET', '/no/such/page', { cookie }),
        { method: 'GET', route: null, status: 404, user_id: adminId },
      ],
      [
        await request(prod.base, 'PATCH', `/tickets/${ticket}`, { cookie, json: { priority: 500 } }),
        { method: 'PATCH', route: '/tickets/:id', status: 422, user_id: adminId },
      ],
      // A plain HTML form's `_method=PATCH`: dispatched again inside, still one request and one line.
      [
        await request(prod.base, 'POST', `/tickets/${ticket}`, { cookie, form: '_method=PATCH&priority=7' }),
        { method: 'POST', method_override: 'PATCH', route: '/tickets/:id', status: 200, user_id: adminId },
      ],
    ];
    for (const [res, expected] of cases) {
      expect(res.id, JSON.stringify(expected)).toMatch(UUID);
      const found = await accessLines(res.id);
      expect(found, JSON.stringify(expected)).toHaveLength(1);
      expect(found[0]).toEqual({
        time: expect.any(String),
        level: 'info',
        msg: 'request',
        request_id: res.id,
        duration_ms: expect.any(Number),
        ...expected,
      });
      expect(found[0].duration_ms as number).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(cases.map(([r]) => r.id)).size).toBe(cases.length);
  });

  it('names the route, never the path or query a portal token or search words were in', async () => {
    const search = await request(prod.base, 'GET', '/tickets?q=confidential-search-words', { cookie });
    expect(search.status).toBe(200);
    const portal = await request(prod.base, 'GET', '/portal/not-a-real-token-but-secret-looking');
    expect((await accessLines(search.id))[0]).toMatchObject({ route: '/tickets', status: 200 });
    expect((await accessLines(portal.id))[0]).toMatchObject({
      route: expect.stringMatching(/^\/portal\/:/),
      user_id: null,
    });
    expect(prod.output()).not.toContain('confidential-search-words');
    expect(prod.output()).not.toContain('not-a-real-token-but-secret-looking');
  });

  it('keeps a sane X-Request-Id from a proxy, and replaces one too long, with spaces or with control characters', async () => {
    const kept = await request(prod.base, 'GET', '/healthz', { headers: { 'x-request-id': 'proxy-7f3a.2:9_x' } });
    expect(kept.id).toBe('proxy-7f3a.2:9_x');
    expect(await accessLines(kept.id)).toHaveLength(1);
    const longest = 'a'.repeat(128);
    expect((await request(prod.base, 'GET', '/healthz', { headers: { 'x-request-id': longest } })).id).toBe(longest);
    for (const insane of ['a'.repeat(129), 'two words', 'tab\there', 'quote"d', 'ünï']) {
      const res = await request(prod.base, 'GET', '/healthz', { headers: { 'x-request-id': insane } });
      expect(res.status, insane).toBe(200);
      expect(res.id, insane).toMatch(UUID);
      expect(await accessLines(res.id), insane).toHaveLength(1);
    }
    expect(lines(prod.output()).filter((l) => l.request_id === 'a'.repeat(129))).toEqual([]);
  });

  it("writes a live stream's line when it opens", async () => {
    const ac = new AbortController();
    const res = await fetch(`${prod.base}/events`, {
      headers: { cookie, accept: 'text/event-stream' },
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(UUID);
    const [line] = await accessLines(id);
    expect(line).toMatchObject({ method: 'GET', route: '/events', status: 200, user_id: adminId, stream: true });
    ac.abort();
    await res.body?.cancel().catch(() => {});
  });

  itOn('sqlite')(
    'puts the request id on every line written while serving the request (a failed health check)',
    async () => {
      const file = path.join(dir, 'hxdesk.db');
      const aside = path.join(tmp, 'aside.db');
      fs.renameSync(file, aside);
      try {
        const down = await request(prod.base, 'GET', '/healthz');
        expect(down.status).toBe(503);
        const [access] = await accessLines(down.id);
        expect(access).toMatchObject({ route: '/healthz', status: 503 });
        // (stderr and stdout are two pipes: which line arrives first is not said)
        await expect
          .poll(() =>
            lines(prod.output())
              .filter((l) => l.request_id === down.id)
              .map((l) => `${l.level} ${l.msg}`)
              .sort(),
          )
          .toEqual(['error health check failed', 'info request']);
      } finally {
        fs.renameSync(aside, file);
      }
    },
  );
});

describe('LOG_LEVEL', () => {
  it('warn: a production server writes no access line, and still its warnings', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // Started by hand: at `warn` the server does not say it listens (an `info` line), so the
    // test waits for its /healthz to answer instead.
    const child = spawn(process.execPath, [path.join(TEST_DIST, 'server.js')], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...CLEAN,
        NODE_ENV: 'production',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir(),
        ...(await sharedStoreEnv()),
        ADMIN_PASSWORD: PASSWORD,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    afterAll(() => killAll([child]));
    await expect
      .poll(
        () =>
          fetch(`${base}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        { timeout: 30_000, interval: 100 },
      )
      .toBe(200);
    const ids: string[] = [];
    for (const p of ['/healthz', '/tickets', '/no/such/page']) ids.push((await request(base, 'GET', p)).id);
    expect(ids.every((id) => UUID.test(id))).toBe(true);
    // Without MAILGATE_TOKEN a production server warns at start: warnings still come.
    expect(lines(stderr).map((l) => l.msg)).toContain('POST /mailgate is off (503) until MAILGATE_TOKEN is set');
    child.kill('SIGTERM');
    await new Promise((r) => child.once('close', r));
    const all = [...lines(stdout), ...lines(stderr)];
    expect(all.filter((l) => l.level === 'info' || l.level === 'debug')).toEqual([]);
    expect(all.filter((l) => ids.includes(String(l.request_id)))).toEqual([]);
  });

  it('that is not a level stops the start with a message naming it', async () => {
    const run = await runServerToExit({ DATA_DIR: dataDir(), ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'verbose' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/LOG_LEVEL must be one of debug, info, warn, error/);
    expect(run.stdout).not.toContain('listening on');
  });
});
