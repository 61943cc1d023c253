import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseBefore } from './helpers/migrations.js';
import { killAll, runServerToExit, serverEnv, spawnServer, type ServerProcess } from './helpers/process.js';

// SPEC C6: before a migration is applied at start, the SQLite file is copied to
// DATA_DIR/backups/<name>-before-<tag>-<timestamp>.sqlite, and the last 3 copies are kept.
// Checked on the real server process started on databases made at older migrations.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-migbak-'));
const servers: ServerProcess[] = [];
afterAll(() => {
  killAll(servers.map((s) => s.child));
  fs.rmSync(tmp, { recursive: true, force: true });
});

const journal = (
  JSON.parse(
    fs.readFileSync(path.resolve(import.meta.dirname, '../src/db/sqlite/migrations/meta/_journal.json'), 'utf8'),
  ) as {
    entries: { tag: string }[];
  }
).entries;
const latest = journal.length;
/** How many migrations a database made before 0013 has (0000 … 0012). */
const before0013 = journal.findIndex((e) => e.tag.startsWith('0013_'));

/** Starts the server on `dir`, waits until it listens, stops it. */
async function startAndStop(dir: string): Promise<void> {
  const s = await spawnServer(serverEnv(dir));
  servers.push(s);
  const health = await fetch(`${s.base}/healthz`);
  expect(health.status).toBe(200);
  process.kill(-s.child.pid!, 'SIGTERM');
  const exit = await s.exit;
  expect(exit, `the server's exit after SIGTERM; it wrote:\n${s.output()}`).toEqual({ code: 0, signal: null });
}

const backupsOf = (dir: string) =>
  fs.existsSync(path.join(dir, 'backups')) ? fs.readdirSync(path.join(dir, 'backups')).sort() : [];
const migrationsIn = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

/** Replaces dir's database by one made before migration `before`, holding one ticket named `subject`. */
function oldInstall(dir: string, before: string, subject: string): string {
  for (const f of ['hxdesk.db', 'hxdesk.db-wal', 'hxdesk.db-shm']) fs.rmSync(path.join(dir, f), { force: true });
  const now = new Date().toISOString();
  return databaseBefore(dir, before, (raw) => {
    raw
      .prepare(
        "INSERT INTO users (email, name, role, created_at, updated_at) VALUES ('admin@example.com', 'Admin', 'admin', ?, ?)",
      )
      .run(now, now);
    raw.prepare("INSERT INTO queues (name, created_at, updated_at) VALUES ('General', ?, ?)").run(now, now);
    raw
      .prepare("INSERT INTO tickets (queue_id, subject, status, created_at, updated_at) VALUES (1, ?, 'open', ?, ?)")
      .run(subject, now, now);
  });
}

describe('a copy of the database before migrations run at start', () => {
  it('copies an older database once, before migrating it; nothing when nothing is pending; the last 3 copies are kept', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'upgrade-'));
    const file = oldInstall(dir, '0013_', 'From before 0013');
    expect(migrationsIn(file)).toBe(before0013);

    await startAndStop(dir);
    const first = backupsOf(dir);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(/^hxdesk-before-0013_watchers-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.sqlite$/);
    // The copy is the database as it was: sound, un-migrated, with its data, one self-contained file.
    const copyFile = path.join(dir, 'backups', first[0]);
    const copy = new Database(copyFile, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    expect((copy.prepare('SELECT subject FROM tickets').get() as { subject: string }).subject).toBe('From before 0013');
    expect(copy.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'ticket_watchers'").get()).toBeUndefined();
    copy.close();
    expect(migrationsIn(copyFile)).toBe(before0013);
    expect(migrationsIn(file)).toBe(latest); // and the live one was migrated

    // Nothing pending at the next start: no new copy.
    await startAndStop(dir);
    expect(backupsOf(dir)).toEqual(first);

    // Three more upgrades from older installs: four copies made, the newest three kept.
    for (const before of ['0012_', '0011_', '0010_']) {
      oldInstall(dir, before, `From before ${before}`);
      await startAndStop(dir);
    }
    const kept = backupsOf(dir);
    expect(kept).toHaveLength(3);
    expect(kept.map((n) => n.replace(/-\d{4}-\d\d-.*$/, ''))).toEqual([
      'hxdesk-before-0010_transactions_message_id_partial',
      'hxdesk-before-0011_users_role_idx',
      'hxdesk-before-0012_unique_names_nocase',
    ]);
    expect(kept).not.toContain(first[0]); // the oldest went
    // Other files in backups/ (a restore's copy, the admin's own) are never pruned.
    fs.writeFileSync(path.join(dir, 'backups', 'hxdesk-before-restore-2020-01-01T00-00-00-000Z.sqlite'), '');
    fs.writeFileSync(path.join(dir, 'backups', 'my-own.sqlite'), '');
    oldInstall(dir, '0009_', 'From before 0009');
    await startAndStop(dir);
    const after = backupsOf(dir);
    expect(after.filter((n) => /-before-\d{4}_/.test(n))).toHaveLength(3);
    expect(after).toContain('hxdesk-before-restore-2020-01-01T00-00-00-000Z.sqlite');
    expect(after).toContain('my-own.sqlite');
    expect(after.filter((n) => n.startsWith('.'))).toEqual([]);
  }, 120_000);

  it('makes no copy for a fresh install', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'fresh-'));
    await startAndStop(dir);
    expect(migrationsIn(path.join(dir, 'hxdesk.db'))).toBe(latest);
    expect(backupsOf(dir)).toEqual([]);
    await startAndStop(dir);
    expect(backupsOf(dir)).toEqual([]);
  }, 60_000);

  it('does not migrate when the copy cannot be made, and says why', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'nocopy-'));
    const file = oldInstall(dir, '0013_', 'Kept as it was');
    fs.writeFileSync(path.join(dir, 'backups'), 'a file where the backups directory should be');
    const run = await runServerToExit(serverEnv(dir));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /Cannot open the database .*: cannot copy the database to .*backups before migrating it \(.*\); nothing was migrated/,
    );
    expect(migrationsIn(file)).toBe(before0013);
  }, 60_000);
});
