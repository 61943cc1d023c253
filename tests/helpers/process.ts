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
  HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'development', PUBLIC_URL: '', MAIL_FROM: '', SMTP_URL: '', WEBHOOK_SECRET: '',
  OUTBOX_POLL_MS: '', OUTBOX_RETRY_BASE_MS: '', OUTBOX_MAX_ATTEMPTS: '', IMAP_URL: '', IMAP_POLL_SECONDS: '', IMAP_MOVE_TO: '',
  MAIL_SENDER_MAX_PER_HOUR: '', DATABASE_URL: '',
};

/**
 * Spawns the server compiled once for the run (TEST_DIST/server.js, as `npm start` runs dist/server.js) in its own process group,
 * so a test can SIGKILL or SIGTERM it whole, and resolves once it listens.
 */
export async function spawnServer(env: Record<string, string>, onOutput?: (all: string) => void): Promise<ServerProcess> {
  const child = spawn(process.execPath, [path.join(TEST_DIST, 'server.js')], {
    cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...CLEAN, ...env },
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
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exit.then(({ code, signal }) => { clearTimeout(timer); reject(new Error(`server exited (${code ?? signal}); output:\n${output}`)); });
  });
  return { child, base, output: () => output, exit };
}

/** Signals the process group of a child started detached (it and whatever it started); a group already gone is fine. */
/** Stops a server process as an operator would (SIGTERM to its group) and expects a clean exit (code 0). */
export async function stopServer(s: Pick<ServerProcess, 'child' | 'exit'>): Promise<void> {
  process.kill(-s.child.pid!, 'SIGTERM');
  expect((await s.exit).code).toBe(0);
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try { process.kill(-child.pid!, signal); } catch { /* the group is gone already */ }
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
export function runServerToExit(env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(TEST_DIST, 'server.js')], {
    cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...CLEAN, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { killAll([child]); reject(new Error(`server did not exit; output:\n${stdout}${stderr}`)); }, timeoutMs);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
  });
}

/**
 * A test file's real server processes and their data directories: every process pushed to
 * `children` is killed, and the temp directory removed, after the file's tests.
 */
export function processScope(prefix: string): { tmp: string; children: ServerProcess[]; dataDir: () => string } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `hxdesk-${prefix}-`));
  const children: ServerProcess[] = [];
  afterAll(() => {
    killAll(children.map((c) => c.child));
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  let dirs = 0;
  return { tmp, children, dataDir: () => fs.mkdtempSync(path.join(tmp, `data${++dirs}-`)) };
}

/** Signs in with JSON: the session cookie (`name=value`), or the refusal's status. */
export const login = (base: string, email: string, password: string): Promise<Answer> => send(base, 'POST', '/login', { email, password });

/** An answer of a real server process, as `send` reads it. */
export interface Answer { status: number; body: any; cookie?: string; retryAfter: string | null }
/**
 * One JSON request to the server process at `base`: with a bearer token, or with a session cookie
 * (and its own Origin, as a browser sends it).
 */
export async function send(base: string, method: string, p: string, body?: unknown, auth: { token?: string; cookie?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  if (auth.cookie) { headers.cookie = auth.cookie; headers.origin = base; }
  const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return {
    status: res.status,
    body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
    cookie: res.headers.get('set-cookie')?.split(';')[0],
    retryAfter: res.headers.get('retry-after'),
  };
}
