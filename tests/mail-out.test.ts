import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textToHtml } from '../src/scrips/html.js';
import { launchBrowser } from './helpers/browser.js';
import { rawCount, rawRun, sharedStoreEnv } from './helpers/db.js';
import { MAILGATE_TOKEN, postMail } from './helpers/mail.js';
import { mailTo as mailToSink, outboxOf, settle } from './helpers/notify.js';
import { startServer, type TestServer } from './helpers/server.js';
import { refs, startSmtpSink, type ReceivedMail, type SmtpSink } from './helpers/smtp.js';
import { until } from './helpers/wait.js';

// Mail out that other systems and people treat right (SPEC C3), end to end: changes through the
// HTTP API and /mailgate, rows through the durable outbox and the server's delivery worker, into
// a real SMTP server, read back with mailparser (and the HTML in Chromium).

const BILLING = 'billing@example.com';
let seq = 0;
const mid = (who: string) => `<${who}.${++seq}.${Math.random().toString(36).slice(2, 8)}@customer.example>`;

/** An RFC 822 message (CRLF), optionally with one attachment. */
function rfc822(
  h: Record<string, string>,
  body: string,
  file?: { name: string; type: string; content: Buffer },
): string {
  const head = Object.entries({ Date: 'Mon, 02 Mar 2026 10:00:00 +0000', 'MIME-Version': '1.0', ...h }).map(
    ([k, v]) => `${k}: ${v}`,
  );
  if (!file)
    return [...head, 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', body, ''].join(
      '\r\n',
    );
  const b = 'b0undary-mail-out';
  return [
    ...head,
    `Content-Type: multipart/mixed; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    `--${b}`,
    `Content-Type: ${file.type}; name="${file.name}"`,
    `Content-Disposition: attachment; filename="${file.name}"`,
    'Content-Transfer-Encoding: base64',
    '',
    file.content.toString('base64').replace(/.{76}/g, '$&\r\n'),
    `--${b}--`,
    '',
  ].join('\r\n');
}

type Row = Record<string, any>;
const header = (m: ReceivedMail, name: string) => m.parsed.headers.get(name);
const addrs = (v: any) =>
  [v ?? []]
    .flat()
    .flatMap((a: any) => a.value)
    .map((a: any) => ({ name: a.name, address: a.address }));
const rawHeader = (m: ReceivedMail, name: string) =>
  new RegExp(`^${name}:(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(m.raw.split(/\r?\n\r?\n/)[0])?.[1].trim();

let sink: SmtpSink;
let s: TestServer;
let ann: { id: number; email: string; token: string };
let olga: { id: number; email: string; token: string };

/** The mail of a ticket with this Message-ID sent to `to` (waits for it). */
const mailTo = (to: string, pred: (m: ReceivedMail) => boolean) => mailToSink(sink, to, pred);
const forTicket = (id: number) => (m: ReceivedMail) => String(header(m, 'x-hxdesk-ticket')) === String(id);

/** A ticket opened by customer mail (Cc kept as a cc watcher), owned by Olga. */
async function olgasMailedTicket(subject: string, from: string, cc?: string) {
  const c1 = mid('c1');
  const res = await postMail(
    s,
    rfc822(
      { From: from, To: BILLING, ...(cc ? { Cc: cc } : {}), Subject: subject, 'Message-ID': c1 },
      'Our printer is on fire.',
    ),
  );
  expect(res.status, res.text).toBe(201);
  const id = res.body.ticket_id as number;
  expect((await s.api('PATCH', `/tickets/${id}`, { body: { owner_id: olga.id } })).status).toBe(200);
  await settle(s, id);
  return { id, c1 };
}
async function reply(ticketId: number, body: string, opts: { settle?: boolean } = {}) {
  const res = await s.api('POST', `/tickets/${ticketId}/comment`, {
    body: { body, internal: false },
    token: ann.token,
  });
  expect(res.status, res.text).toBe(201);
  if (opts.settle !== false) await settle(s, ticketId);
  return res.body.transaction as Row;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ MAILGATE_TOKEN, SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' });
  const q = await s.api('POST', '/queues', { body: { name: 'Billing', mail_alias: BILLING } });
  expect(q.status, q.text).toBe(201);
  ann = await s.user('agent', 'ann@staff.example');
  olga = await s.user('agent', 'olga@staff.example');
  expect((await s.api('PATCH', `/users/${ann.id}`, { body: { name: 'Ann Lée' } })).status).toBe(200);
  expect((await s.api('PATCH', `/users/${olga.id}`, { body: { name: 'Olga Owner' } })).status).toBe(200);
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

describe('headers', () => {
  it('a human reply: From "<agent> (<queue>)" encoded, Reply-To the queue, To/Cc the conversation, envelope one recipient, not Auto-Submitted', async () => {
    const { id, c1 } = await olgasMailedTicket(
      'Printer on fire',
      '"Zoë Ünicode" <zoe@customer.example>',
      'Bob Cc <bob@customer.example>',
    );
    const autoreply = await mailTo('zoe@customer.example', forTicket(id));
    expect(addrs(autoreply.parsed.from)).toEqual([{ name: 'Billing', address: BILLING }]);
    expect(header(autoreply, 'auto-submitted')).toBe('auto-replied');
    expect(header(autoreply, 'x-auto-response-suppress')).toBe('All');
    expect(autoreply.parsed.inReplyTo).toBe(c1);
    expect(refs(autoreply)).toEqual([c1]);

    const text = `We sent a technician ${++seq}.`;
    const tx = await reply(id, text);
    const rows = (await outboxOf(s, id)).filter((r) => r.transaction_id === tx.id);
    const customer = rows.filter((r) => r.audience === 'customer');
    expect(customer.map((r) => r.recipient).sort()).toEqual(['bob@customer.example', 'zoe@customer.example']);
    const staff = rows.filter((r) => r.audience === 'staff');
    expect(staff.map((r) => r.recipient)).toEqual([olga.email]);

    const copies = await Promise.all(
      ['zoe@customer.example', 'bob@customer.example'].map((to) =>
        mailTo(to, (m) => m.parsed.text?.includes(text) ?? false),
      ),
    );
    for (const [i, m] of copies.entries()) {
      expect(m.envelope.to).toEqual([customer.find((r) => r.recipient === m.envelope.to[0])!.recipient]);
      expect(m.envelope.from).toBe(BILLING);
      expect(addrs(m.parsed.from)).toEqual([{ name: 'Ann Lée (Billing)', address: BILLING }]);
      expect(rawHeader(m, 'From')).toMatch(/^=\?utf-8\?[bq]\?[^?]+\?=\s+<billing@example\.com>$/i); // encoded, ASCII on the wire
      expect(addrs(m.parsed.replyTo)).toEqual([{ name: 'Billing', address: BILLING }]);
      expect(addrs(m.parsed.to)).toEqual([{ name: 'Zoë Ünicode', address: 'zoe@customer.example' }]);
      expect(addrs(m.parsed.cc)).toEqual([{ name: 'Bob Cc', address: 'bob@customer.example' }]);
      expect(header(m, 'auto-submitted'), `copy ${i}`).toBeUndefined();
      expect(header(m, 'x-auto-response-suppress')).toBeUndefined();
      expect(m.parsed.subject).toBe(`Re: [hxdesk #${id}] Printer on fire`);
      expect(m.parsed.inReplyTo).toBe(autoreply.parsed.messageId);
      expect(refs(m)).toEqual([c1, autoreply.parsed.messageId]);
    }
    // The two copies are one message of the conversation: one Message-ID, the rows'.
    expect(copies[0].parsed.messageId).toBe(copies[1].parsed.messageId);
    expect(customer.map((r) => r.message_id)).toEqual([copies[0].parsed.messageId, copies[0].parsed.messageId]);

    const staffMail = await mailTo(olga.email, (m) => m.parsed.text?.includes(text) ?? false);
    expect(addrs(staffMail.parsed.from)).toEqual([{ name: 'Ann Lée (Billing)', address: BILLING }]);
    expect(addrs(staffMail.parsed.to)).toEqual([{ name: 'Olga Owner', address: olga.email }]);
    expect(header(staffMail, 'auto-submitted')).toBe('auto-generated');
    expect(header(staffMail, 'x-auto-response-suppress')).toBe('All');
    expect(staffMail.parsed.messageId).not.toBe(copies[0].parsed.messageId);

    // The admin outbox shows the header lists and the audience beside the envelope recipient.
    for (const r of customer) {
      expect(r).toMatchObject({
        to: [{ name: 'Zoë Ünicode', address: 'zoe@customer.example' }],
        cc: [{ name: 'Bob Cc', address: 'bob@customer.example' }],
        audience: 'customer',
        attachment_ids: [],
        kind: 'email',
        status: 'sent',
      });
      expect(r.headers).toMatchObject({
        From: `"Ann Lée (Billing)" <${BILLING}>`,
        'Reply-To': `"Billing" <${BILLING}>`,
        To: '"Zoë Ünicode" <zoe@customer.example>',
      });
    }
    expect(staff[0]).toMatchObject({ to: [{ name: 'Olga Owner', address: olga.email }], cc: [], audience: 'staff' });
    const page = await s.api('GET', `/outbox?ticket_id=${id}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Cc: Bob Cc &lt;bob@customer.example&gt;');
    expect(page.text).toMatch(/<td>customer<\/td>/);
    expect(page.text).toMatch(/<td>staff<\/td>/);
  });
});

describe('threading', () => {
  it('mail in, reply, customer reply, reply: References carry the chain in order, In-Reply-To the customer reply, subjects stay one', async () => {
    const subject = `VPN drops ${++seq}`;
    const { id, c1 } = await olgasMailedTicket(subject, 'Carl Customer <carl@customer.example>');
    await reply(id, 'First answer.');
    const r1 = await mailTo('carl@customer.example', (m) => m.parsed.text?.includes('First answer.') ?? false);

    // An internal note that arrived by mail (the comment address) is not for the customer's thread.
    const note = mid('note');
    const noted = await postMail(s, '', {
      contentType: 'application/json',
      body: JSON.stringify({
        action: 'comment',
        message: rfc822(
          { From: olga.email, To: BILLING, Subject: `[hxdesk #${id}] note`, 'Message-ID': note },
          'Internal: check the firewall.',
        ),
      }),
    });
    expect(noted.status, noted.text).toBe(200);
    await settle(s, id);

    // The subject is already "Re: …": mail clients add no second prefix.
    const cr = mid('carl-reply');
    const back = await postMail(
      s,
      rfc822(
        {
          From: 'Carl Customer <carl@customer.example>',
          To: BILLING,
          Subject: r1.parsed.subject!,
          'Message-ID': cr,
          'In-Reply-To': r1.parsed.messageId!,
          References: `${c1} ${r1.parsed.messageId}`,
        },
        'Still dropping.\n\n> First answer.',
      ),
    );
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ ticket_id: id, rule: `ticket by In-Reply-To ${r1.parsed.messageId}` });
    await settle(s, id);

    await reply(id, 'Second answer.');
    const r2 = await mailTo('carl@customer.example', (m) => m.parsed.text?.includes('Second answer.') ?? false);
    expect(r2.parsed.inReplyTo).toBe(cr);
    const chain = refs(r2);
    const at = (x: string) => chain.indexOf(x);
    expect(at(c1)).toBe(0);
    expect(at(c1)).toBeLessThan(at(r1.parsed.messageId!));
    expect(at(r1.parsed.messageId!)).toBeLessThan(at(cr));
    expect(chain.at(-1)).toBe(cr);
    expect(new Set(chain).size).toBe(chain.length);
    // Only what the customer saw: no staff copies, no internal note.
    const staffIds = (await outboxOf(s, id)).filter((r) => r.audience === 'staff').map((r) => r.message_id);
    expect(staffIds.length).toBeGreaterThan(0);
    expect(chain.filter((x) => staffIds.includes(x) || x === note)).toEqual([]);
    // Gmail threads by subject (after Re:) and References: every mail of the conversation has one subject.
    expect(new Set([r1.parsed.subject, r2.parsed.subject])).toEqual(new Set([`Re: [hxdesk #${id}] ${subject}`]));

    // The staff copy of the second answer carries the whole thread, the note and staff mail included.
    const staff2 = await mailTo(
      olga.email,
      (m) => forTicket(id)(m) && (m.parsed.text?.includes('Second answer.') ?? false),
    );
    expect(refs(staff2)).toContain(note);
    expect(refs(staff2).some((x) => staffIds.includes(x))).toBe(true);
    // Newest last: the customer's reply, then our staff mail about it.
    expect(refs(staff2).indexOf(cr)).toBe(refs(staff2).length - 2);
    expect(staffIds).toContain(refs(staff2).at(-1));
  });

  it('25 replies: References hold 20 ids, the root first and the newest last, no duplicates', async () => {
    const { id, c1 } = await olgasMailedTicket(
      `Long one ${++seq}`,
      'Dora Long <dora@customer.example>',
      'Eve Cc <eve@customer.example>',
    );
    const sent: string[] = [];
    for (let i = 1; i <= 25; i++) {
      const tx = await reply(id, `Reply number ${i}.`, { settle: false });
      sent.push(
        (await outboxOf(s, id)).find((r) => r.transaction_id === tx.id && r.audience === 'customer')!.message_id,
      );
    }
    await settle(s, id);
    const last = await mailTo('eve@customer.example', (m) => m.parsed.text?.includes('Reply number 25.') ?? false);
    const chain = refs(last);
    expect(chain).toHaveLength(20);
    expect(chain[0]).toBe(c1);
    expect(chain.slice(1)).toEqual(sent.slice(5, 24));
    expect(new Set(chain).size).toBe(20);
    expect(last.parsed.inReplyTo).toBe(sent[23]);
  });
});

