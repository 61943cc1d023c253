import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Starts hxdesk exactly as the README says (`npm start`), on a fresh data directory, and signs
// in with the password printed on first start.

const root = path.resolve(import.meta.dirname, '..');
let child: ChildProcess | undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-start-'));

afterAll(() => {
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function waitFor(
  proc: ChildProcess,
  pattern: RegExp,
  timeoutMs: number,
): Promise<{ match: RegExpMatchArray; output: string }> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; output:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve({ match, output });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}; output:\n${output}`));
    });
  });
}

describe('npm start on a fresh data directory', () => {
  it('migrates, seeds an admin with a printed password, serves, and lets that admin sign in', async () => {
    child = spawn('npm', ['start'], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        NODE_ENV: 'development',
        ADMIN_PASSWORD: '',
        ADMIN_EMAIL: '',
      },
    });
    const { match, output } = await waitFor(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
    const base = match[1];
    const password = /sign in as admin@localhost with password (\S+)/.exec(output)?.[1];
    expect(password).toBeTruthy();
    expect(fs.existsSync(path.join(dataDir, 'hxdesk.db'))).toBe(true);

    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true });
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@localhost', password }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const me = await fetch(`${base}/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'admin@localhost', role: 'admin' });
    const queues = (await (await fetch(`${base}/queues`, { headers: { cookie } })).json()) as {
      queues: { name: string }[];
    };
    expect(queues.queues.map((q: { name: string }) => q.name)).toEqual(['General']);
  }, 60_000);
});
