import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, openDb, type Db, sqliteOf } from '../src/db/store.js';
import { transaction, type Tx } from '../src/db/port.js';
import type { Actor } from '../src/domain/actor.js';
import { seedIfEmpty } from '../src/domain/seed.js';
import { commentOnTicket } from '../src/domain/tickets/comment.js';
import { createTicket } from '../src/domain/tickets/write.js';
import { loadEnv } from '../src/env.js';
import type { NotifySettings } from '../src/scrips/config.js';
import { loadSettings } from '../src/settings.js';
import { startServer, type TestServer } from './helpers/server.js';

// Decision 013: ticket changes that arrive together share one SQL transaction (each in its own
// savepoint) and are answered after its COMMIT. Checked on a real SQLite file, with a second
// connection standing in for "anyone else" (what is committed is what it can read).

let dir: string;
let db: Db;
let other: Database.Database;
/** A unit of work: the store batches those that arrive in one turn into one SQL transaction. */
const commit = <T>(fn: (tx: Tx) => Promise<T>) => transaction(db, fn);
const admin: Actor = { id: 1, email: 'admin@example.com', name: 'Admin', role: 'admin' };
let notify: NotifySettings;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-group-'));
  db = openDb(path.join(dir, 'hxdesk.db'));
  await seedIfEmpty(db, { adminEmail: admin.email, adminPassword: 'admin-password-123' });
  notify = (await loadSettings(db, loadEnv({ NODE_ENV: 'test', DATA_DIR: dir }))).notify;
  other = new Database(path.join(dir, 'hxdesk.db'), { readonly: true });
});
afterAll(async () => {
  other.close();
  await closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

const committedSubjects = (ids: number[]) =>
  ids.map(
    (id) =>
      (other.prepare('SELECT subject FROM tickets WHERE id = ?').get(id) as { subject: string } | undefined)?.subject ??
      null,
  );
const create = (subject: string) => async (tx: Tx) =>
  (await createTicket(tx, admin, { queue_id: 1, subject, description: `About ${subject}` }, notify)).ticket.id;

describe('group commit', () => {
  it('changes of one turn commit together, and each caller hears of it only after the COMMIT', async () => {
    let insideBatch = 0;
    const seenAtResolve: (string | null)[][] = [];
    const ids: number[] = [];
    const jobs = ['alpha', 'beta', 'gamma'].map((s) =>
      commit(async (tx) => {
        if (sqliteOf(db).inTransaction) insideBatch++; // the batch's transaction is open before the change runs
        const id = await create(s)(tx);
        ids.push(id);
        return id;
      }).then((id) => {
        seenAtResolve.push(committedSubjects(ids));
        return id;
      }),
    );
    expect(committedSubjects(ids)).toEqual([]); // nothing ran yet: the batch waits for the end of the turn
    const got = await Promise.all(jobs);
    expect(got).toEqual(ids);
    expect(insideBatch).toBe(3);
    // Already at the first answer, another connection reads all three: one COMMIT for all.
    for (const seen of seenAtResolve) expect(seen).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('a change that fails is rolled back alone; the others of its batch commit', async () => {
    const before = (other.prepare('SELECT count(*) AS n FROM tickets').get() as { n: number }).n;
    const results = await Promise.allSettled([
      commit(create('kept one')),
      commit(async (tx) => {
        await createTicket(tx, admin, { queue_id: 1, subject: 'half-written' }, notify);
        throw new Error('the change failed after writing');
      }),
      commit((tx) => commentOnTicket(tx, admin, 999_999, { body: 'no such ticket' }, { notify })),
      commit(create('kept two')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('the change failed after writing');
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'not_found' });
    const after = (other.prepare('SELECT count(*) AS n FROM tickets').get() as { n: number }).n;
    expect(after - before).toBe(2);
    expect(other.prepare("SELECT count(*) AS n FROM tickets WHERE subject = 'half-written'").get()).toEqual({ n: 0 });
    const kept = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => (r as PromiseFulfilledResult<number>).value);
    expect(committedSubjects(kept)).toEqual(['kept one', 'kept two']);
  });

  it('when the batch itself fails, every change is run again on its own', async () => {
    // A change that ends the shared SQL transaction (as SQLITE_FULL would) takes the batch down;
    // the others must still commit, once each.
    const results = await Promise.allSettled([
      commit(create('survivor one')),
      commit(async () => {
        sqliteOf(db).exec('ROLLBACK');
        return 0;
      }),
      commit(create('survivor two')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const ids = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value);
    expect(committedSubjects(ids)).toEqual(['survivor one', 'survivor two']);
    expect(other.prepare("SELECT count(*) AS n FROM tickets WHERE subject LIKE 'survivor%'").get()).toEqual({ n: 2 });
    expect(sqliteOf(db).inTransaction).toBe(false);
  });

  it('a lone change runs in its own SQL transaction, as without batching', async () => {
    let inTransactionBefore = true;
    const before = sqliteOf(db).inTransaction;
    const id = await commit((tx) => {
      inTransactionBefore = sqliteOf(db).inTransaction;
      return create('alone')(tx);
    });
    expect(before).toBe(false);
    expect(inTransactionBefore).toBe(true); // its own BEGIN … COMMIT, no savepoint around it
    expect(committedSubjects([id])).toEqual(['alone']);
  });
});

describe('group commit over HTTP', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv.close();
  });

  it('concurrent creates, replies and a bad request each get their own answer', async () => {
    const t = (await srv.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Base ticket' } })).body.ticket;
    const responses = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) =>
        srv.api('POST', '/tickets', { body: { queue_id: 1, subject: `Parallel ${i}`, description: `Body ${i}` } }),
      ),
      ...Array.from({ length: 4 }, (_, i) =>
        srv.api('POST', `/tickets/${t.id}/comment`, { body: { body: `Reply ${i}`, internal: false } }),
      ),
      srv.api('POST', '/tickets', { body: { queue_id: 424242, subject: 'Unknown queue' } }),
      srv.api('PATCH', `/tickets/${t.id}`, { body: { status: 'open' } }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([...Array(8).fill(201), ...Array(4).fill(201), 422, 200]);
    const ids = responses.slice(0, 8).map((r) => r.body.ticket.id);
    expect(new Set(ids).size).toBe(8);
    for (const [i, r] of responses.slice(0, 8).entries()) {
      expect(r.body.ticket).toMatchObject({ subject: `Parallel ${i}`, description: `Body ${i}` });
      expect((await srv.api('GET', `/tickets/${r.body.ticket.id}`)).body.subject).toBe(`Parallel ${i}`);
    }
    const history = (await srv.api('GET', `/tickets/${t.id}/transactions`)).body.transactions as {
      type: string;
      body: string | null;
    }[];
    expect(
      history
        .filter((x) => x.type === 'Correspond')
        .map((x) => x.body)
        .sort(),
    ).toEqual(['Reply 0', 'Reply 1', 'Reply 2', 'Reply 3']);
    expect(history.filter((x) => x.type === 'Status')).toHaveLength(1);
    expect(responses[12].body.error).toMatchObject({ code: 'validation_failed' });
  });
});
