import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectSuccess, runCli } from './helpers/cli.js';
import { databaseBefore } from './helpers/migrations.js';
import { bindReadOnly, mountTmpfs, unmount } from './helpers/mounts.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  processScope,
  runServerToExit,
  send,
  serverEnv,
  spawnServer,
  stopServer,
} from './helpers/process.js';
import { signIn } from './helpers/session.js';
import { createMigratedDatabase } from './helpers/postgres.js';
import { itOn, testStore } from './helpers/store.js';

// Decision 042, issue 25: DATA_DIR is 0700; the database, its WAL and shared memory, every backup,
// restore copy and the webhook secret are 0600, whatever the umask — they hold the portal signing
// key (app_secrets) and the webhook key. An older install's 0644 files are tightened at start.
// A data directory the server cannot write stops the start with one line naming it. Checked on
// the real server process and the real `hxdesk` command, started under a permissive umask.

const onPg = testStore() === 'postgres';
const scope = processScope('datadir');
const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts.reverse()) unmount(m);
});

/** Runs `fn` (which spawns processes: they inherit the umask) under `mask`, and puts the test process's own back. */
async function underUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const before = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(before);
  }
}

/** The environment of a server on `dataDir` and this project's store. */
async function storeEnv(dataDir: string): Promise<Record<string, string>> {
  return serverEnv({ DATA_DIR: dataDir, ...(onPg ? { DATABASE_URL: await createMigratedDatabase() } : {}) });
}

/** Starts the server, makes it write (a ticket: the WAL and shared memory exist while it runs), and returns it running. */
async function startAndWrite(env: Record<string, string>) {
  const server = await underUmask(0o022, () => spawnServer(env));
  scope.children.push(server);
  const cookie = await signIn(server.base, ADMIN_EMAIL, ADMIN_PASSWORD);
  const queues = await send(server.base, 'GET', '/queues', undefined, { cookie });
  const created = await send(
    server.base,
    'POST',
    '/tickets',
    { queue_id: queues.body.queues[0].id, subject: 'A secret-bearing write' },
    { cookie },
  );
  expect(created.status).toBe(201);
  return server;
}

describe('file modes', () => {
  it('a new install under umask 022: DATA_DIR 0700, the database, its WAL and shared memory and the webhook secret 0600', async () => {
    const dataDir = path.join(scope.tmp, 'fresh', 'data'); // created by the server
    const server = await startAndWrite(await storeEnv(dataDir));
    expect(mode(dataDir)).toBe('700');
    expect(mode(path.join(dataDir, 'webhook-secret'))).toBe('600');
    if (!onPg) {
      for (const f of ['hxdesk.db', 'hxdesk.db-wal', 'hxdesk.db-shm'])
        expect([f, mode(path.join(dataDir, f))]).toEqual([f, '600']);
    }
    await stopServer(server);
  });

  it('an install an older version left 0644 (0755 directories) is tightened at start, its contents kept', async () => {
    const dataDir = scope.dataDir();
    fs.chmodSync(dataDir, 0o755);
    const secret = path.join(dataDir, 'webhook-secret');
    fs.writeFileSync(secret, 'an-older-webhook-secret-0123456789\n', { mode: 0o644 });
    const backups = path.join(dataDir, 'backups');
    const oldCopy = path.join(backups, 'hxdesk-before-restore-2029-01-01T00-00-00-000Z.sqlite');
    if (!onPg) {
      // A database made before migration 0013 (so the start copies it to backups/ before
      // migrating), with a WAL and shared memory file left beside it, all 0644 as SQLite made them.
      await underUmask(0o022, async () => databaseBefore(dataDir, '0013_', () => {}));
      for (const f of ['hxdesk.db-wal', 'hxdesk.db-shm']) fs.writeFileSync(path.join(dataDir, f), '', { mode: 0o644 });
      fs.mkdirSync(backups, { mode: 0o755 });
      fs.chmodSync(backups, 0o755);
      fs.writeFileSync(oldCopy, 'an older copy', { mode: 0o644 });
    }
    for (const f of fs.readdirSync(dataDir))
      if (fs.statSync(path.join(dataDir, f)).isFile()) fs.chmodSync(path.join(dataDir, f), 0o644);

    const server = await startAndWrite(await storeEnv(dataDir));
    expect(mode(dataDir)).toBe('700');
    expect(mode(secret)).toBe('600');
    expect(fs.readFileSync(secret, 'utf8')).toBe('an-older-webhook-secret-0123456789\n');
    if (!onPg) {
      for (const f of ['hxdesk.db', 'hxdesk.db-wal', 'hxdesk.db-shm'])
        expect([f, mode(path.join(dataDir, f))]).toEqual([f, '600']);
      expect(mode(backups)).toBe('700');
      const copies = fs.readdirSync(backups);
      expect(
        copies.some((n) => /^hxdesk-before-0013_/.test(n)),
        copies.join(', '),
      ).toBe(true);
      for (const n of copies) expect([n, mode(path.join(backups, n))]).toEqual([n, '600']);
      expect(fs.readFileSync(oldCopy, 'utf8')).toBe('an older copy');
    }
    await stopServer(server);
  });

  itOn('sqlite')('hxdesk backup and hxdesk restore write every copy 0600, under umask 000', async () => {
    const dataDir = scope.dataDir();
    const server = await startAndWrite(await storeEnv(dataDir));
    const shelf = path.join(scope.tmp, 'shelf');
    fs.mkdirSync(shelf, { mode: 0o755 });
    fs.chmodSync(shelf, 0o755); // a directory others can read: only the file's own mode protects it
    const target = path.join(shelf, 'hxdesk-backup.sqlite');
    const env = { DATA_DIR: dataDir };
    expectSuccess(await underUmask(0o000, () => runCli(['backup', target], env)));
    expect(mode(target)).toBe('600');
    expectSuccess(await underUmask(0o000, () => runCli(['backup', target, '--force'], env)));
    expect(mode(target)).toBe('600');
    await stopServer(server);

    fs.chmodSync(target, 0o644); // the admin's file, readable: its copy in DATA_DIR must not be
    expectSuccess(await underUmask(0o000, () => runCli(['restore', target], env)));
    expect(mode(dataDir)).toBe('700');
    expect(mode(path.join(dataDir, 'hxdesk.db'))).toBe('600');
    const backups = path.join(dataDir, 'backups');
    expect(mode(backups)).toBe('700');
    const kept = fs.readdirSync(backups).filter((n) => /^hxdesk-before-restore-/.test(n));
    expect(kept).toHaveLength(1);
    expect(mode(path.join(backups, kept[0]))).toBe('600');
  });
});