describe('multipart/alternative', () => {
  const body = [
    'Hello <b>Zoë</b> & co,',
    '',
    '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">',
    'See https://example.com/a?b=1&c=2. or (https://en.wikipedia.org/wiki/Foo_(bar)) or mailto:help@example.com',
    'Not a link: javascript:alert(1) and "https://x.example/"onmouseover="alert(1)',
    '    indented  twice',
    '',
    'On Monday Carl wrote:',
    '> Still dropping.',
    '> > First answer.',
    '>> Older still.',
    '',
    'Regards',
    '-- ',
    'Ann Lée',
    'Billing',
  ].join('\n');
  let mail: ReceivedMail;
  let row: Row;

  beforeAll(async () => {
    const { id } = await olgasMailedTicket(`Escapes ${++seq}`, 'Finn <finn@customer.example>');
    // Ann answers by mail: mail-born text is plain text, made HTML by textToHtml (text written in
    // hxdesk is Markdown instead, SPEC D6: tests/convo.test.ts).
    const res = await postMail(
      s,
      rfc822(
        {
          From: 'Ann Lée <ann@staff.example>',
          To: BILLING,
          Subject: `Re: [hxdesk #${id}] Escapes`,
          'Message-ID': mid('a1'),
        },
        body,
      ),
    );
    expect(res.status, res.text).toBe(200);
    const tx = { id: res.body.transaction_id as number };
    await settle(s, id);
    row = (await outboxOf(s, id)).find((r) => r.transaction_id === tx.id && r.audience === 'customer')!;
    mail = await mailTo('finn@customer.example', (m) => m.parsed.messageId === row.message_id);
  });

  it('has the text as stored and an HTML version of it', () => {
    expect(mail.raw).toMatch(/^Content-Type: multipart\/alternative;/im);
    expect(mail.parsed.text?.replace(/\n+$/, '')).toBe(row.body.replace(/\n+$/, ''));
    const html = mail.parsed.html as string;
    expect(html).toBe(textToHtml(row.body));
    expect(html).not.toMatch(/<script|<img|<[^>]*\son\w+=|href="javascript/i);
    expect(html).toContain(
      '&lt;script&gt;window.__pwned = 1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;',
    );
    expect(html).toContain('<a href="https://example.com/a?b=1&amp;c=2"');
  });

  it('is inert in a browser: no script, no image, links only to http(s) and mailto, quotes nested, the signature muted', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.setContent(mail.parsed.html as string, { waitUntil: 'load' });
      // Runs in the page (a string: this project type-checks tests without the DOM library).
      const seen = (await page.evaluate(`({
        pwned: window.__pwned ?? null,
        dangerous: document.querySelectorAll('script, img, iframe, object, [onerror], [onmouseover]').length,
        links: [...document.querySelectorAll('a')].map((a) => a.getAttribute('href')),
        quotes: [...document.querySelectorAll('blockquote')].map((q) => q.parentElement.closest('blockquote') ? 'inner' : 'outer'),
        inner: document.querySelector('blockquote blockquote')?.innerText,
        signature: [...document.querySelectorAll('div[style]')].map((d) => ({ text: d.innerText, color: getComputedStyle(d).color })).find((d) => d.text.startsWith('--')),
        text: document.body.innerText.replace(/\\u00a0/g, ' '),
      })`)) as {
        pwned: unknown;
        dangerous: number;
        links: string[];
        quotes: string[];
        inner?: string;
        signature?: { text: string; color: string };
        text: string;
      };
      expect(seen.pwned).toBeNull();
      expect(seen.dangerous).toBe(0);
      expect(seen.links).toEqual([
        'https://example.com/a?b=1&c=2',
        'https://en.wikipedia.org/wiki/Foo_(bar)',
        'mailto:help@example.com',
        'https://x.example/',
        expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/portal\//),
      ]); // the template's portal link
      expect(seen.quotes).toEqual(['outer', 'inner']);
      expect(seen.inner).toBe('First answer.\nOlder still.');
      // From the `-- ` line to the end (the template's footer follows the reply), muted.
      expect(seen.signature?.text).toMatch(/^--\nAnn Lée\nBilling\n\n---\nTicket #/);
      expect(seen.signature?.color).toBe('rgb(107, 114, 128)');
      expect(seen.text).toContain('    indented  twice');
      expect(seen.text).toContain('<script>window.__pwned = 1</script>');
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('a long body', () => {
  it('over 512 KiB goes out as text only (hostile text could make many times its size in HTML)', async () => {
    const { id } = await olgasMailedTicket(`Huge ${++seq}`, 'Hugo <hugo@customer.example>');
    // The customer mails a huge log; the owner's notification quotes it.
    const text = `Log follows.\n${'>>>> line\nplain\n'.repeat(40_000)}`;
    const res = await postMail(
      s,
      rfc822(
        { From: 'hugo@customer.example', To: BILLING, Subject: `Re: [hxdesk #${id}] Huge`, 'Message-ID': mid('hugo') },
        text,
      ),
    );
    expect(res.status, res.text).toBe(200);
    await settle(s, id);
    const row = (await outboxOf(s, id)).find(
      (r) => r.transaction_id === res.body.transaction_id && r.recipient === olga.email,
    )!;
    expect(row.body.length).toBeGreaterThan(512 * 1024);
    const m = await mailTo(olga.email, (x) => x.parsed.messageId === row.message_id);
    expect(m.raw).not.toMatch(/multipart\/alternative/i);
    expect(m.parsed.html).toBe(false);
    expect(m.parsed.text).toContain('>>>> line\nplain\n>>>> line');
  });
});

describe('attachments', () => {
  it("go out with a public reply: the transaction's files, as stored, beside the text and HTML", async () => {
    const { id } = await olgasMailedTicket(`Invoice ${++seq}`, 'Gus <gus@customer.example>');
    const pdf = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256));
    // Ann answers by mail, with a file: a Correspond by Ann (a person), relayed to the requester.
    const res = await postMail(
      s,
      rfc822(
        {
          From: `Ann Lée <${ann.email}>`,
          To: BILLING,
          Subject: `Re: [hxdesk #${id}] Invoice`,
          'Message-ID': mid('ann'),
        },
        'Here is the corrected invoice.',
        { name: 'invoice-2026.pdf', type: 'application/pdf', content: pdf },
      ),
    );
    expect(res.status, res.text).toBe(200);
    const tx = ((await s.api('GET', `/tickets/${id}/transactions`)).body.transactions as Row[]).find(
      (t) => t.id === res.body.transaction_id,
    )!;
    expect(tx).toMatchObject({ type: 'Correspond', creator_id: ann.id });
    await settle(s, id);
    const row = (await outboxOf(s, id)).find((r) => r.transaction_id === tx.id && r.audience === 'customer')!;
    expect(row.attachment_ids).toEqual(tx.attachments.map((a: Row) => a.id));
    expect(row.last_error).toBeNull();

    const m = await mailTo('gus@customer.example', (x) => x.parsed.messageId === row.message_id);
    expect(m.raw).toMatch(/^Content-Type: multipart\/mixed;/im);
    expect(m.raw).toMatch(/^Content-Type: multipart\/alternative;/im);
    expect(m.parsed.text).toContain('Here is the corrected invoice.');
    expect(m.parsed.html).toContain('Here is the corrected invoice.');
    expect(header(m, 'auto-submitted')).toBeUndefined();
    expect(addrs(m.parsed.from)).toEqual([{ name: 'Ann Lée (Billing)', address: BILLING }]);
    expect(
      m.parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    ).toEqual([{ filename: 'invoice-2026.pdf', contentType: 'application/pdf', content: pdf }]);
  });
});

describe('after a restart', () => {
  it('sends the message as it was stored; a file deleted with its ticket meanwhile is left out and noted, not retried for ever', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mail-out-'));
    const own = await startSmtpSink();
    let a: TestServer | undefined;
    let b: TestServer | undefined;
    try {
      // First life: no SMTP_URL, so every mail waits in the outbox.
      // Both lives on one store: the SQLite file in `dir`, or one PostgreSQL database.
      const store = await sharedStoreEnv();
      a = await startServer({ DATA_DIR: dir, MAILGATE_TOKEN, ...store });
      await a.api('POST', '/queues', { body: { name: 'Billing', mail_alias: BILLING } });
      const agent = await a.user('agent', 'hal@staff.example');
      const c1 = mid('c1');
      const opened = await postMail(
        a,
        rfc822({ From: 'Ida <ida@customer.example>', To: BILLING, Subject: 'Keys', 'Message-ID': c1 }, 'Lost my keys.'),
      );
      const id = opened.body.ticket_id as number;
      const withFile = await postMail(
        a,
        rfc822(
          { From: agent.email, To: BILLING, Subject: `[hxdesk #${id}] Keys`, 'Message-ID': mid('hal') },
          'The spare key, scanned.',
          { name: 'key.png', type: 'image/png', content: Buffer.from('not really a png') },
        ),
      );
      expect(withFile.status, withFile.text).toBe(200);
      const later = await a.api('POST', `/tickets/${id}/comment`, {
        body: { body: 'A later reply.', internal: false },
        token: agent.token,
      });
      expect(later.status).toBe(201);
      const stored = (await outboxOf(a, id)).filter((r) => r.audience === 'customer');
      expect(stored.map((r) => r.status)).toEqual(['queued', 'queued', 'queued']);
      const [, fileRow, laterRow] = stored;
      expect(fileRow.attachment_ids).toHaveLength(1);
      // Threading is fixed when the change is made: the first reply does not reference the later one.
      expect(fileRow.headers.References.split(' ')).not.toContain(laterRow.message_id);

      // Meanwhile the ticket is deleted by hand (its transactions and files go with it; the outbox keeps its rows).
      expect(await rawRun(a, 'DELETE FROM tickets WHERE id = ?', [id])).toBe(1);
      expect(await rawCount(a, 'attachments', 'id = ?', [fileRow.attachment_ids[0]])).toBe(0);
      await a.close();
      a = undefined;

      // Second life, with SMTP: everything goes out, the same messages as stored.
      b = await startServer({ DATA_DIR: dir, MAILGATE_TOKEN, SMTP_URL: own.url, OUTBOX_POLL_MS: '50', ...store });
      const rows = await until('all sent', async () => {
        const all = ((await b!.api('GET', '/outbox?limit=500')).body.outbox as Row[]).filter((r) =>
          stored.some((x) => x.id === r.id),
        );
        return all.every((r) => r.status === 'sent') && all;
      });
      const sentFile = rows.find((r) => r.id === fileRow.id)!;
      expect(sentFile.ticket_id).toBeNull();
      expect(sentFile.attempts).toBe(1);
      expect(sentFile.last_error).toBe(
        `Sent without attachment ${fileRow.attachment_ids[0]}: no longer stored (deleted with their ticket?)`,
      );
      expect(b.logged.some((l) => l.msg.includes('sent without attachments'))).toBe(true);
      for (const r of stored) {
        const m = own.messages.find((x) => x.parsed.messageId === r.message_id)!;
        expect(m.envelope.to).toEqual([r.recipient]);
        expect(m.parsed.subject).toBe(r.subject);
        expect(m.parsed.inReplyTo).toBe(r.headers['In-Reply-To']);
        expect(refs(m).join(' ')).toBe(r.headers.References);
        const stored = (h: string) => {
          const [, name, address] = /^"(.*)" <(.*)>$/.exec(h)!;
          return [{ name, address }];
        };
        expect(addrs(m.parsed.from)).toEqual(stored(r.headers.From));
        expect(addrs(m.parsed.replyTo)).toEqual(stored(r.headers['Reply-To']));
        expect(header(m, 'auto-submitted') ?? null).toBe(r.headers['Auto-Submitted'] ?? null);
        expect(addrs(m.parsed.to)).toEqual(r.to);
        expect(m.parsed.date?.toISOString()).toBe(new Date(r.created_at).toISOString().replace(/\.\d{3}Z$/, '.000Z'));
        expect(m.parsed.text).toContain(r.body.split('\n')[0]);
      }
      const fileMail = own.messages.find((x) => x.parsed.messageId === fileRow.message_id)!;
      expect(fileMail.parsed.text).toContain('The spare key, scanned.');
      expect(fileMail.parsed.attachments).toEqual([]);
    } finally {
      await a?.close();
      await b?.close();
      await own.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
