import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet } from './helpers/db.js';
import { MAILGATE_TOKEN } from './helpers/mail.js';
import { mailTo } from './helpers/notify.js';
import { mailIn, portalPathIn, replyForm, signedPath } from './helpers/portal.js';
import { startServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/session.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';

// The requester portal (SPEC C2) over real HTTP: links out of real autoreply mail, signed with
// the server's key, refused when tampered, expired, revoked or no longer the person's; the
// public history only; replies with files as a Correspond by that requester.

let sink: SmtpSink;
let s: TestServer;
let agent: { id: number; email: string; token: string };
const MAX = 300_000; // MAX_MAIL_BYTES on this server: the portal's upload bound too

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, MAILGATE_TOKEN, MAX_MAIL_BYTES: String(MAX), OUTBOX_POLL_MS: '50' });
  agent = await s.user('agent');
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

let seq = 0;
const HTML = { accept: 'text/html' };
const pdf = Buffer.from('%PDF-1.4 customer invoice\n');

/** A customer writes in (with a file); returns the ticket, the requester and the link from the autoreply. */
async function customerWritesIn(opts: { file?: boolean } = {}) {
  const n = ++seq;
  const from = `customer${n}.${Date.now().toString(36)}@customer.example`;
  const subject = `Printer ${n} is on fire`;
  const r = await mailIn(s, {
    from,
    name: `Carla ${n}`,
    subject,
    body: `It smokes (${n})`,
    file: opts.file ? { name: 'invoice.pdf', type: 'application/pdf', content: pdf } : undefined,
  });
  const ticket = (await s.api('GET', `/tickets/${r.ticket_id}`)).body;
  const mail = await mailTo(sink, from, (m) => (m.parsed.text ?? '').includes(`#${r.ticket_id}`));
  return { id: r.ticket_id as number, userId: ticket.requester_id as number, from, subject, link: portalPathIn(mail) };
}

const json = (p: string, init: RequestInit = {}) => fetch(s.url + p, { redirect: 'manual', ...init });
const page = (p: string) => fetch(s.url + p, { headers: HTML, redirect: 'manual' });
const read = (r: Response): Promise<any> => r.json();

describe('GET /portal/:token', () => {
  it('the link in the autoreply opens the public history: subject, status, Create and Correspond with files, nothing internal', async () => {
    const t = await customerWritesIn({ file: true });
    await s.api('PATCH', `/tickets/${t.id}`, { body: { owner_id: agent.id, custom_fields: {} } });
    const reply = await s.api('POST', `/tickets/${t.id}/comment`, {
      body: { body: 'We are sending a technician.', internal: false },
      token: agent.token,
    });
    expect(reply.status, reply.text).toBe(201);
    await mailIn(s, {
      from: agent.email,
      subject: `[hxdesk #${t.id}] note`,
      body: 'SECRET: customer is on the watch list',
      action: 'comment',
      file: { name: 'internal.txt', type: 'text/plain', content: Buffer.from('internal only') },
    });

    const res = await page(t.link);
    expect(res.status).toBe(200);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toContain(t.subject);
    expect(html).toContain(`It smokes (${seq})`);
    expect(html).toContain('We are sending a technician.');
    expect(html).toContain('invoice.pdf');
    expect(html).toContain('In progress'); // a staff reply opened it (SPEC D6)
    expect(html).toContain(`Carla ${seq}`);
    expect(html).toContain('type="file"');
    for (const secret of ['SECRET', 'internal.txt', agent.email, 'autoreply_on_create', 'notify_', '/tickets/'])
      expect(html).not.toContain(secret);
  });

  it('answers curl with JSON: the ticket and its public transactions, in a fixed shape', async () => {
    const t = await customerWritesIn({ file: true });
    await s.api('POST', `/tickets/${t.id}/comment`, {
      body: { body: 'Internal: call the vendor' },
      token: agent.token,
    });
    await s.api('POST', `/tickets/${t.id}/comment`, {
      body: { body: 'Fixed, please check.', internal: false },
      token: agent.token,
    });
    const res = await json(t.link);
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text);
    expect(Object.keys(body).sort()).toEqual(['ticket', 'transactions']);
    expect(Object.keys(body.ticket).sort()).toEqual(['created_at', 'id', 'status', 'subject', 'updated_at']);
    expect(body.ticket).toMatchObject({ id: t.id, subject: t.subject, status: 'open' }); // a staff reply opened it (SPEC D6)
    expect(body.transactions.map((x: any) => x.type)).toEqual(['Create', 'Correspond']);
    for (const x of body.transactions)
      expect(Object.keys(x).sort()).toEqual(['attachments', 'author', 'body', 'created_at', 'id', 'markdown', 'type']);
    expect(body.transactions[0].author).toEqual({ name: `Carla ${seq}`, staff: false });
    expect(body.transactions[0].attachments).toEqual([
      { id: expect.any(Number), filename: 'invoice.pdf', content_type: 'application/pdf', size: pdf.length },
    ]);
    // SPEC D6: the customer's mail is plain text; the agent's reply, written in hxdesk, is Markdown.
    expect(body.transactions.map((x: any) => x.markdown)).toEqual([false, true]);
    expect(body.transactions[1]).toMatchObject({
      body: 'Fixed, please check.',
      author: { name: expect.stringMatching(/^agent /), staff: true },
    });
    for (const secret of [
      'Internal: call the vendor',
      agent.email,
      'scrip_results',
      'owner_id',
      'queue_id',
      'custom_fields',
    ])
      expect(text).not.toContain(secret);
  });
});

