import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantFromToken, portalReply } from '../src/domain/portal.js';
import { multipartBody, postUnfinished, textFiles } from './helpers/forms.js';
import { signPortalToken } from '../src/scrips/portalLinks.js';
import { rawCount, rawQuery, sharedStore } from './helpers/db.js';
import { replyForm, signedPath } from './helpers/portal.js';
import { processScope, send } from './helpers/process.js';
import { transactionsOf } from './helpers/reads.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/session.js';

// The portal's brakes (docs/decisions/041), over real HTTP on both stores: replies and files per
// person (link and session alike), counted in the database inside the reply's unit of work, so a
// refusal stores nothing and servers sharing a database share the count; and how many files one
// reply takes, counted before the body is read to its end.

const PER_HOUR = 6; // MAIL_SENDER_MAX_PER_HOUR here
const PER_DAY = 100_000; // PORTAL_MAX_BYTES_PER_DAY here
const limits = { maxBytes: 25 * 1024 * 1024, messagesPerHour: PER_HOUR, bytesPerDay: PER_DAY };
let s: TestServer;

beforeAll(async () => {
  s = await startServer({ MAIL_SENDER_MAX_PER_HOUR: String(PER_HOUR), PORTAL_MAX_BYTES_PER_DAY: String(PER_DAY) });
  await fetch(`${s.url}/portal/not-a-link`); // the server makes its link key on first use
});
afterAll(async () => {
  await s?.close();
});

let seq = 0;
const PASSWORD = 'customer-password-123';
/** A customer with a ticket of their own and a link to it (and a password, to sign in). */
async function customer() {
  const email = `brakes${++seq}@customer.example`;
  const made = await s.api('POST', '/users', {
    body: { email, name: `Customer ${seq}`, role: 'requester', password: PASSWORD },
  });
  expect(made.status, made.text).toBe(201);
  const u = { id: made.body.id as number, email };
  const res = await s.api('POST', '/tickets', {
    body: { queue_id: 1, subject: `Brakes ${++seq}`, description: 'Hello', requesters: [u.id] },
  });
  expect(res.status, res.text).toBe(201);
  const id = res.body.ticket.id as number;
  return { ...u, ticketId: id, link: await signedPath(s, { ticketId: id, userId: u.id }) };
}
const history = (id: number) => transactionsOf<{ id: number }>(s, id);
/** What a refused reply must leave as it was: the ticket's history, its outbox, every stored file, the brakes' rows. */
const state = async (ticketId: number) => ({
  history: await history(ticketId),
  outbox: await rawCount(s, 'outbox', 'ticket_id = ?', [ticketId]),
  files: await rawCount(s, 'attachments'),
  brakes: await rawQuery(
    s,
    "SELECT key, failures, window_end FROM login_throttle WHERE key LIKE 'portal%' ORDER BY key",
  ),
});
const bin = (n: number, name = 'photo.jpg') => ({ name, type: 'image/jpeg', content: Buffer.alloc(n, 7) });
const tokenOf = (link: string) => link.slice('/portal/'.length);
const post = (path: string, body: FormData | string, headers: Record<string, string> = {}) =>
  fetch(s.url + path, { method: 'POST', body, redirect: 'manual', headers: { origin: s.url, ...headers } });

