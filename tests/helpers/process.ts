import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, expect } from 'vitest';
import path from 'node:path';
import { TEST_DIST } from './buildOnce.js';

const root = path.resolve(import.meta.dirname, '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Settings a test machine may have in its environment that must not leak into a spawned server. */
export const CLEAN: Record<string, string> = {
  HOST: '127.0.0.1',
  PORT: '0',
  NODE_ENV: 'development',
  PUBLIC_URL: '',
  MAIL_FROM: '',
  SMTP_URL: '',
  WEBHOOK_SECRET: '',
  OUTBOX_POLL_MS: '',
  OUTBOX_RETRY_BASE_MS: '',
  OUTBOX_MAX_ATTEMPTS: '',
  OUTBOX_LEASE_MS: '',
  IMAP_URL: '',
  IMAP_POLL_SECONDS: '',
  IMAP_MOVE_TO: '',
  MAIL_SENDER_MAX_PER_HOUR: '',
  DATABASE_URL: '',
};

/**
 * Spawns the server compiled once for the run (TEST_DIST/server.js, as `npm start` runs dist/server.js) in its own process group,
 * so a test can SIGKILL or SIGTERM it whole, and resolves once it listens.
 */
export async function spawnServer(
  env: Record<string, string>,
  onOutput?: (all: string) => void,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [path.join(TEST_DIST, 'server.js')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...CLEAN, ...env },
  });
  let output = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start; output:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      onOutput?.(output);
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}); output:\n${output}`));
    });
  });
  return { child, base, output: () => output, exit };
}

/** Stops a server process as an operator would (SIGTERM to its group) and expects a clean exit (code 0). */
export async function stopServer(s: Pick<ServerProcess, 'child' | 'exit'>): Promise<void> {
  process.kill(-s.child.pid!, 'SIGTERM');
  expect((await s.exit).code).toBe(0);
}

/** Signals the process group of a child started detached (it and whatever it started); a group already gone is fine. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* the group is gone already */
  }
}

/** SIGKILLs the process group of every child still running (a test's afterAll). */
export function killAll(children: ChildProcess[]): void {
  for (const c of children) {
    if (c.pid && c.exitCode === null && c.signalCode === null) killGroup(c, 'SIGKILL');
  }
}

/**
 * Spawns the server as spawnServer does and waits for it to stop on its own: for starts that
 * must fail. Resolves with the exit and what it wrote (stdout and stderr apart).
 */
export function runServerToExit(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(TEST_DIST, 'server.js')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...CLEAN, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killAll([child]);
      reject(new Error(`server did not exit; output:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The bootstrap administrator a test server seeds (in-process servers too: server.ts hands these on). */
export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'admin-password-123';

/**
 * A spawned server's environment: its store — a DATA_DIR, or the variables of one (DATA_DIR and,
 * on PostgreSQL, DATABASE_URL) — the bootstrap administrator, and the test's own `settings`.
 * The same environment serves the `hxdesk` commands run against that store.
 */
export function serverEnv(
  store: string | Record<string, string>,
  settings: Record<string, string> = {},
): Record<string, string> {
  return { ...(typeof store === 'string' ? { DATA_DIR: store } : store), ADMIN_EMAIL, ADMIN_PASSWORD, ...settings };
}

/**
 * A test file's real server processes and their data directories: every process pushed to
 * `children` (`serve` pushes the ones it starts) is killed, and the temp directory removed,
 * after the file's tests.
 */
export function processScope(prefix: string): {
  tmp: string;
  children: ServerProcess[];
  dataDir: () => string;
  /** Spawns a server on `store` with `settings` (serverEnv) and resolves once it listens. */
  serve: (store: string | Record<string, string>, settings?: Record<string, string>) => Promise<ServerProcess>;
} {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `hxdesk-${prefix}-`));
  const children: ServerProcess[] = [];
  afterAll(() => {
    killAll(children.map((c) => c.child));
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  let dirs = 0;
  const serve = async (store: string | Record<string, string>, settings: Record<string, string> = {}) => {
    const s = await spawnServer(serverEnv(store, settings));
    children.push(s);
    return s;
  };
  return { tmp, children, dataDir: () => fs.mkdtempSync(path.join(tmp, `data${++dirs}-`)), serve };
}

/** Signs in with JSON: the session cookie (`name=value`), or the refusal's status. */
export const login = (base: string, email: string, password: string): Promise<Answer> =>
  send(base, 'POST', '/login', { email, password });

/** An answer of a real server process, as `send` reads it: the body parsed (JSON) or as text, and its exact bytes. */
export interface Answer {
  status: number;
  body: any;
  bytes: Buffer;
  cookie?: string;
  retryAfter: string | null;
}
/**
 * One request to the server process at `base`: with a bearer token, or with a session cookie
 * (and its own Origin, as a browser sends it). The body goes as JSON; with `type`, it goes as it
 * is (a string or bytes: a message, a file) with that content type.
 */
export async function send(
  base: string,
  method: string,
  p: string,
  body?: unknown,
  opts: { token?: string; cookie?: string; type?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) {
    headers.cookie = opts.cookie;
    headers.origin = base;
  }
  const payload = body === undefined ? undefined : opts.type ? (body as string | Buffer) : JSON.stringify(body);
  const res = await fetch(`${base}${p}`, { method, headers, body: payload });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  return {
    status: res.status,
    body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
    bytes,
    cookie: res.headers.get('set-cookie')?.split(';')[0],
    retryAfter: res.headers.get('retry-after'),
  };
}
