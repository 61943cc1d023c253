import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, spawnServer, type ServerProcess } from './helpers/process.js';

// SPEC C1: an open mail gateway never goes unnoticed. The server is started as `npm run dev`
// starts it (the compiled server in its own process) and what it prints is read.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mailgate-start-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const TOKEN = 'mailgate-start-secret-0123456789';

describe('the server at start (SPEC C1)', () => {
  const children: ServerProcess[] = [];
  afterAll(() => killAll(children.map((c) => c.child)));
  /** Starts the server as a process and returns what it printed up to serving its first request. */
  async function startOutput(env: Record<string, string>) {
    const data = fs.mkdtempSync(path.join(dir, 'data-'));
    const p = await spawnServer({ DATA_DIR: data, ADMIN_PASSWORD: 'admin-password-123', MAILGATE_TOKEN: '', ...env });
    children.push(p);
    expect((await fetch(`${p.base}/healthz`)).status).toBe(200);
    // stdout and stderr are two pipes: stop it and read both to their end.
    const closed = new Promise((r) => p.child.once('close', r));
    process.kill(-p.child.pid!, 'SIGTERM');
    await closed;
    return p.output();
  }

  it('in development without MAILGATE_TOKEN says that /mailgate accepts unauthenticated mail; with a token it does not', async () => {
    expect(await startOutput({})).toContain(
      'WARN  POST /mailgate accepts unauthenticated mail: MAILGATE_TOKEN is not set',
    );
    const withToken = await startOutput({ MAILGATE_TOKEN: TOKEN });
    expect(withToken).not.toContain('/mailgate');
  });

  it('in production without MAILGATE_TOKEN says that /mailgate is off', async () => {
    const out = await startOutput({ NODE_ENV: 'production' });
    const line = out.split('\n').find((l) => l.includes('/mailgate'));
    expect(JSON.parse(line!)).toMatchObject({
      level: 'warn',
      msg: 'POST /mailgate is off (503) until MAILGATE_TOKEN is set',
    });
  });
});
