import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { outbox } from '../src/db/tables.js';
import { testClock } from '../src/domain/clock.js';
import { composeMail } from '../src/scrips/compose.js';
import { dropStaged, type NewAttachment, stageFiles } from '../src/domain/stagedFiles.js';
import { rawCount, rawGet, rawQuery, rawRun, sideConnection } from './helpers/db.js';
import { MAILGATE_TOKEN, postMail, rawMail } from './helpers/mail.js';
import { replyForm, signedPath } from './helpers/portal.js';
import { transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { onlyOn, testStore } from './helpers/store.js';
import { waitUntil } from './helpers/wait.js';

// Decision 061 (SPEC D1, issue 28): a message's files are stored before its unit of work, as rows
// with no transaction ("staged"), and attached by id inside it. A staged file is never read (no
// download, no portal download, not on the ticket); a write that fails deletes the files it
// staged at once; what a crash leaves is swept by the workers once it is an hour old on the
// store's clock. On PostgreSQL: the ticket is not locked while the bytes are being written.

const clock = testClock();
let s: TestServer;
let agent: { id: number; email: string; token: string };

beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN }, { clock });
  agent = await s.user('agent');
  await fetch(`${s.url}/portal/not-a-link`); // the server makes its link key on first use
});
afterAll(async () => {
  await s?.close();
});

const MINUTE = 60_000;
const staged = () => rawCount(s, 'attachments', 'transaction_id IS NULL');
const allFiles = () => rawCount(s, 'attachments');
const file = (name: string, n = 1000) => ({
  filename: name,
  content_type: 'text/plain',
  content_base64: Buffer.alloc(n, 'a').toString('base64'),
});
const as = (token: string) => ({ authorization: `Bearer ${token}` });

let seq = 0;
/** A ticket with a requester who has a token of their own, and a portal link. */
async function ticket() {
  const customer = await s.user('requester', `staged${++seq}@customer.example`);
  const res = await s.api('POST', '/tickets', {
    body: { queue_id: 1, subject: `Staged ${seq}`, description: 'Please see', requesters: [customer.id] },
  });
  expect(res.status, res.text).toBe(201);
  const id = res.body.ticket.id as number;
  return { id, customer, link: await signedPath(s, { ticketId: id, userId: customer.id }) };
}
/** A file row as a crash between staging and attaching leaves it: stored, attached to nothing. */
async function leftStaged(name: string): Promise<number> {
  const row = await rawGet<{ id: number }>(
    s,
    'INSERT INTO attachments (transaction_id, filename, content_type, size, content, created_at) VALUES (NULL, ?, ?, ?, ?, ?) RETURNING id',
    [name, 'text/plain', 4, Buffer.from('left'), new Date(clock.now()).toISOString()],
  );
  return Number(row!.id);
}
const download = (path: string, headers: Record<string, string> = as(agent.token)) => fetch(s.url + path, { headers });