describe('a data directory shared with other users', () => {
  it('is refused, not closed: one line naming it, exit 1, its mode kept (a DATA_DIR of /tmp must not make /tmp 0700)', async () => {
    const dir = path.join(scope.tmp, 'shared');
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o1777);
    const run = await runServerToExit(await storeEnv(dir));
    expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(1);
    expect(run.stderr).toMatch(/^[^\n]+\n$/);
    expect(run.stderr).toContain(`the data directory (DATA_DIR=${dir}): other users can write to it (mode 1777)`);
    expect(mode(dir)).toBe('777');
    expect(fs.statSync(dir).mode & 0o1000).toBe(0o1000);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('a data directory the server cannot write', () => {
  /** One line on stderr naming the directory, nothing else, a non-zero exit. */
  function expectOneLine(run: { code: number | null; stdout: string; stderr: string }, dir: string) {
    expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^[^\n]+\n$/);
    expect(run.stderr).toContain(`data directory (DATA_DIR=${dir})`);
    expect(run.stderr).toMatch(/read-only/);
    expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }

  it('an empty read-only mount: one line naming it, exit 1', async () => {
    const dir = path.join(scope.tmp, 'ro-empty');
    mountTmpfs(dir, 1, { readOnly: true });
    mounts.push(dir);
    const run = await runServerToExit({ ...(await storeEnv(dir)) });
    expectOneLine(run, dir);
    expect(run.code).toBe(1);
  });

  it('an existing install remounted read-only: one line naming it, exit 1, the install untouched', async () => {
    const source = scope.dataDir();
    const server = await startAndWrite(await storeEnv(source));
    await stopServer(server);
    const before = Object.fromEntries(
      fs.readdirSync(source).map((f) => [f, fs.statSync(path.join(source, f)).mtimeMs]),
    );
    const dir = path.join(scope.tmp, 'ro-install');
    bindReadOnly(source, dir);
    mounts.push(dir);
    const run = await runServerToExit({ ...(await storeEnv(dir)) });
    expectOneLine(run, dir);
    expect(run.code).toBe(1);
    expect(
      Object.fromEntries(fs.readdirSync(source).map((f) => [f, fs.statSync(path.join(source, f)).mtimeMs])),
    ).toEqual(before);
  });

  it('in production too: one JSON line', async () => {
    const dir = path.join(scope.tmp, 'ro-production');
    mountTmpfs(dir, 1, { readOnly: true });
    mounts.push(dir);
    const run = await runServerToExit({
      ...(await storeEnv(dir)),
      NODE_ENV: 'production',
      MAILGATE_TOKEN: 'a-mailgate-token-0123456789',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^[^\n]+\n$/);
    expect(JSON.parse(run.stderr)).toMatchObject({
      level: 'error',
      msg: `Cannot use the data directory (DATA_DIR=${dir}): it is on a read-only file system (EROFS)`,
    });
  });
});
