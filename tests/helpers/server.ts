import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '../../src/app.js';
import type { Deps } from '../../src/routes/context.js';
import type { Hub } from '../../src/events/hub.js';
import { closeDb, type Db, openStore, poolOf, sqliteOf, type Store } from '../../src/db/store.js';
import { createToken } from '../../src/domain/auth.js';
import { type Clock, useClock } from '../../src/domain/clock.js';
import { seedIfEmpty } from '../../src/domain/seed.js';
import { loadEnv, type Env } from '../../src/env.js';
import { httpServerOptions } from '../../src/httpServer.js';
import { createLogger, type Level, type Logger } from '../../src/log.js';
import { loadSettings, type Settings } from '../../src/settings.js';
import { startWorkers, type Workers } from '../../src/workers.js';
import { createMigratedDatabase } from './postgres.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from './process.js';
import { testStore } from './store.js';
import { responseChecker } from './openapi.js';

export { ADMIN_EMAIL, ADMIN_PASSWORD };

export interface ApiOptions {
  token?: string | null; // defaults to the admin token; null sends no Authorization
  body?: unknown; // sent as JSON
  form?: Record<string, string | string[]>; // sent as application/x-www-form-urlencoded
  headers?: Record<string, string>;
}
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface LogEntry {
  level: Level;
  msg: string;
  fields: Record<string, unknown>;
}

export interface TestServer {
  url: string;
  /** Every warning and error the server logged (they still go to stderr as well). */
  logged: LogEntry[];
  /** The hono app being served (its `routes` list every route). */
  app: Awaited<ReturnType<typeof createApp>>;
  /** The store the app was handed (decision 065); `db` is its reader handle. */
  store: Store;
  db: Db;
  env: Env;
  dir: string;
  adminToken: string;
  workers: Workers;
  /** The live-update hub the app runs (SPEC C5). */
  hub: Hub;
  /** The app's settings (its URL, sender, portal key…): what a test calling the domain directly hands it. */
  settings: Settings;
  api<T = any>(method: string, path: string, opts?: ApiOptions): Promise<ApiResponse<T>>;
  /** Creates a user through the API and returns it with an API token of its own. */
  user(role: 'admin' | 'agent' | 'requester', email?: string): Promise<{ id: number; email: string; token: string }>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * A real hxdesk: a fresh SQLite file in a temp dir (or, with HXDESK_TEST_STORE=postgres, a fresh
 * migrated database in the test file's throwaway cluster), the real app, a real HTTP server on 127.0.0.1.
 */
export async function startServer(
  extraEnv: Record<string, string> = {},
  opts: { clock?: Clock } = {},
): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-test-'));
  const database =
    testStore() === 'postgres' && !extraEnv.DATABASE_URL ? { DATABASE_URL: await createMigratedDatabase() } : {};
  // One reader thread (production: one per core, at most 2): every list of the suite goes through it.
  const env = loadEnv({
    NODE_ENV: 'test',
    DATA_DIR: dir,
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    READ_THREADS: '1',
    ...database,
    ...extraEnv,
  });
  const store = await openStore(env);
  const db = store.db;
  // `clock`: the server's time (src/domain/clock.ts), when the test holds it (testClock()); else the real time.
  if (opts.clock) useClock(db, opts.clock);
  await seedIfEmpty(db, { adminEmail: env.ADMIN_EMAIL, adminPassword: env.ADMIN_PASSWORD });
  const quiet = createLogger({ json: true, silent: true });
  const logged: LogEntry[] = [];
  const log: Logger = (level, msg, fields) => {
    if (level === 'error' || level === 'warn') logged.push({ level, msg, fields: fields ?? {} });
    quiet(level, msg, fields);
  };
  // One settings object for the app and its workers, as the server makes it (docs/decisions/045).
  const settings = await loadSettings(db, env);
  const workers = await startWorkers(store, env, log, { settings });
  const deps: Deps = { store, env, log, settings };
  const app = await createApp(deps);
  const server: ServerType = await new Promise((resolve) => {
    // PORT given: the same port again (a server's next life on the same DATA_DIR, as after a restart).
    const s = serve(
      {
        fetch: app.fetch,
        hostname: '127.0.0.1',
        port: extraEnv.PORT ? env.PORT : 0,
        serverOptions: httpServerOptions(env),
      },
      () => resolve(s),
    );
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const admin = (await db.query.users.findFirst({ where: (u, { eq }) => eq(u.email, ADMIN_EMAIL) }))!;
  const adminToken = (
    await createToken(db, { id: admin.id, email: admin.email, name: admin.name, role: 'admin' }, 'tests')
  ).token;

  async function api<T = any>(method: string, p: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? adminToken : opts.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.form)) for (const item of [v].flat()) params.append(k, item);
      body = params.toString();
    }
    const res = await fetch(url + p, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: any = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
    // SPEC D5: an API answer (not a page or fragment) must be what the OpenAPI document says.
    const wanted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    if (wanted['hx-request'] !== 'true' && !(wanted.accept ?? '').includes('text/html')) {
      const override = [opts.form?._method ?? []].flat()[0];
      const asked = method.toUpperCase() === 'POST' && override ? override.trim().toUpperCase() : method.toUpperCase();
      const mismatch = (await responseChecker(app)).check({
        method: asked,
        path: new URL(url + p).pathname,
        status: res.status,
        contentType: res.headers.get('content-type') ?? '',
        body: parsed,
      });
      if (mismatch) throw new Error(`OpenAPI document mismatch: ${mismatch}`);
    }
    return { status: res.status, body: parsed, headers: res.headers, text };
  }

  async function user(role: 'admin' | 'agent' | 'requester', email = `${role}${++counter}@example.com`) {
    const res = await api('POST', '/users', { body: { email, name: `${role} ${counter}`, role } });
    if (res.status !== 201) throw new Error(`creating user failed: ${res.status} ${res.text}`);
    const token = (await createToken(db, { id: res.body.id, email, name: res.body.name, role }, 'tests')).token;
    return { id: res.body.id as number, email, token };
  }

  async function close() {
    (server as import('node:http').Server).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await workers.stop();
    deps.hub?.stop();
    // A test may have closed it to provoke failures.
    if (env.DATABASE_URL ? !poolOf(db).ended : sqliteOf(db).open) await closeDb(db);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  return { url, logged, app, store, db, env, dir, adminToken, workers, hub: deps.hub!, settings, api, user, close };
}

/**
 * `api` for set-up steps that must work: the answer's body, or an error naming the request and
 * what the server said (browser tests arrange their data this way).
 */
export function okApi(s: Pick<TestServer, 'api'>) {
  return async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await s.api(method, path, body === undefined ? {} : { body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body as T;
  };
}