describe('a staged file is never read', () => {
  it('left by a crash: no download (staff, requester, portal link), not on the ticket; swept after an hour, not at 59 minutes', async () => {
    const t = await ticket();
    const kept = await s.api('POST', `/tickets/${t.id}/comment`, {
      body: { body: 'Attached', internal: false, attachments: [file('kept.txt')] },
    });
    expect(kept.status, kept.text).toBe(201);
    const keptId = kept.body.transaction.attachments[0].id as number;
    const orphan = await leftStaged('orphan.txt');

    expect((await download(`/attachments/${orphan}`)).status).toBe(404);
    expect((await download(`/attachments/${orphan}`, as(s.adminToken))).status).toBe(404);
    expect((await download(`/attachments/${orphan}`, as(t.customer.token))).status).toBe(404);
    expect((await download(`${t.link}/attachments/${orphan}`, {})).status).toBe(404);
    expect((await download(`${t.link}/attachments/${keptId}`, {})).status).toBe(200);
    const ids = (await transactionsOf(s, t.id)).flatMap((x) => x.attachments.map((a: { id: number }) => a.id));
    expect(ids).toContain(keptId);
    expect(ids).not.toContain(orphan);
    const page = await (await download(`/tickets/${t.id}`, { ...as(agent.token), accept: 'text/html' })).text();
    expect(page).toContain(`/attachments/${keptId}`);
    expect(page).not.toContain(`/attachments/${orphan}`);

    clock.advance(59 * MINUTE);
    expect(await s.workers.sweepStaged()).toBe(0);
    expect(await rawCount(s, 'attachments', 'id = ?', [orphan])).toBe(1);
    clock.advance(2 * MINUTE);
    expect(await s.workers.sweepStaged()).toBe(1);
    expect(await rawCount(s, 'attachments', 'id = ?', [orphan])).toBe(0);
    expect(await s.workers.sweepStaged()).toBe(0); // a second sweeper (another process) finds nothing more
    // Attached files are the sweep's never, however old.
    expect(Buffer.from(await (await download(`/attachments/${keptId}`)).arrayBuffer()).toString()).toBe(
      'a'.repeat(1000),
    );
  });
  it('mail: an outbox row naming a staged id goes out without it (only attached files are read)', async () => {
    const t = await ticket();
    const kept = await s.api('POST', `/tickets/${t.id}/comment`, {
      body: { body: 'With a file', internal: false, attachments: [file('sent.txt', 10)] },
    });
    expect(kept.status, kept.text).toBe(201);
    const keptId = kept.body.transaction.attachments[0].id as number;
    const row = (await s.db.select().from(outbox).where(eq(outbox.transaction_id, kept.body.transaction.id)))[0];
    expect(row, 'the reply’s mail to its requester').toBeDefined();
    const orphan = await leftStaged('never-sent.txt');
    const { message, missing } = await composeMail(s.db, { ...row, attachment_ids: JSON.stringify([keptId, orphan]) });
    expect((message.attachments ?? []).map((a) => a.filename)).toEqual(['sent.txt']);
    expect(missing).toEqual([orphan]);
    await rawRun(s, 'DELETE FROM attachments WHERE id = ?', [orphan]); // the next tests count staged files
  });
});

describe('a write that fails deletes the files it staged at once', () => {
  it('staff replies: 404, 403, 422, a deleted ticket (409), stale (409), JSON and multipart alike', async () => {
    const t = await ticket();
    const before = await allFiles();
    const comment = (id: number, body: Record<string, unknown>, token = s.adminToken) =>
      s.api('POST', `/tickets/${id}/comment`, { token, body: { body: 'x', internal: false, ...body } });

    expect((await comment(999_999, { attachments: [file('a.txt')] })).status).toBe(404);
    expect((await comment(t.id, { creator_id: t.customer.id, attachments: [file('b.txt')] }, agent.token)).status).toBe(
      403,
    );
    expect((await comment(t.id, { creator_id: 999_999, attachments: [file('c.txt')] })).status).toBe(422);
    // Stale: the customer wrote after what the agent had loaded.
    const first = (await transactionsOf(s, t.id))[0].id as number;
    const mine = await s.api('POST', `/tickets/${t.id}/comment`, {
      token: t.customer.token,
      body: { body: 'Any news?' },
    });
    expect(mine.status, mine.text).toBe(201);
    const stale = await comment(t.id, { seen_transaction_id: first, attachments: [file('d.txt')] }, agent.token);
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body.error.code).toBe('stale');
    // Multipart, the reply box's shape, on a deleted ticket.
    expect((await s.api('PATCH', `/tickets/${t.id}`, { body: { status: 'deleted' } })).status).toBe(200);
    const form = replyForm('On a deleted ticket', [{ name: 'e.txt', type: 'text/plain', content: Buffer.from('e') }]);
    form.set('internal', 'false');
    const gone = await fetch(`${s.url}/tickets/${t.id}/comment`, {
      method: 'POST',
      body: form,
      headers: as(agent.token),
    });
    expect(gone.status, await gone.text()).toBe(409);

    expect(await staged()).toBe(0);
    expect(await allFiles()).toBe(before);
  });

  it('the portal: a reply to a ticket the link no longer reaches stores no file', async () => {
    const t = await ticket();
    const before = await allFiles();
    expect((await s.api('PATCH', `/tickets/${t.id}`, { body: { status: 'deleted' } })).status).toBe(200);
    const res = await fetch(`${s.url}${t.link}/reply`, {
      method: 'POST',
      body: replyForm('Hello?', [{ name: 'f.txt', type: 'text/plain', content: Buffer.from('f') }]),
      headers: { origin: s.url },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await staged()).toBe(0);
    expect(await allFiles()).toBe(before);
  });

  it('mail: a message delivered twice keeps its file once; the second delivery leaves nothing staged', async () => {
    const raw = rawMail({ from: `mailer${++seq}@customer.example`, subject: 'With a file' }, 'See the file', {
      name: 'report.pdf',
      content: Buffer.from('%PDF-1.4 staged'),
    });
    const before = await allFiles();
    const one = await postMail(s, raw);
    expect(one.status, one.text).toBeLessThan(300);
    const again = await postMail(s, raw);
    expect(again.status, again.text).toBeLessThan(300);
    expect(again.body.duplicate).toBe(true);
    expect(await allFiles()).toBe(before + 1);
    expect(await staged()).toBe(0);
  });
});