describe('replies per person: MAIL_SENDER_MAX_PER_HOUR an hour', () => {
  const TOO_OFTEN = `You have sent ${PER_HOUR} messages within the hour, as many as we take from one person. You can write again in 60 minutes.`;

  it('through a link and signed in alike: the next is 429 in words, and changes nothing; an hour later they may write again', async () => {
    const c = await customer();
    const cookie = await signIn(s, c.email, PASSWORD);
    for (let i = 0; i < PER_HOUR; i++) {
      const res =
        i % 2 === 0
          ? await post(`${c.link}/reply`, JSON.stringify({ body: `link ${i}` }), { 'content-type': 'application/json' })
          : await post(`/portal/tickets/${c.ticketId}/reply`, JSON.stringify({ body: `session ${i}` }), {
              'content-type': 'application/json',
              cookie,
            });
      expect(res.status, String(i)).toBe(201);
    }
    const before = await state(c.ticketId);
    const viaLink = await post(`${c.link}/reply`, replyForm('one more', [bin(1000)]));
    expect(viaLink.status).toBe(429);
    expect(((await viaLink.json()) as any).error).toEqual({ code: 'rate_limited', message: TOO_OFTEN });
    expect(Number(viaLink.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(Number(viaLink.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    const signedIn = await post(`/portal/tickets/${c.ticketId}/reply`, JSON.stringify({ body: 'one more' }), {
      'content-type': 'application/json',
      cookie,
    });
    expect(signedIn.status).toBe(429);
    expect(((await signedIn.json()) as any).error.message).toBe(TOO_OFTEN);
    const page = await post(`${c.link}/reply`, replyForm('one more'), { accept: 'text/html' });
    expect(page.status).toBe(429);
    const html = await page.text();
    expect(html).toContain('Too many messages');
    expect(html).toContain(TOO_OFTEN);
    expect(await state(c.ticketId)).toEqual(before);
    // Another person is not held back by this one.
    expect(
      (
        await post(`${(await customer()).link}/reply`, JSON.stringify({ body: 'hello' }), {
          'content-type': 'application/json',
        })
      ).status,
    ).toBe(201);
    // An hour later (the clock moved, through the domain function the route calls) the person may write again.
    const grant = await grantFromToken(s.db, tokenOf(c.link));
    const later = await portalReply(
      s.db,
      grant,
      { body: 'an hour later', attachments: [] },
      limits,
      s.settings.notify,
      Date.now() + 3_601_000,
    );
    expect(later).toMatchObject({ type: 'Correspond', body: 'an hour later' });
  });
});

describe('files per person: PORTAL_MAX_BYTES_PER_DAY a day', () => {
  const LEFT_10K =
    'We take at most 98 KiB of files a day from one person: these files (30 KiB) are more than the 10 KiB you have left. ' +
    'You can send more files in 24 hours; a message without files can be sent now.';

  it("the files past the day's bytes are 413 in words and change nothing; a message without files still goes; a day later files go again", async () => {
    const c = await customer();
    for (let i = 0; i < 3; i++)
      expect((await post(`${c.link}/reply`, replyForm(`photo ${i}`, [bin(30_000)]))).status, String(i)).toBe(201);
    const before = await state(c.ticketId);
    const over = await post(`${c.link}/reply`, replyForm('photo 3', [bin(30_000)]));
    expect(over.status).toBe(413);
    expect(((await over.json()) as any).error).toEqual({ code: 'too_large', message: LEFT_10K });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(86_000);
    const page = await post(`${c.link}/reply`, replyForm('photo 3', [bin(30_000)]), { accept: 'text/html' });
    expect(page.status).toBe(413);
    expect(await page.text()).toContain(LEFT_10K);
    expect(await state(c.ticketId)).toEqual(before);
    // Words alone are not files; what is left still fits, to the byte, and then nothing more does.
    expect(
      (await post(`${c.link}/reply`, JSON.stringify({ body: 'no files' }), { 'content-type': 'application/json' }))
        .status,
    ).toBe(201);
    expect((await post(`${c.link}/reply`, replyForm('the rest', [bin(PER_DAY - 90_000)]))).status).toBe(201);
    const byte = await post(`${c.link}/reply`, replyForm('one byte', [bin(1)]));
    expect(byte.status).toBe(413);
    expect(((await byte.json()) as any).error.message).toMatch(
      /^We take at most 98 KiB of files a day from one person: these files \(1 KiB\) are more than the 0 KiB you have left\./,
    );
    // Signed in, the same person has the same day.
    const cookie = await signIn(s, c.email, PASSWORD);
    expect(
      (await post(`/portal/tickets/${c.ticketId}/reply`, replyForm('signed in', [bin(1)]), { cookie })).status,
    ).toBe(413);
    // A day later the person may send files again.
    const grant = await grantFromToken(s.db, tokenOf(c.link));
    const later = await portalReply(
      s.db,
      grant,
      {
        body: 'a day later',
        attachments: [{ filename: 'a.jpg', content_type: 'image/jpeg', content: Buffer.alloc(30_000) }],
      },
      limits,
      s.settings.notify,
      Date.now() + 86_401_000,
    );
    expect(later.attachments).toHaveLength(1);
  });

  it("one reply larger than the whole day's bytes is 413 at once", async () => {
    const c = await customer();
    const before = await state(c.ticketId);
    const res = await post(`${c.link}/reply`, replyForm('big', [bin(150_000)]));
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error).toEqual({
      code: 'too_large',
      message: 'We take at most 98 KiB of files a day from one person, and these files are 147 KiB.',
    });
    expect(await state(c.ticketId)).toEqual(before);
  });

  it("the audit's burst — ten large uploads at once through one link — stores the day's bytes and no more", async () => {
    const c = await customer();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(`${c.link}/reply`, replyForm(`burst ${i}`, [bin(20_000)]))),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 201, 413, 413, 413, 413, 413]);
    const stored = await rawQuery<{ n: number | string }>(
      s,
      `SELECT sum(a.size) AS n FROM attachments a JOIN transactions t ON t.id = a.transaction_id
      WHERE t.ticket_id = ? AND t.creator_id = ?`,
      [c.ticketId, c.id],
    );
    expect(Number(stored[0].n)).toBe(PER_DAY);
  });
});

