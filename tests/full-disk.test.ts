import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, type Db, openStore, sqliteOf } from '../src/db/store.js';
import { testClock, useClock } from '../src/domain/clock.js';
import { seedIfEmpty } from '../src/domain/seed.js';
import { loadEnv } from '../src/env.js';
import { startWorkers, type Workers } from '../src/workers.js';
import { rawCount, rawGet, rawRun } from './helpers/db.js';
import { fillDisk, mountTmpfs, unmount } from './helpers/mounts.js';
import { type PgCluster, startPostgres } from './helpers/postgres.js';
import { type ApiResponse, type LogEntry, startServer, type TestServer } from './helpers/server.js';
import { onlyOn, testStore } from './helpers/store.js';
import { waitUntil } from './helpers/wait.js';

// Decision 042, issue 25: a full disk is an outage the server says out loud. The store is put on
// a small tmpfs mounted here — SQLite: DATA_DIR on it; PostgreSQL: the test database in a
// tablespace on it (WAL stays on the cluster's own disk, so the server itself keeps running) —
// and the tmpfs is filled with a file. Writes must answer 503 storage_unavailable with
// Retry-After and change nothing, /healthz 503 with the reason, the outbox worker must back off
// and say so once per cause per 10 s of a clock the test holds, and all of it must recover, with
// no restart, once the file is deleted.

const onPg = testStore() === 'postgres';
// The tests change the cluster itself (a tablespace on a small disk, ALTER SYSTEM): a cluster of
// this file's own, not the worker's that the next files use.
let ownCluster: Promise<PgCluster> | undefined;
const cluster = () => (ownCluster ??= startPostgres());
afterAll(async () => {
  await (await ownCluster?.catch(() => undefined))?.stop();
});
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-fulldisk-'));
fs.chmodSync(tmp, 0o755); // the postgres user walks through it to its tablespace
const disk = path.join(tmp, 'disk');

/** The servers' clock (and so their workers' log window): moved by the test only. */
const clock = testClock();

/** A webhook receiver that holds its first request until released, then answers everything 200. */
function heldReceiver() {
  const hits: string[] = [];
  let releaseFirst: () => void = () => {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push(String(req.headers['x-hxdesk-delivery']));
      const answer = () => {
        if (!res.headersSent) {
          res.writeHead(200);
          res.end('ok');
        }
      };
      if (hits.length === 1) releaseFirst = answer;
      else answer();
    });
  });
  return {
    hits,
    release: () => releaseFirst(),
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)),
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const MAIL = (subject: string) =>
  Buffer.from(
    `From: Cleo <cleo@customer.example>\r\nTo: support@example.com\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@customer.example>\r\nDate: Mon, 1 Jan 2029 10:00:00 +0000\r\n\r\nHello\r\n`,
  );

