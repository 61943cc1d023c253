import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess, runCli } from './helpers/cli.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, login, processScope, send, serverEnv, stopServer } from './helpers/process.js';
import { tokenFor } from './helpers/session.js';

// `hxdesk backup | restore | reset-password` (SPEC C6, decision 024), each run as the real
// command (bin/hxdesk.js) in its own process against a real server process on the same
// DATA_DIR, as an administrator runs them on the server's machine.

const { tmp, dataDir, serve } = processScope('cli');
const adminToken = (base: string) => tokenFor(base, ADMIN_EMAIL, ADMIN_PASSWORD, 'cli test');
async function createTicket(base: string, token: string, subject: string, description = 'text'): Promise<number> {
  const res = await send(base, 'POST', '/tickets', { queue_id: 1, subject, description }, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.ticket.id;
}

describe('hxdesk --help and a wrong command line', () => {
  it('prints the usage naming every command, and exits 2 with one line for a wrong command line', async () => {
    const dir = dataDir();
    // Each line is its own process, none writes anything: they run side by side.
    const cli = (args: string[], env: Record<string, string> = serverEnv(dir)) => runCli(args, env);
    const [helps, wrong, noDb, badSetting] = await Promise.all([
      Promise.all([['--help'], ['help'], ['-h']].map((args) => cli(args))),
      Promise.all(
        [
          [[], /no command given.*--help/],
          [['frobnicate'], /unknown command "frobnicate"/],
          [['backup'], /backup: missing <file>/],
          [['backup', 'a', 'b'], /backup: one <file> to write only/],
          [['backup', '--frob', 'x'], /backup: Unknown option '--frob'/],
          [['restore'], /restore: missing <file>/],
          [['reset-password'], /reset-password: missing <email>/],
          [['serve', '--port', '80'], /serve takes no arguments/],
        ].map(async ([args, message]) => [await cli(args as string[]), message as RegExp] as const),
      ),
      // No database under DATA_DIR: said so, and none is created.
      Promise.all([
        cli(['backup', path.join(dir, 'copy.db')]).then(
          (run) => [run, /no database at .*hxdesk\.db \(DATA_DIR=/] as const,
        ),
        cli(['reset-password', ADMIN_EMAIL]).then((run) => [run, /no database at/] as const),
      ]),
      // A bad setting is named on one line, as the server names it.
      cli(['backup', 'x.db'], { ...serverEnv(dir), SESSION_DAYS: 'many' }),
    ]);
    for (const run of helps) {
      expectSuccess(run);
      for (const cmd of [
        'serve',
        'backup <file>',
        'restore <file>',
        'reset-password <email>',
        '--password-stdin',
        '--force',
      ])
        expect(run.stdout).toContain(cmd);
      expect(run.stderr).toBe('');
    }
    for (const [run, message] of wrong) expectFailure(run, 2, message);
    for (const [run, message] of noDb) expectFailure(run, 1, message);
    expect(fs.readdirSync(dir)).toEqual([]);
    expectFailure(badSetting, 1, /Invalid configuration: SESSION_DAYS/);
  }, 60_000);
});

describe('hxdesk backup while the server serves and takes writes', () => {
  it('writes a consistent copy that passes integrity_check and serves every ticket created before the backup', async () => {
    const dir = dataDir();
    const server = await serve(dir);
    const token = await adminToken(server.base);
    // Some bulk, so the copy has pages to copy while tickets keep coming.
    const big = 'x'.repeat(60_000);
    const before: number[] = [];
    for (let i = 0; i < 40; i++) before.push(await createTicket(server.base, token, `Before backup ${i}`, big));

    // A writer creating tickets, one after another, for as long as the backup runs.
    let writing = true;
    const during: number[] = [];
    const writer = (async () => {
      while (writing) during.push(await createTicket(server.base, token, `During backup ${during.length}`));
    })();
    await new Promise((r) => setTimeout(r, 100)); // the writer is under way
    const target = path.join(tmp, 'live-backup.sqlite');
    const started = during.length;
    const run = await runCli(['backup', target], serverEnv(dir));
    const ended = during.length;
    writing = false;
    await writer;
    expectSuccess(run);
    expect(run.stdout).toMatch(
      /^Backed up .*hxdesk\.db to .*live-backup\.sqlite \(\d+(\.\d)? [KM]iB\); restore it with: hxdesk restore /,
    );
    expect(ended - started, 'tickets created while the backup ran').toBeGreaterThan(0);
    expect(fs.readdirSync(tmp).filter((f) => f.includes('partial'))).toEqual([]);
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith('live-backup'))).toEqual(['live-backup.sqlite']); // one self-contained file

    // The copy: sound, and a snapshot of one moment: tickets 1..k with no gap, k >= every ticket made before.
    const copy = new Database(target, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    const ids = (copy.prepare('SELECT id FROM tickets ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    copy.close();
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    expect(ids.length).toBeGreaterThanOrEqual(before.length + started);
    expect(ids.length).toBeLessThan(before.length + during.length); // not what came after it

    // The live server kept serving and lost nothing.
    const all = await send(server.base, 'GET', '/tickets?limit=1', undefined, { token });
    expect(all.body.total).toBe(before.length + during.length);

    // A server started on the copy serves the tickets made before the backup.
    const restoredDir = dataDir();
    fs.copyFileSync(target, path.join(restoredDir, 'hxdesk.db'));
    const second = await serve(restoredDir);
    const token2 = await adminToken(second.base); // the same admin and password: it is the same database
    for (const id of [before[0], before.at(-1)!]) {
      const t = await send(second.base, 'GET', `/tickets/${id}`, undefined, { token: token2 });
      expect(t.status).toBe(200);
      expect(t.body.subject).toBe(`Before backup ${before.indexOf(id)}`);
    }
    expect((await send(second.base, 'GET', '/tickets?limit=1', undefined, { token: token2 })).body.total).toBe(
      ids.length,
    );
    expect((await send(second.base, 'GET', '/tickets?q=During&limit=1', undefined, { token: token2 })).body.total).toBe(
      ids.length - before.length,
    );

    // An existing file is kept unless --force.
    const size = fs.statSync(target).size;
    expectFailure(await runCli(['backup', target], serverEnv(dir)), 1, /already exists; .*--force/);
    expect(fs.statSync(target).size).toBe(size);
    expectSuccess(await runCli(['backup', '--force', target], serverEnv(dir)));
    const forced = new Database(target, { readonly: true });
    expect((forced.prepare('SELECT count(*) AS n FROM tickets').get() as { n: number }).n).toBe(
      before.length + during.length,
    );
    forced.close();
    expectFailure(
      await runCli(['backup', path.join(tmp, 'no-such-dir', 'x.db')], serverEnv(dir)),
      1,
      /the directory .*no-such-dir does not exist/,
    );
    expectFailure(
      await runCli(['backup', path.join(dir, 'hxdesk.db'), '--force'], serverEnv(dir)),
      1,
      /is the live database itself/,
    );
    await stopServer(second);
    await stopServer(server);
  }, 120_000);
});

describe('hxdesk restore', () => {
  it('refuses while the server runs, then puts a backup back, keeps the database it replaced, and the server serves the restored data', async () => {
    const dir = dataDir();
    let server = await serve(dir);
    let token = await adminToken(server.base);
    const kept = await createTicket(server.base, token, 'Made before the backup');
    const backupFile = path.join(tmp, 'round-trip.sqlite');
    expectSuccess(await runCli(['backup', backupFile], serverEnv(dir)));
    const lost = await createTicket(server.base, token, 'Made after the backup');

    // While the server has the store open: refused, and nothing changed.
    expectFailure(
      await runCli(['restore', backupFile], serverEnv(dir)),
      1,
      /is in use \(a running hxdesk server\?\); stop the server/,
    );
    expect((await send(server.base, 'GET', `/tickets/${lost}`, undefined, { token })).status).toBe(200);
    expect((await send(server.base, 'GET', '/healthz')).status).toBe(200);
    expect(fs.existsSync(path.join(dir, 'backups'))).toBe(false);
    await stopServer(server);

    const run = await runCli(['restore', backupFile], serverEnv(dir));
    expectSuccess(run);
    const previous = /kept as (\S+\.sqlite)\./.exec(run.stdout)?.[1];
    expect(previous, run.stdout).toMatch(
      new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/backups/hxdesk-before-restore-[\\dTZ-]+\\.sqlite$`),
    );
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('hxdesk.db') || f.startsWith('.'))).toEqual(['hxdesk.db']); // no -wal/-shm, no leftovers

    server = await serve(dir);
    token = await adminToken(server.base);
    expect((await send(server.base, 'GET', `/tickets/${kept}`, undefined, { token })).body.subject).toBe(
      'Made before the backup',
    );
    expect((await send(server.base, 'GET', `/tickets/${lost}`, undefined, { token })).status).toBe(404);
    // The database it replaced is whole: it has the ticket made after the backup.
    const old = new Database(previous!, { readonly: true });
    expect(old.pragma('integrity_check', { simple: true })).toBe('ok');
    expect((old.prepare('SELECT subject FROM tickets WHERE id = ?').get(lost) as { subject: string }).subject).toBe(
      'Made after the backup',
    );
    old.close();
    await stopServer(server);

    // Restoring that copy brings the later ticket back (a round trip both ways).
    expectSuccess(await runCli(['restore', previous!], serverEnv(dir)));
    server = await serve(dir);
    token = await adminToken(server.base);
    expect((await send(server.base, 'GET', `/tickets/${lost}`, undefined, { token })).body.subject).toBe(
      'Made after the backup',
    );
    expect(fs.readdirSync(path.join(dir, 'backups')).filter((f) => f.includes('-before-restore-'))).toHaveLength(2);
    await stopServer(server);
  }, 120_000);

  it('refuses a file that is not an hxdesk database, or is damaged, and leaves the store alone', async () => {
    const dir = dataDir();
    const server = await serve(dir);
    await stopServer(server);
    // A server that takes over 3 s to stop exits without closing its store (src/server.ts): its
    // last commits can still be in the WAL, which the next connection (the backups below) moves
    // into the file. Moved now, so the bytes compared are the whole store's.
    const live = new Database(path.join(dir, 'hxdesk.db'));
    live.pragma('wal_checkpoint(TRUNCATE)');
    live.close();
    const liveBefore = fs.readFileSync(path.join(dir, 'hxdesk.db'));

    const text = path.join(tmp, 'notes.txt');
    fs.writeFileSync(text, 'not a database at all, just some words\n'.repeat(200));
    expectFailure(
      await runCli(['restore', text], serverEnv(dir)),
      1,
      /notes\.txt cannot be opened as an SQLite database/,
    );

    const other = path.join(tmp, 'other-app.sqlite');
    const o = new Database(other);
    o.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    o.close();
    expectFailure(
      await runCli(['restore', other], serverEnv(dir)),
      1,
      /other-app\.sqlite is an SQLite database but not hxdesk's \(no table __drizzle_migrations, users/,
    );

    // A backup with a damaged page in the middle.
    const damaged = path.join(tmp, 'damaged.sqlite');
    expectSuccess(await runCli(['backup', damaged], serverEnv(dir)));
    const bytes = fs.readFileSync(damaged);
    const pageSize = bytes.readUInt16BE(16);
    const pages = bytes.length / pageSize;
    for (let p = 2; p < pages - 1; p++) bytes.fill(0xa5, p * pageSize + 8, p * pageSize + 40); // scribbles over page headers
    fs.writeFileSync(damaged, bytes);
    expectFailure(
      await runCli(['restore', damaged], serverEnv(dir)),
      1,
      /damaged\.sqlite (fails SQLite's integrity check|cannot be opened)/,
    );

    expectFailure(
      await runCli(['restore', path.join(tmp, 'missing.sqlite')], serverEnv(dir)),
      1,
      /missing\.sqlite does not exist/,
    );

    // A database from a newer hxdesk (a migration this version does not know).
    const newer = path.join(tmp, 'newer.sqlite');
    expectSuccess(await runCli(['backup', newer], serverEnv(dir)));
    const n = new Database(newer);
    n.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(
      'f'.repeat(64),
      Date.now() + 365 * 86_400_000,
    );
    n.close();
    expectFailure(await runCli(['restore', newer], serverEnv(dir)), 1, /made by a newer hxdesk/);

    expect(fs.readFileSync(path.join(dir, 'hxdesk.db')).equals(liveBefore)).toBe(true);
    expect(fs.existsSync(path.join(dir, 'backups'))).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  }, 120_000);
});

describe('hxdesk reset-password', () => {
  it('sets a new password (read from stdin, or generated and printed), signs the user out everywhere; an unknown address is an error', async () => {
    const dir = dataDir();
    const server = await serve(dir);
    const first = await login(server.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    const second = await login(server.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    for (const s of [first, second])
      expect((await send(server.base, 'GET', '/me', undefined, { cookie: s.cookie })).status).toBe(200);

    const chosen = 'a brand new password 42';
    const run = await runCli(
      ['reset-password', 'Admin@Example.com', '--password-stdin'],
      serverEnv(dir),
      `${chosen}\n`,
    );
    expectSuccess(run);
    expect(run.stdout).toBe(
      'Password changed for admin@example.com.\nSigned out of 2 sessions.\nThe account was not locked out of signing in.\n',
    );
    expect(run.stdout).not.toContain(chosen);
    for (const s of [first, second])
      expect((await send(server.base, 'GET', '/me', undefined, { cookie: s.cookie })).status).toBe(401);
    expect((await login(server.base, ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(401);
    const fresh = await login(server.base, ADMIN_EMAIL, chosen);
    expect(fresh.status).toBe(200);
    expect((await send(server.base, 'GET', '/me', undefined, { cookie: fresh.cookie })).body).toMatchObject({
      email: ADMIN_EMAIL,
      role: 'admin',
    });

    // No password given: one is generated and printed once.
    const gen = await runCli(['reset-password', ADMIN_EMAIL], serverEnv(dir));
    expectSuccess(gen);
    const generated = /^New password for admin@example\.com: (\S+)\n/.exec(gen.stdout)?.[1];
    expect(generated, gen.stdout).toBeTruthy();
    expect(generated!.length).toBeGreaterThanOrEqual(12);
    expect((await send(server.base, 'GET', '/me', undefined, { cookie: fresh.cookie })).status).toBe(401);
    expect((await login(server.base, ADMIN_EMAIL, chosen)).status).toBe(401);
    expect((await login(server.base, ADMIN_EMAIL, generated!)).status).toBe(200);

    expectFailure(
      await runCli(['reset-password', 'nobody@example.com'], serverEnv(dir)),
      1,
      /no user with the e-mail address nobody@example\.com/,
    );
    expectFailure(
      await runCli(['reset-password', ADMIN_EMAIL, '--password-stdin'], serverEnv(dir), 'too short\n'),
      1,
      /at least 12 characters/,
    );
    expectFailure(
      await runCli(['reset-password', ADMIN_EMAIL, '--password-stdin'], serverEnv(dir), 'line one is long\nline two\n'),
      1,
      /several lines/,
    );
    expect((await login(server.base, ADMIN_EMAIL, generated!)).status).toBe(200); // the refused runs changed nothing

    // Locked out by too many failures (LOGIN_MAX_FAILURES, 10): the brake is in the database, so
    // the command lifts it for the running server (decision 028).
    for (let i = 0; i < 10; i++) expect((await login(server.base, ADMIN_EMAIL, `guess ${i}`)).status).toBe(401);
    expect((await login(server.base, ADMIN_EMAIL, generated!)).status).toBe(429);
    const unlock = await runCli(['reset-password', ADMIN_EMAIL, '--password-stdin'], serverEnv(dir), `${chosen}\n`);
    expectSuccess(unlock);
    expect(unlock.stdout).toMatch(
      /\nLifted the account's sign-in lockout \(11 attempts in the current window; LOGIN_MAX_FAILURES=10\)\.\n$/,
    );
    expect((await login(server.base, ADMIN_EMAIL, chosen)).status).toBe(200);
    await stopServer(server);
  }, 120_000);
});