// PostgreSQL: units of work run side by side, so what a reply holds while its files are written shows.
onlyOn('postgres')('on PostgreSQL, a reply’s files are written with its ticket unlocked', () => {
  const side = sideConnection(() => s.env.DATABASE_URL);

  const reply = (id: number, n: number) =>
    s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Big files', internal: false, attachments: [file('big1.bin', n), file('big2.bin', n)] },
    });

  it('a PATCH to the ticket completes while the reply’s files are still being written, and comes first in its history', async () => {
    const t = await ticket();
    // Hold the writing of the files: a SHARE lock on attachments lets every read through and no
    // INSERT. The staging INSERT then waits, as a slow upload's bytes would keep it busy.
    await side.client.query('BEGIN');
    await side.client.query('LOCK TABLE attachments IN SHARE MODE');
    const pending = reply(t.id, 2 * 1024 * 1024);
    // The reply's connection waits for the table: the lock it asks for shows in pg_locks, not granted
    // (pg_stat_activity may still name its previous statement: a lock taken while parsing).
    await waitUntil(
      'the reply’s files waiting to be written',
      async () =>
        (
          await side.client.query(
            `SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'attachments'::regclass AND NOT granted`,
          )
        ).rows[0].n,
      (n) => n === 1,
    );
    // Nobody holds the ticket's row meanwhile (before staging it was locked through the insert:
    // this NOWAIT then failed at once with lock_not_available)...
    const other = new pg.Client({ connectionString: s.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query('BEGIN');
      const locked = await other.query('SELECT id FROM tickets WHERE id = $1 FOR NO KEY UPDATE NOWAIT', [t.id]);
      expect(locked.rowCount).toBe(1);
      await other.query('ROLLBACK');
    } finally {
      await other.end();
    }
    // ...so another change to the ticket goes through now, not after the upload.
    const patched = await s.api('PATCH', `/tickets/${t.id}`, { token: agent.token, body: { priority: 42 } });
    expect(patched.status, patched.text).toBe(200);
    await side.client.query('COMMIT');
    const done = await pending;
    expect(done.status, done.text).toBe(201);
    expect(done.body.transaction.attachments.map((a: { size: number }) => a.size)).toEqual([
      2 * 1024 * 1024,
      2 * 1024 * 1024,
    ]);
    const types = (await transactionsOf(s, t.id)).map((x) => x.type);
    expect(types.indexOf('SetPriority')).toBeLessThan(types.indexOf('Correspond'));
    expect(await staged()).toBe(0);
  });

  it('a file staged by a reply waiting for its ticket is not downloadable and not swept; the reply then attaches that row', async () => {
    const t = await ticket();
    await side.client.query('BEGIN');
    await side.client.query('SELECT id FROM tickets WHERE id = $1 FOR NO KEY UPDATE', [t.id]);
    const pending = reply(t.id, 4096);
    const rows = await waitUntil(
      'the reply’s files staged',
      () => rawQuery<{ id: number }>(s, 'SELECT id FROM attachments WHERE transaction_id IS NULL ORDER BY id'),
      (r) => r.length === 2,
    );
    const ids = rows.map((r) => Number(r.id));
    for (const id of ids) expect((await download(`/attachments/${id}`)).status).toBe(404);
    clock.advance(59 * MINUTE);
    expect(await s.workers.sweepStaged()).toBe(0);
    await side.client.query('COMMIT');
    const done = await pending;
    expect(done.status, done.text).toBe(201);
    expect(done.body.transaction.attachments.map((a: { id: number }) => a.id)).toEqual(ids);
    expect((await download(`/attachments/${ids[0]}`)).status).toBe(200);
    expect(await staged()).toBe(0);
  });
});