describe('refused links: a readable 403, never a 500', () => {
  it('a tampered MAC, another ticket id under the same MAC, and garbage are refused in words', async () => {
    const t = await customerWritesIn();
    const token = t.link.slice('/portal/'.length);
    const parts = token.split('.');
    const flip = parts[4][0] === 'A' ? 'B' : 'A';
    const tampered = [...parts.slice(0, 4), flip + parts[4].slice(1)].join('.');
    const otherTicket = [String(t.id + 1000), ...parts.slice(1)].join('.');
    for (const bad of [tampered, otherTicket, 'abc', `${token}x`, '1.2.3.4.5', '%00', 'x'.repeat(2000)]) {
      const res = await page(`/portal/${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(403);
      const html = await res.text();
      expect(html).toContain('This link is not valid.');
      expect(html).toContain('reply to any e-mail from us');
      expect(html).not.toMatch(/stack|at .*\.ts:\d+|Internal server error/i);
      const api = await json(`/portal/${encodeURIComponent(bad)}`);
      expect(api.status).toBe(403);
      expect((await read(api)).error.code).toBe('forbidden');
    }
    expect(
      (
        await json(`/portal/${tampered}/reply`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"body":"hi"}',
        })
      ).status,
    ).toBe(403);
    expect((await json(`/portal/${tampered}/attachments/1`)).status).toBe(403);
  });

  it('an expired link says it expired', async () => {
    const t = await customerWritesIn();
    const old = await signedPath(s, { ticketId: t.id, userId: t.userId, expires: Math.floor(Date.now() / 1000) - 60 });
    const res = await page(old);
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain('This link has expired.');
    expect(html).toContain('reply to any e-mail from us');
    expect((await json(await signedPath(s, { ticketId: t.id, userId: t.userId }))).status).toBe(200); // the same, unexpired, works
  });

  it("revoking a user's links (staff, 204) ends every link handed out before; new mail brings a working one", async () => {
    const t = await customerWritesIn();
    const requester = await s.user('requester');
    expect((await s.api('POST', `/users/${t.userId}/portal-links/revoke`, { token: requester.token })).status).toBe(
      403,
    );
    expect((await s.api('POST', '/users/999999/portal-links/revoke', { token: agent.token })).status).toBe(404);
    // The admin's user page has the button: a plain form post that lands back on that page.
    const userPage = await s.api('GET', `/users/${t.userId}`, { headers: HTML });
    expect(userPage.text).toContain(`action="/users/${t.userId}/portal-links/revoke"`);
    const viaForm = await s.api('POST', `/users/${t.userId}/portal-links/revoke`, { form: {}, headers: HTML });
    expect(viaForm.status).toBe(303);
    expect(viaForm.headers.get('location')).toBe(`/users/${t.userId}`);
    const res = await s.api('POST', `/users/${t.userId}/portal-links/revoke`, { token: agent.token });
    expect(res.status, res.text).toBe(204);
    expect(await rawGet(s, 'SELECT portal_epoch FROM users WHERE id = ?', [t.userId])).toEqual({ portal_epoch: 2 });
    const refused = await page(t.link);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('This link is no longer valid.');
    expect(
      (
        await json(`${t.link}/reply`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"body":"still me"}',
        })
      ).status,
    ).toBe(403);
    // The next mail to them carries a link at the new epoch.
    await s.api('POST', `/tickets/${t.id}/comment`, {
      body: { body: 'A new answer for you', internal: false },
      token: agent.token,
    });
    const mail = await mailTo(sink, t.from, (m) => (m.parsed.text ?? '').includes('A new answer for you'));
    const fresh = portalPathIn(mail);
    expect(fresh).not.toBe(t.link);
    expect((await json(fresh)).status).toBe(200);
  });

  it('a person taken off the ticket, or disabled, is refused; a Cc has a link of their own', async () => {
    const t = await customerWritesIn();
    const add = await s.api('POST', `/tickets/${t.id}/watchers`, {
      body: { role: 'cc', email: `cc${seq}@customer.example` },
      token: agent.token,
    });
    expect(add.status, add.text).toBe(201);
    const ccId = Number(add.body.transaction.new_value);
    const ccLink = await signedPath(s, { ticketId: t.id, userId: ccId });
    expect((await json(ccLink)).status).toBe(200);
    expect((await json(await signedPath(s, { ticketId: t.id + 1, userId: ccId }))).status).toBe(403); // a valid MAC, not their ticket
    expect((await s.api('DELETE', `/tickets/${t.id}/watchers/cc/${ccId}`, { token: agent.token })).status).toBe(204);
    const gone = await page(ccLink);
    expect(gone.status).toBe(403);
    expect(await gone.text()).toContain('This link is no longer valid.');

    expect((await json(t.link)).status).toBe(200);
    expect((await s.api('DELETE', `/users/${t.userId}`)).status).toBe(204);
    expect((await json(t.link)).status).toBe(403);
  });

  it('disabling a person ends their links for good: enabling them again does not bring the links back', async () => {
    for (const disable of [
      (id: number) => s.api('PATCH', `/users/${id}`, { body: { disabled: true } }),
      (id: number) => s.api('DELETE', `/users/${id}`),
    ]) {
      const t = await customerWritesIn();
      expect((await json(t.link)).status).toBe(200);
      expect((await disable(t.userId)).status).toBeLessThan(300);
      expect((await s.api('PATCH', `/users/${t.userId}`, { body: { disabled: false } })).body.disabled).toBe(false);
      const res = await page(t.link);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('This link is no longer valid.');
      const reply = await json(`${t.link}/reply`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"body":"back again"}',
      });
      expect(reply.status).toBe(403);
      expect(
        (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions.some(
          (x: any) => x.body === 'back again',
        ),
      ).toBe(false);
      // The next mail to them brings a link that works.
      await s.api('POST', `/tickets/${t.id}/comment`, {
        body: { body: `Welcome back ${t.id}`, internal: false },
        token: agent.token,
      });
      const fresh = portalPathIn(
        await mailTo(sink, t.from, (m) => (m.parsed.text ?? '').includes(`Welcome back ${t.id}`)),
      );
      expect((await json(fresh)).status).toBe(200);
    }
  });
});

describe('GET /portal/:token/attachments/:id', () => {
  it('downloads files of the public history only, of that ticket only', async () => {
    const t = await customerWritesIn({ file: true });
    const other = await customerWritesIn({ file: true });
    const note = await mailIn(s, {
      from: agent.email,
      subject: `[hxdesk #${t.id}] note`,
      body: 'internal',
      action: 'comment',
      file: { name: 'internal.txt', type: 'text/plain', content: Buffer.from('internal only') },
    });
    const staffView = (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions;
    const noteFile = staffView.find((x: any) => x.id === note.transaction_id).attachments[0].id;
    const own = (await read(await json(t.link))).transactions[0].attachments[0].id;
    const theirs = (await read(await json(other.link))).transactions[0].attachments[0].id;

    const res = await json(`${t.link}/attachments/${own}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(pdf);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="invoice.pdf"/);
    expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    for (const refused of [noteFile, theirs, 99999999])
      expect((await json(`${t.link}/attachments/${refused}`)).status, String(refused)).toBe(404);
    expect((await json(`${t.link}/attachments/abc`)).status).toBe(404);
  });
});

describe('POST /portal/:token/reply', () => {
  it('JSON { body }: a Correspond by that requester, which the agent sees', async () => {
    const t = await customerWritesIn();
    const res = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'Still smoking.' }),
    });
    expect(res.status).toBe(201);
    const body = await read(res);
    expect(Object.keys(body)).toEqual(['transaction']);
    expect(body.transaction).toMatchObject({
      type: 'Correspond',
      body: 'Still smoking.',
      author: { name: `Carla ${seq}`, staff: false },
    });
    const txns = (await s.api('GET', `/tickets/${t.id}/transactions`, { token: agent.token })).body.transactions;
    expect(txns.find((x: any) => x.id === body.transaction.id)).toMatchObject({
      type: 'Correspond',
      creator_id: t.userId,
      body: 'Still smoking.',
    });
  });

  it('multipart with files: the Correspond carries them, byte for byte; a plain form post lands back on the page (303)', async () => {
    const t = await customerWritesIn();
    const photo = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]);
    const res = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { ...HTML, origin: s.url },
      body: replyForm('Here is a photo', [
        { name: 'smoke.png', type: 'image/png', content: photo },
        { name: 'C:\\fakepath\\log.txt', type: 'text/plain', content: Buffer.from('log') },
      ]),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(t.link);
    const txns = (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions;
    const mine = txns.filter((x: any) => x.type === 'Correspond' && x.creator_id === t.userId).at(-1);
    expect(mine.body).toBe('Here is a photo');
    expect(mine.attachments.map((a: any) => [a.filename, a.content_type, a.size])).toEqual([
      ['smoke.png', 'image/png', photo.length],
      ['log.txt', 'text/plain', 3],
    ]);
    const dl = await fetch(`${s.url}/attachments/${mine.attachments[0].id}`, {
      headers: { authorization: `Bearer ${agent.token}` },
    });
    expect(Buffer.from(await dl.arrayBuffer())).toEqual(photo);
    // A file alone, without words, is a reply too.
    const fileOnly = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { origin: s.url },
      body: replyForm('', [{ name: 'a.txt', type: 'text/plain', content: Buffer.from('a') }]),
    });
    expect(fileOnly.status).toBe(201);
  });

  it('htmx gets the history fragment; JSON attachments (base64) work too', async () => {
    const t = await customerWritesIn();
    const res = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { 'hx-request': 'true', origin: s.url },
      body: replyForm('From the page'),
    });
    expect(res.status).toBe(201);
    const html = await res.text();
    expect(html).toMatch(/^<ol id="portal-history"/);
    expect(html).toContain('From the page');
    const viaJson = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        body: 'with a file',
        attachments: [
          { filename: 'x.csv', content_type: 'text/csv', content_base64: Buffer.from('a,b\n').toString('base64') },
        ],
      }),
    });
    expect(viaJson.status).toBe(201);
    expect((await read(viaJson)).transaction.attachments).toEqual([
      { id: expect.any(Number), filename: 'x.csv', content_type: 'text/csv', size: 4 },
    ]);
  });

  it('refuses an empty reply (422 naming body), a too large one (413), a cross-site one (403)', async () => {
    const t = await customerWritesIn();
    for (const body of [JSON.stringify({ body: '' }), JSON.stringify({ body: '   \n' }), '{}']) {
      const res = await json(`${t.link}/reply`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(422);
      const err = (await read(res)).error;
      expect(err.code).toBe('validation_failed');
      expect(err.details.map((d: any) => d.path)).toEqual(['body']);
    }
    const empty = await json(`${t.link}/reply`, { method: 'POST', headers: { origin: s.url }, body: replyForm('') });
    expect(empty.status).toBe(422);
    const big = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { origin: s.url },
      body: replyForm('big', [
        { name: 'big.bin', type: 'application/octet-stream', content: Buffer.alloc(MAX + 1000) },
      ]),
    });
    expect(big.status).toBe(413);
    expect((await read(big)).error.code).toBe('too_large');
    const bigPage = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { ...HTML, origin: s.url },
      body: replyForm('big', [
        { name: 'big.bin', type: 'application/octet-stream', content: Buffer.alloc(MAX + 1000) },
      ]),
    });
    expect(bigPage.status).toBe(413);
    expect(await bigPage.text()).toContain('Too large');
    // Over the 1 MiB of other routes is fine below MAX_MAIL_BYTES… here MAX is smaller, so a 200 KB file passes.
    const ok = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { origin: s.url },
      body: replyForm('ok', [{ name: 'ok.bin', type: 'application/octet-stream', content: Buffer.alloc(200_000, 1) }]),
    });
    expect(ok.status).toBe(201);
    const crossSite: Record<string, string>[] = [
      { 'content-type': 'application/json', origin: 'http://evil.example' },
      { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of crossSite) {
      const res = await json(`${t.link}/reply`, { method: 'POST', headers, body: JSON.stringify({ body: 'forged' }) });
      expect(res.status).toBe(403);
    }
    const form = await json(`${t.link}/reply`, {
      method: 'POST',
      headers: { origin: 'http://evil.example' },
      body: replyForm('forged'),
    });
    expect(form.status).toBe(403);
    // A form post names its origin (decision 016's signed-out form check, as for /login).
    expect((await json(`${t.link}/reply`, { method: 'POST', body: replyForm('forged') })).status).toBe(403);
    const txns = (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions;
    expect(txns.some((x: any) => x.body === 'forged')).toBe(false);
  });

  it('a staff member who is a requester replies in public through their link, never as a note', async () => {
    const staffer = await s.user('agent');
    const created = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Laptop for me', requesters: [staffer.id] },
    });
    expect(created.status, created.text).toBe(201);
    const link = await signedPath(s, { ticketId: created.body.ticket.id, userId: staffer.id });
    const res = await json(`${link}/reply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'Any news?' }),
    });
    expect(res.status).toBe(201);
    expect((await read(res)).transaction).toMatchObject({ type: 'Correspond', author: { staff: true } });
  });
});

