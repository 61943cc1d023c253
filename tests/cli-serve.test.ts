import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HXDESK_BIN } from './helpers/cli.js';

// `hxdesk serve` starts the server as `npm start` does (compiled, on a fresh DATA_DIR: migrated,
// an admin seeded with a printed password), and a supervisor stopping the command (SIGTERM to
// the process it started) stops the server cleanly.

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-serve-'));
let child: ChildProcess | undefined;
afterAll(() => {
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('hxdesk serve', () => {
  it('builds and starts the server, which serves; SIGTERM to the command shuts the server down with status 0', async () => {
    child = spawn(process.execPath, [HXDESK_BIN, 'serve'], {
      cwd: os.tmpdir(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'], // any working directory: the command finds its code
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
    let output = '';
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child!.on('exit', (code, signal) => r({ code, signal })),
    );
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no server; output:\n${output}`)), 60_000);
      const onData = (d: Buffer) => {
        output += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
      void exit.then((e) => {
        clearTimeout(timer);
        reject(new Error(`exited ${JSON.stringify(e)}; output:\n${output}`));
      });
    });
    const password = /sign in as admin@localhost with password (\S+)/.exec(output)?.[1];
    expect(password).toBeTruthy();
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true });
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@localhost', password }),
    });
    expect(login.status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, 'hxdesk.db'))).toBe(true);

    process.kill(child.pid!, 'SIGTERM'); // the command only, as a supervisor does
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(output).toMatch(/SIGTERM: shutting down/);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow(); // the server is gone too
  }, 90_000);
});