// The bytes of a staged file are handed over, not copied, only where the caller says nothing else
// reads them (a form's file joined for itself: `movable`); a mail's parts — which the raw mail,
// stored later in the same write, may share — stay as they are. On PostgreSQL the statement is
// sent from a thread of its own (decision 061); on SQLite the bytes stay where they are.
describe('staging hands over only the bytes it may', () => {
  const bytes = (n: number, fill: string) => Buffer.from(Buffer.alloc(n, fill)); // a Buffer of its own
  it('a movable file may be emptied, any other is left whole; the rows hold every byte in order', async () => {
    const big = 256 * 1024;
    const movable = bytes(big, 'm');
    const shared = bytes(big, 's');
    const small = bytes(100, 'x');
    const files: NewAttachment[] = [
      { filename: 'form.bin', content_type: 'application/octet-stream', content: movable, movable: true },
      { filename: 'mail-part.bin', content_type: 'application/octet-stream', content: shared },
      { filename: 'small.txt', content_type: 'text/plain', content: small, movable: true },
    ];
    const got = await stageFiles(s.db, files);
    const ids = got.map((f) => f.staged_id!);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // What the caller gets back no longer carries the bytes: they are in the database.
    expect(got.map((f) => f.content.length)).toEqual([0, 0, 0]);
    // A file not given as movable is never touched; a movable one is moved only by PostgreSQL, and
    // only when it is large and owns its memory.
    expect(shared.equals(bytes(big, 's'))).toBe(true);
    expect(small.equals(bytes(100, 'x'))).toBe(true);
    expect(movable.length).toBe(testStore() === 'postgres' ? 0 : big);
    const rows = await rawQuery<{ id: number; filename: string; size: number; content: Buffer }>(
      s,
      `SELECT id, filename, size, content FROM attachments WHERE id IN (${ids.join(', ')}) ORDER BY id`,
    );
    expect(
      rows.map((r) => [
        r.filename,
        Number(r.size),
        Buffer.from(r.content).equals(
          bytes(Number(r.size), r.filename[0] === 'f' ? 'm' : r.filename[0] === 'm' ? 's' : 'x'),
        ),
      ]),
    ).toEqual([
      ['form.bin', big, true],
      ['mail-part.bin', big, true],
      ['small.txt', 100, true],
    ]);
    await dropStaged(s.db, got);
    expect(await rawCount(s, 'attachments', `id IN (${ids.join(', ')})`)).toBe(0);
  });

  it('a statement that fails says why, stores nothing, and leaves a file that is not movable whole', async () => {
    const content = bytes(128 * 1024, 'q');
    const before = await allFiles();
    // A file without a name breaks the table's NOT NULL rule in the database itself (on
    // PostgreSQL, on the thread that sends the statement: its error comes back to the caller).
    const nameless = { filename: null as unknown as string, content_type: 'text/plain', content };
    await expect(stageFiles(s.db, [nameless])).rejects.toThrow(/null.*filename|filename.*null/i);
    expect(await allFiles()).toBe(before);
    expect(content.equals(bytes(128 * 1024, 'q'))).toBe(true);
  });
});