describe('signed in with a password: GET /portal', () => {
  const PASSWORD = 'customer-password-123';

  it("lists the customer's own tickets (requester or Cc) and shows and takes replies on each; others are not found", async () => {
    const email = `signed${++seq}@customer.example`;
    const u = await s.api('POST', '/users', {
      body: { email, name: 'Signed Customer', role: 'requester', password: PASSWORD },
    });
    expect(u.status, u.text).toBe(201);
    const mine = (
      await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Mine as requester', requesters: [u.body.id] } })
    ).body.ticket.id;
    const cced = (await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Mine as Cc', cc: [email] } })).body
      .ticket.id;
    const notMine = (await customerWritesIn()).id;
    const cookie = await signIn(s, email, PASSWORD);
    const origin = s.url;

    const list = await json('/portal', { headers: { cookie } });
    expect(list.status).toBe(200);
    const ids = (await read(list)).tickets.map((t: any) => t.id);
    expect(ids.sort()).toEqual([mine, cced].sort());
    const listPage = await json('/portal', { headers: { cookie, ...HTML } });
    const html = await listPage.text();
    expect(html).toContain(`href="/portal/tickets/${mine}"`);
    expect(html).toContain(`href="/portal/tickets/${cced}"`);
    expect(html).toContain('Sign out');

    const ticketPage = await json(`/portal/tickets/${cced}`, { headers: { cookie, ...HTML } });
    expect(ticketPage.status).toBe(200);
    expect(await ticketPage.text()).toContain('Mine as Cc');
    expect((await json(`/portal/tickets/${notMine}`, { headers: { cookie } })).status).toBe(404);
    expect(
      (
        await json(`/portal/tickets/${notMine}/reply`, {
          method: 'POST',
          headers: { cookie, origin, 'content-type': 'application/json' },
          body: '{"body":"x"}',
        })
      ).status,
    ).toBe(404);

    const posted = await json(`/portal/tickets/${cced}/reply`, {
      method: 'POST',
      headers: { cookie, origin, ...HTML },
      body: replyForm('Signed-in reply'),
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(`/portal/tickets/${cced}`);
    const txns = (await s.api('GET', `/tickets/${cced}/transactions`)).body.transactions;
    expect(txns.at(-1)).toMatchObject({ type: 'Correspond', creator_id: u.body.id, body: 'Signed-in reply' });
    // The session is a cookie: a cross-site post is refused.
    expect(
      (
        await json(`/portal/tickets/${cced}/reply`, {
          method: 'POST',
          headers: { cookie, origin: 'http://evil.example' },
          body: replyForm('forged'),
        })
      ).status,
    ).toBe(403);

    // Signing in without a destination lands a customer on their list.
    const viaForm = await s.api('POST', '/login', {
      token: null,
      form: { email, password: PASSWORD },
      headers: { ...HTML, origin },
    });
    expect(viaForm.status).toBe(303);
    expect(viaForm.headers.get('location')).toBe('/portal');
  });

  it('staff are sent to /tickets; nobody signed in is asked to sign in; only link paths are open', async () => {
    const staffList = await json('/portal', { headers: { authorization: `Bearer ${agent.token}`, ...HTML } });
    expect(staffList.status).toBe(303);
    expect(staffList.headers.get('location')).toBe('/tickets');
    expect(
      (await json('/portal/tickets/1', { headers: { authorization: `Bearer ${agent.token}` } })).headers.get(
        'location',
      ),
    ).toBe('/tickets/1');
    expect((await json('/portal')).status).toBe(401);
    const anon = await page('/portal/tickets/1');
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toBe('/login?next=%2Fportal%2Ftickets%2F1');
    for (const p of ['/portal/abc/other', '/portal/abc/attachments/1/x', '/portal/tickets/1/reply'])
      expect((await json(p)).status, p).toBe(401);
  });
});