describe('a full disk under the store', () => {
  let s: TestServer;
  let pgAdmin: pg.Client | undefined;
  let dbName = '';
  const receiver = heldReceiver();
  let queueId = 0;
  let ticketA = 0;
  let filler = '';
  const lines = (re: RegExp): LogEntry[] => s.logged.filter((l) => re.test(l.msg));
  /** Writes that went through after the disk was filled (only ever on PostgreSQL). */
  let accepted = 0;
  let firstRefusal = 0;
  /** Sends `write` until it is refused with 503 (every other answer a success), and returns the refusal. */
  async function untilRefused(write: () => Promise<ApiResponse>): Promise<ApiResponse> {
    for (let i = 0; i < 100; i++) {
      const res = await write();
      if (res.status === 503) {
        firstRefusal ||= Date.now();
        return res;
      }
      expect(res.status, res.text).toBeLessThan(300);
      accepted++;
    }
    throw new Error('never refused');
  }

  beforeAll(async () => {
    mountTmpfs(disk, onPg ? 40 : 16);
    const env: Record<string, string> = {
      WEBHOOK_SECRET: 'webhook-secret-for-full-disk-tests',
      OUTBOX_POLL_MS: '50',
      OUTBOX_RETRY_BASE_MS: '50',
    };
    if (onPg) {
      const space = path.join(disk, 'pg');
      fs.mkdirSync(space);
      const [uid, gid] = fs
        .readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .find((l) => l.startsWith('postgres:'))!
        .split(':')
        .slice(2, 4)
        .map(Number);
      fs.chownSync(space, uid, gid);
      const url = await (await cluster()).createMigratedDatabase();
      dbName = new URL(url).pathname.slice(1);
      pgAdmin = new pg.Client({ connectionString: (await cluster()).url() });
      pgAdmin.on('error', () => {});
      await pgAdmin.connect();
      await pgAdmin.query(`CREATE TABLESPACE hx_full_disk LOCATION '${space}'`);
      await pgAdmin.query(`ALTER DATABASE ${dbName} SET TABLESPACE hx_full_disk`);
      env.DATABASE_URL = url;
    } else {
      env.DATA_DIR = path.join(disk, 'data');
    }
    s = await startServer(env, { clock });
    queueId = (await s.api('GET', '/queues')).body.queues[0].id;
  });

  afterAll(async () => {
    try {
      if (filler) fs.rmSync(filler, { force: true });
      receiver.release();
      await s?.close();
      await receiver.close();
      if (pgAdmin) {
        await pgAdmin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
        await pgAdmin.query('DROP TABLESPACE IF EXISTS hx_full_disk').catch(() => {});
        await pgAdmin.end().catch(() => {});
      }
    } finally {
      unmount(disk);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('before: a ticket, and its webhook delivery in flight (the receiver holds it)', async () => {
    const hook = await receiver.listen();
    expect(
      (
        await s.api('POST', '/scrips', {
          body: { key: 'hook_full_disk', condition: 'on_create', action: 'notify_webhook', config: { url: hook } },
        })
      ).status,
    ).toBe(201);
    const created = await s.api('POST', '/tickets', {
      body: { queue_id: queueId, subject: 'Before the disk filled', description: 'first' },
    });
    expect(created.status).toBe(201);
    ticketA = created.body.ticket.id;
    await waitUntil(
      'the delivery in flight',
      () => receiver.hits.length,
      (n) => n === 1,
    );
    if (!onPg)
      await waitUntil(
        'the search index caught up',
        () => rawCount(s, 'search_pending'),
        (n) => n === 0,
      );
  });

  it('writes that cannot commit answer 503 storage_unavailable with Retry-After and change nothing; reads go on', async () => {
    await rawRun(s, 'UPDATE api_tokens SET last_used_at = ?', ['2000-01-01T00:00:00.000Z']);
    if (!onPg) {
      // The WAL emptied first, so that the next commit must grow it: without this, commits reuse
      // the room an earlier, checkpointed WAL left in its file and go on working for a while.
      // Synchronous with the fill: nothing of the server (in this process) writes in between.
      const [{ busy }] = sqliteOf(s.db).pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      expect(busy).toBe(0);
    }
    filler = fillDisk(disk);
    // Reads go on, also with a token whose last use (a hint, written at most once a minute) is due.
    expect((await s.api('GET', `/tickets/${ticketA}`)).status).toBe(200);
    // On PostgreSQL the rows that still fit in the pages the tables have go in first; a write is
    // refused once it needs a new page. On SQLite the very first is (its commit must grow the WAL).
    const create = await untilRefused(() =>
      s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'While the disk is full' } }),
    );
    expect(create.body.error.code).toBe('storage_unavailable');
    expect(create.body.error.message).toMatch(/disk holding the database is full/);
    expect(create.headers.get('retry-after')).toBe('30');
    let flip = 0;
    const update = await untilRefused(() =>
      s.api('PATCH', `/tickets/${ticketA}`, { body: { status: ++flip % 2 ? 'open' : 'new' } }),
    );
    expect(update.body.error.code).toBe('storage_unavailable');
    const reply = await untilRefused(() =>
      s.api('POST', `/tickets/${ticketA}/comment`, { body: { body: 'A reply that cannot be kept', internal: false } }),
    );
    expect(reply.headers.get('retry-after')).toBe('30');
    let n = 0;
    const mail = await untilRefused(() =>
      s.api('POST', '/mailgate', {
        body: MAIL(`Mail while the disk is full ${++n}`).toString(),
        headers: { 'content-type': 'message/rfc822' },
        token: null,
      }),
    );
    expect(mail.body.error.code).toBe('storage_unavailable');
    if (!onPg) expect(accepted).toBe(0);

    // From then on every change is refused, and leaves everything as it was.
    const tickets = await rawCount(s, 'tickets');
    const intake = await rawCount(s, 'mail_intake');
    const transactions = await rawCount(s, 'transactions');
    const status = (await s.api('GET', `/tickets/${ticketA}`)).body.status;
    for (const write of [
      () => s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'Still full' } }),
      () => s.api('PATCH', `/tickets/${ticketA}`, { body: { status: status === 'open' ? 'new' : 'open' } }),
      () => s.api('POST', `/tickets/${ticketA}/comment`, { body: { body: 'Still cannot be kept', internal: true } }),
      () =>
        s.api('POST', '/mailgate', {
          body: MAIL('Mail while the disk is still full').toString(),
          headers: { 'content-type': 'message/rfc822' },
          token: null,
        }),
    ]) {
      const res = await write();
      expect(res.status, res.text).toBe(503);
      expect(res.body.error.code).toBe('storage_unavailable');
      expect(res.headers.get('retry-after')).toBe('30');
    }

    // Nothing changed, and the store still reads.
    expect(await rawCount(s, 'tickets')).toBe(tickets);
    expect(await rawCount(s, 'transactions')).toBe(transactions);
    expect(await rawCount(s, 'mail_intake')).toBe(intake);
    const a = await s.api('GET', `/tickets/${ticketA}`);
    expect(a.status).toBe(200);
    expect(a.body.status).toBe(status);
    expect((await s.api('GET', '/tickets?limit=5')).status).toBe(200);

    // Said as an outage, once per cause every 10 s however many requests were refused, never as
    // an unhandled error with a stack.
    expect(lines(/unhandled error/)).toEqual([]);
    const refusedFor = Date.now() - firstRefusal;
    expect(lines(/^writes refused: the disk holding the database is full/).length).toBeLessThanOrEqual(
      1 + Math.floor(refusedFor / 10_000),
    );
  });

  it('/healthz answers 503 with the reason while writes fail', async () => {
    const health = await s.api('GET', '/healthz', { token: null });
    expect(health.status).toBe(503);
    expect(health.body.error).toMatchObject({ code: 'storage_unavailable', cause: 'disk_full' });
    expect(health.body.error.message).toMatch(/^Not ready: writes fail, the disk holding the database is full/);
    expect(health.headers.get('retry-after')).toBe('30');
  });

  it('the outbox worker backs off and says so once per cause per 10 s, however often it tries', async () => {
    const said = () => lines(/^outbox: delivery paused, the disk holding the database is full/);
    expect(said()).toHaveLength(0);
    // The held delivery is answered: the worker cannot record it as sent, keeps that for later and backs off.
    receiver.release();
    await waitUntil(
      'the first line',
      () => said().length,
      (n) => n === 1,
    );
    expect(said()[0]).toMatchObject({ level: 'error', fields: { cause: 'disk_full' } });
    // SQLite: recording the sent delivery was what failed, and is owed. (PostgreSQL: that update
    // may still fit a page; claiming the deliveries queued by the tickets that went in is refused.)
    if (!onPg) expect(said()[0].fields.owed).toBe(1);
    // A real wait for the worker's own turns (OUTBOX_POLL_MS=50: it tries again after 50, 100, 200, 400, 500, 500… ms).
    await new Promise((r) => setTimeout(r, 1500));
    expect(said()).toHaveLength(1);
    expect(lines(/^outbox: worker error/)).toEqual([]);
    // Ten seconds later (of the workers' clock) the next failed turn says it again, with how many were held back.
    clock.advance(10_000);
    await waitUntil(
      'the second line',
      () => said().length,
      (n) => n === 2,
    );
    expect(said()[1].fields.repeated).toBeGreaterThanOrEqual(3);
    expect(receiver.hits).toHaveLength(1);
  });

  it('when space returns, writes and /healthz recover without a restart; the delivery is recorded once, not sent again', async () => {
    fs.rmSync(filler);
    filler = '';
    const create = await s.api('POST', '/tickets', {
      body: { queue_id: queueId, subject: 'After the disk was freed' },
    });
    expect(create.status, create.text).toBe(201);
    // The store's probe write runs at most once a second: a real short wait.
    await waitUntil(
      'healthz ok',
      async () => (await s.api('GET', '/healthz', { token: null })).status,
      (st) => st === 200,
    );
    const row = (ticket: number) =>
      rawGet<{ id: number; status: string; attempts: number }>(
        s,
        'SELECT id, status, attempts FROM outbox WHERE ticket_id = ? AND kind = ?',
        [ticket, 'webhook'],
      );
    const held = await waitUntil(
      'the held delivery recorded',
      () => row(ticketA),
      (r) => r?.status === 'sent',
    );
    expect(held).toMatchObject({ status: 'sent', attempts: 1 });
    await waitUntil(
      'the new ticket delivered',
      () => row(create.body.ticket.id),
      (r) => r?.status === 'sent',
    );
    // Every delivery went out once: the one answered while the disk was full was not sent again.
    expect(receiver.hits.filter((id) => id === String(held!.id))).toHaveLength(1);
    expect(new Set(receiver.hits).size).toBe(receiver.hits.length);
    const mail = await s.api('POST', '/mailgate', {
      body: MAIL('Mail after the disk was freed').toString(),
      headers: { 'content-type': 'message/rfc822' },
      token: null,
    });
    expect(mail.status, mail.text).toBe(201);
    expect(lines(/unhandled error/)).toEqual([]);
  });
});