describe('files on a portal reply: at most 20', () => {
  const TOO_MANY = {
    code: 'validation_failed',
    message: 'Attachments: at most 20 files',
    details: [{ path: 'attachments', message: 'Attachments: at most 20 files' }],
  };

  it('21 files are 422 in every shape, in words on the page, and nothing is written; 20 are taken', async () => {
    const c = await customer();
    const before = await history(c.ticketId);
    const multipart = await post(`${c.link}/reply`, replyForm('21 files', textFiles(21)));
    expect(multipart.status).toBe(422);
    expect(((await multipart.json()) as any).error).toEqual(TOO_MANY);
    const json = await post(
      `${c.link}/reply`,
      JSON.stringify({
        body: '21 files',
        attachments: textFiles(21).map((f) => ({ filename: f.name, content_base64: f.content.toString('base64') })),
      }),
      { 'content-type': 'application/json' },
    );
    expect(json.status).toBe(422);
    expect(((await json.json()) as any).error).toEqual(TOO_MANY);
    const page = await post(`${c.link}/reply`, replyForm('21 files', textFiles(21)), { accept: 'text/html' });
    expect(page.status).toBe(422);
    const html = await page.text();
    expect(html).toContain('Please check your message');
    expect(html).toContain('Attachments: at most 20 files');
    expect(await history(c.ticketId)).toEqual(before);
    const twenty = await post(`${c.link}/reply`, replyForm('20 files', textFiles(20)));
    expect(twenty.status).toBe(201);
    expect(((await twenty.json()) as any).transaction.attachments).toHaveLength(20);
  });

  it('is refused at file 21, before the rest of the body has come', async () => {
    const c = await customer();
    const before = await history(c.ticketId);
    const { body, contentType } = multipartBody({ body: 'more to come' }, textFiles(21));
    // The body up to the 21st file's bytes, not its end, nor the body's.
    const head = body.subarray(0, body.indexOf('file 20', body.indexOf('filename="f20.txt"')) + 'file 20'.length);
    const res = await postUnfinished(
      `${s.url}${c.link}/reply`,
      { origin: s.url, 'content-type': contentType },
      head,
      body.length + 500_000,
    );
    expect(res.status).toBe(422);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.text).error).toEqual(TOO_MANY);
    expect(await history(c.ticketId)).toEqual(before);
  });
});

describe('servers on one database share the brakes', () => {
  const { dataDir, serve } = processScope('portal-brakes');

  it("a burst from one person at two server processes at once: exactly the hour's replies, exactly the day's bytes", async () => {
    const store = await sharedStore(dataDir()); // the SQLite file of a DATA_DIR, or one PostgreSQL database
    const brakes = { MAIL_SENDER_MAX_PER_HOUR: '3', PORTAL_MAX_BYTES_PER_DAY: '25000' };
    const a = await serve(store.env, brakes);
    const b = await serve(store.env, brakes);
    const admin = await signIn(a.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    await fetch(`${a.base}/portal/not-a-link`); // the link key, made on first use
    const [{ value: secret }] = await store.query<{ value: string }>(
      "SELECT value FROM app_secrets WHERE name = 'portal'",
    );
    async function person(n: number) {
      const u = await send(
        a.base,
        'POST',
        '/users',
        { email: `burst${n}@customer.example`, name: `Burst ${n}`, role: 'requester' },
        { cookie: admin },
      );
      expect(u.status, JSON.stringify(u.body)).toBe(201);
      const t = await send(
        b.base,
        'POST',
        '/tickets',
        { queue_id: 1, subject: `Burst ${n}`, description: 'Hello', requesters: [u.body.id] },
        { cookie: admin },
      );
      expect(t.status, JSON.stringify(t.body)).toBe(201);
      const link = `/portal/${signPortalToken({ ticketId: t.body.ticket.id, userId: u.body.id, expires: Math.floor(Date.now() / 1000) + 3600, epoch: 0 }, secret)}`;
      return { id: u.body.id as number, ticketId: t.body.ticket.id as number, link };
    }
    const burst = (link: string, body: (i: number) => unknown) =>
      Promise.all(
        Array.from({ length: 12 }, (_, i) => send(i % 2 === 0 ? a.base : b.base, 'POST', `${link}/reply`, body(i))),
      );
    const count = (statuses: number[]) =>
      statuses.reduce<Record<number, number>>((m, x) => {
        m[x] = (m[x] ?? 0) + 1;
        return m;
      }, {});

    const talker = await person(1);
    const said = await burst(talker.link, (i) => ({ body: `message ${i}` }));
    expect(count(said.map((x) => x.status))).toEqual({ 201: 3, 429: 9 });
    const kept = await store.query<{ n: number | string }>(
      "SELECT count(*) AS n FROM transactions WHERE creator_id = ? AND type = 'Correspond'",
      [talker.id],
    );
    expect(Number(kept[0].n)).toBe(3);

    const sender = await person(2);
    const file = {
      filename: 'scan.pdf',
      content_type: 'application/pdf',
      content_base64: Buffer.alloc(10_000, 1).toString('base64'),
    };
    const sent = await burst(sender.link, (i) => ({ body: `scan ${i}`, attachments: [file] }));
    expect(count(sent.map((x) => x.status))).toEqual({ 201: 2, 413: 10 });
    const bytes = await store.query<{ n: number | string }>(
      `SELECT sum(a.size) AS n FROM attachments a JOIN transactions t ON t.id = a.transaction_id
      WHERE t.creator_id = ?`,
      [sender.id],
    );
    expect(Number(bytes[0].n)).toBe(20_000);
    for (const p of [a, b]) {
      process.kill(-p.child.pid!, 'SIGTERM');
      expect((await p.exit).code).toBe(0);
    }
  }, 120_000);
});