// The search indexer is SQLite's own upkeep (PostgreSQL maintains its indexes in each write). Its
// store is opened here and its workers started only once the disk is full, so that the text it
// must index is there, unindexed, when it first runs.
onlyOn('sqlite')('the search indexer on a full disk', () => {
  const disk2 = path.join(tmp, 'disk2');
  let db: Db | undefined;
  let workers: Workers | undefined;
  let filler = '';
  afterAll(async () => {
    try {
      if (filler) fs.rmSync(filler, { force: true });
      await workers?.stop();
      if (db) await closeDb(db);
    } finally {
      unmount(disk2);
    }
  });

  it('backs off and says so once per 10 s of its clock; indexes the text once space returns', async () => {
    mountTmpfs(disk2, 8);
    const env = loadEnv({
      NODE_ENV: 'test',
      DATA_DIR: path.join(disk2, 'data'),
      WEBHOOK_SECRET: 'webhook-secret-for-full-disk-tests',
      SEARCH_INDEX_MS: '20',
    });
    const store = await openStore(env);
    db = store.db;
    useClock(db, clock);
    await seedIfEmpty(db, { adminEmail: 'admin@example.com', adminPassword: 'admin-password-123' });
    const sqlite = sqliteOf(db);
    const at = new Date(clock.now()).toISOString();
    sqlite
      .prepare(
        "INSERT INTO tickets (queue_id, subject, status, created_at, updated_at) VALUES (1, 'Unindexed text', 'new', ?, ?)",
      )
      .run(at, at);
    expect(await rawCount(db, 'search_pending')).toBeGreaterThan(0);
    expect(sqlite.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    filler = fillDisk(disk2);

    const logged: { msg: string; fields: Record<string, unknown> }[] = [];
    workers = await startWorkers(store, env, (level, msg, fields = {}) => {
      if (level !== 'debug') logged.push({ msg, fields });
    });
    const said = () =>
      logged.filter((l) => /^search: indexing failed: the disk holding the database is full/.test(l.msg));
    await waitUntil(
      'the first line',
      () => said().length,
      (n) => n === 1,
    );
    // A real wait for its turns (every 20 ms, or 1 s after a failure).
    await new Promise((r) => setTimeout(r, 2200));
    expect(said()).toHaveLength(1);
    clock.advance(10_000);
    await waitUntil(
      'the second line',
      () => said().length,
      (n) => n === 2,
    );
    expect(said()[1].fields.repeated).toBeGreaterThanOrEqual(1);

    fs.rmSync(filler);
    filler = '';
    await waitUntil(
      'the text indexed',
      () => rawCount(db!, 'search_pending'),
      (n) => n === 0,
    );
    expect(said()).toHaveLength(2);
  });
});

// A read-only store: the whole cluster made read-only as a standby or an administrator's
// `default_transaction_read_only` makes it (ALTER SYSTEM and a reload reach the open connections).
// Every write is refused at once, so the outbox worker's back-off is checked as on SQLite's full disk.
onlyOn('postgres')('a read-only PostgreSQL database', () => {
  let s: TestServer | undefined;
  let admin: pg.Client | undefined;
  const receiver = heldReceiver();
  const readOnly = async (on: boolean) => {
    await admin!.query(
      on ? 'ALTER SYSTEM SET default_transaction_read_only = on' : 'ALTER SYSTEM RESET default_transaction_read_only',
    );
    await admin!.query('SELECT pg_reload_conf()');
    // The reload reaches every session before its next statement once one of the server's own says so.
    await waitUntil(
      'the reload',
      async () =>
        (await rawGet<{ v: string }>(s!, 'SELECT current_setting(?) AS v', ['default_transaction_read_only']))?.v,
      (v) => v === (on ? 'on' : 'off'),
    );
  };
  afterAll(async () => {
    if (admin) {
      await readOnly(false).catch(() => {});
      await admin.end().catch(() => {});
    }
    receiver.release();
    await s?.close();
    await receiver.close();
  });

  it('writes answer 503 storage_unavailable (read_only), /healthz says so, the outbox worker backs off; all resumes when it takes writes again', async () => {
    s = await startServer(
      {
        WEBHOOK_SECRET: 'webhook-secret-for-full-disk-tests',
        OUTBOX_POLL_MS: '50',
        DATABASE_URL: await (await cluster()).createMigratedDatabase(),
      },
      { clock },
    );
    admin = new pg.Client({ connectionString: (await cluster()).url() });
    admin.on('error', () => {});
    await admin.connect();
    await admin.query('SET default_transaction_read_only = off'); // this session keeps writing, to undo it
    const hook = await receiver.listen();
    expect(
      (
        await s.api('POST', '/scrips', {
          body: { key: 'hook_read_only', condition: 'on_create', action: 'notify_webhook', config: { url: hook } },
        })
      ).status,
    ).toBe(201);
    const queue = (await s.api('GET', '/queues')).body.queues[0].id;
    const a = await s.api('POST', '/tickets', {
      body: { queue_id: queue, subject: 'Before the database turned read-only' },
    });
    expect(a.status).toBe(201);
    await waitUntil(
      'the delivery in flight',
      () => receiver.hits.length,
      (n) => n === 1,
    );

    await readOnly(true);
    const tickets = await rawCount(s, 'tickets');
    const create = await s.api('POST', '/tickets', { body: { queue_id: queue, subject: 'While read-only' } });
    expect(create.status, create.text).toBe(503);
    expect(create.body.error).toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringMatching(/the database is read-only/),
    });
    expect(create.headers.get('retry-after')).toBe('30');
    expect((await s.api('PATCH', `/tickets/${a.body.ticket.id}`, { body: { status: 'open' } })).status).toBe(503);
    expect(await rawCount(s, 'tickets')).toBe(tickets);
    expect((await s.api('GET', `/tickets/${a.body.ticket.id}`)).body.status).toBe('new');
    const health = await s.api('GET', '/healthz', { token: null });
    expect(health.status).toBe(503);
    expect(health.body.error).toMatchObject({
      code: 'storage_unavailable',
      cause: 'read_only',
      message: 'Not ready: writes fail, the database is read-only',
    });

    const said = () => s!.logged.filter((l) => /^outbox: delivery paused, the database is read-only/.test(l.msg));
    receiver.release();
    await waitUntil(
      'the first line',
      () => said().length,
      (n) => n === 1,
    );
    expect(said()[0].fields).toMatchObject({ cause: 'read_only', owed: 1 });
    await new Promise((r) => setTimeout(r, 1500)); // the worker's own turns, real time
    expect(said()).toHaveLength(1);
    clock.advance(10_000);
    await waitUntil(
      'the second line',
      () => said().length,
      (n) => n === 2,
    );
    expect(said()[1].fields.repeated).toBeGreaterThanOrEqual(3);

    await readOnly(false);
    await waitUntil(
      'healthz ok',
      async () => (await s!.api('GET', '/healthz', { token: null })).status,
      (st) => st === 200,
    );
    expect((await s.api('POST', '/tickets', { body: { queue_id: queue, subject: 'Writable again' } })).status).toBe(
      201,
    );
    const row = await waitUntil(
      'the held delivery recorded',
      () =>
        rawGet<{ status: string; attempts: number }>(s!, 'SELECT status, attempts FROM outbox WHERE ticket_id = ?', [
          a.body.ticket.id,
        ]),
      (r) => r?.status === 'sent',
    );
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
    expect(s.logged.filter((l) => /unhandled error/.test(l.msg))).toEqual([]);
  });
});
