import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawConfigRun } from './helpers/db.js';
import { postMail, rawMail } from './helpers/mail.js';
import { mailsFor, outboxOf, settle } from './helpers/notify.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { uniq } from './helpers/unique.js';
import { MENTIONS_MAX, mentionTokens } from '../src/domain/mentions.js';

// SPEC D6, the conversation, over HTTP on both stores: Markdown written in hxdesk formatted on
// the page and in the HTML part of its mail (as the SMTP server received it), its text part the
// source; mail-born text left as it came; hostile Markdown inert; @mentions in notes (AdminCc,
// a notification, the preference) and not in public replies; the quiet scrip line; ?quote=.

let sink: SmtpSink;
let s: TestServer;
type Person = { id: number; email: string; token: string };
let ann: Person; // agent, writes
let bob: Person; // agent, gets mentioned
let quiet: Person; // agent who wants no note mail
let off: Person; // disabled agent
let cust: Person; // requester
let queueId: number;

const local = (p: Person) => p.email.split('@')[0];

async function newTicket(subject = uniq('Conversation ')): Promise<number> {
  const res = await s.api('POST', '/tickets', {
    token: ann.token,
    body: { queue_id: queueId, subject, requesters: [cust.email], description: 'It is broken.' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket.id;
}

async function write(id: number, body: string, internal: boolean, who = ann) {
  const res = await s.api('POST', `/tickets/${id}/comment`, { token: who.token, body: { body, internal } });
  expect(res.status, res.text).toBe(201);
  return res.body as { transaction: { id: number }; scrip_results: { key: string; ok: boolean }[] };
}

async function page(id: number, query = '') {
  const res = await s.api('GET', `/tickets/${id}${query}`, { token: ann.token, headers: { accept: 'text/html' } });
  return res;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' });
  [ann, bob, quiet, off] = [
    await s.user('agent', `ann.${uniq('a')}@example.com`),
    await s.user('agent', `bob.${uniq('b')}@example.com`),
    await s.user('agent', `quiet.${uniq('q')}@example.com`),
    await s.user('agent', `off.${uniq('o')}@example.com`),
  ];
  cust = await s.user('requester', `cust.${uniq('c')}@customer.example`);
  expect((await s.api('PATCH', `/users/${off.id}`, { body: { disabled: true } })).status).toBe(200);
  const pref = await s.api('PATCH', '/settings', { token: quiet.token, body: { notify_notes: false } });
  expect(pref.status, pref.text).toBe(200);
  const queues = await s.api('GET', '/queues');
  queueId = queues.body.queues.find((q: { name: string }) => q.name === 'General').id;
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

const HOSTILE =
  '**bold** and _soft_\n\n- one\n- two\n\n`a<b` [site](https://example.com/a?x=1&y=2) <script>alert(1)</script> ' +
  '[x](javascript:alert(1)) [y](JAVASCRIPT:alert(2)) <img src=x onerror=alert(3)> <a href="javascript:alert(4)">raw</a>';

describe('Markdown written in hxdesk', () => {
  it('is formatted on the page and in the HTML part of its mail; the text part is the source; hostile parts stay inert', async () => {
    const id = await newTicket();
    await settle(s, id);
    const before = mailsFor(sink, id, cust.email).length;
    await write(id, HOSTILE, false);
    await settle(s, id);
    const mail = mailsFor(sink, id, cust.email).slice(before);
    expect(mail).toHaveLength(1);
    const html = String(mail[0].parsed.html);
    const text = mail[0].parsed.text ?? '';
    for (const part of [html, (await page(id)).text]) {
      expect(part).toContain('<strong>bold</strong> and <em>soft</em>');
      expect(part).toContain('<li>one</li>');
      expect(part).toMatch(/<a href="https:\/\/example\.com\/a\?x=1&amp;y=2" rel="noopener nofollow"[^>]*>site<\/a>/);
      expect(part).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(part).toContain('[x](javascript:alert(1))');
      expect(part).toContain('&lt;img src=x onerror=alert(3)&gt;');
      expect(part).toContain('&lt;a href=&quot;javascript:alert(4)&quot;&gt;raw&lt;/a&gt;');
      expect(part).not.toMatch(/<script>alert|<img|href="javascript/i);
    }
    expect(html).toMatch(/<code style="[^"]*">a&lt;b<\/code>/); // mail clients drop classes: inline styles
    // The text part reads as it was typed, with the template's words around it.
    expect(text).toContain('**bold** and _soft_\n\n- one\n- two');
    expect(text).toContain('<script>alert(1)</script>');
    expect(text).not.toContain('<strong>');
    // The customer's portal link (in the mail) shows it formatted too, as safely.
    const link = /(https?:\/\/\S+\/portal\/\S+)/.exec(text)![1];
    const { pathname, search } = new URL(link);
    const portal = await fetch(s.url + pathname + search, { headers: { accept: 'text/html' } });
    expect(portal.status).toBe(200);
    const portalHtml = await portal.text();
    expect(portalHtml).toContain('<strong>bold</strong> and <em>soft</em>');
    expect(portalHtml).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(portalHtml).not.toMatch(/<script>alert|<img|href="javascript/i);
  });

  it('the signature stays plain text after the formatted message', async () => {
    const sig = await s.api('PATCH', '/settings', { token: ann.token, body: { signature: '**Ann** from support' } });
    expect(sig.status, sig.text).toBe(200);
    const id = await newTicket();
    await settle(s, id);
    const before = mailsFor(sink, id, cust.email).length;
    await write(id, 'Try *this*.', false);
    await settle(s, id);
    const html = String(mailsFor(sink, id, cust.email).slice(before)[0].parsed.html);
    expect(html).toContain('<em>this</em>');
    expect(html).toContain('**Ann** from support'); // not <strong>: a signature is not Markdown
    expect((await page(id)).text).toMatch(/<div class="signature">-- \n\*\*Ann\*\* from support<\/div>/);
    await s.api('PATCH', '/settings', { token: ann.token, body: { signature: '' } });
  });

  it('mail-born text is shown as the sender wrote it', async () => {
    const res = await postMail(
      s,
      rawMail({ from: cust.email, subject: uniq('By mail ') }, '**not bold** and <b>tags</b>\n- not a list'),
    );
    expect(res.status, res.text).toBe(201);
    const html = (await page(res.body.ticket_id)).text;
    expect(html).toContain('**not bold** and &lt;b&gt;tags&lt;/b&gt;');
    const history = await transactionsOf(s, res.body.ticket_id);
    expect(history[0].message_id).not.toBeNull(); // how mail is told apart from text written here
    expect(html).not.toContain('<strong>not bold');
    expect(html).not.toContain('<li>not a list');
  });
});

describe('@mentions', () => {
  it('reads @local-part and @address tokens, not addresses in text, quotes or code', () => {
    expect(mentionTokens('@Ann, (@bob.builder) and @cat@example.com. Thanks @dan.')).toEqual([
      'ann',
      'bob.builder',
      'cat@example.com',
      'dan',
    ]);
    expect(mentionTokens('write to ann@example.com or x@y')).toEqual([]);
    expect(mentionTokens('> @quoted earlier\n`@code` and\n```\n@fenced\n```\n@real')).toEqual(['real']);
    const many = Array.from({ length: 30 }, (_, i) => `@p${i}`).join(' ');
    expect(mentionTokens(many)).toHaveLength(MENTIONS_MAX);
  });

  it('a note makes the mentioned staff AdminCc (a history line) and tells them; requesters, disabled and unknown names stay text', async () => {
    const id = await newTicket();
    await settle(s, id);
    const note = await write(
      id,
      `@${local(bob)} please look. Not @${local(cust)}, @${local(off)}, @nobody or \`@${local(quiet)}\`.\n> @${local(quiet)} quoted`,
      true,
    );
    const t = await ticketOf(s, id);
    expect(t.admin_cc).toEqual([bob.id]);
    const history = await transactionsOf(s, id);
    const added = history.filter((x) => x.type === 'AddWatcher');
    expect(added).toEqual([
      expect.objectContaining({ field: 'admin_cc', new_value: String(bob.id), creator_id: ann.id }),
    ]);
    expect(added[0].id).toBeLessThan(note.transaction.id); // AdminCc first, then the note that tells them
    // The queue's AdminCc (the admin) hears of every note; bob now too, as AdminCc of the ticket.
    const rows = (await outboxOf(s, id)).filter((r) => r.transaction_id === note.transaction.id);
    expect(rows.map((r) => r.recipient)).toContain(bob.email);
    expect(rows.map((r) => r.recipient)).not.toContain(quiet.email);
    await settle(s, id);
    const got = mailsFor(sink, id, bob.email);
    expect(got.map((m) => m.parsed.text ?? '').join('\n')).toContain(`@${local(bob)} please look.`);
  });

  it('a whole address names one person; mentioning someone twice or the owner adds nobody again', async () => {
    const id = await newTicket();
    await write(id, `@${bob.email} and again @${local(bob)}`, true);
    expect((await ticketOf(s, id)).admin_cc).toEqual([bob.id]);
    await write(id, `@${local(bob)} once more`, true);
    expect((await transactionsOf(s, id)).filter((x) => x.type === 'AddWatcher')).toHaveLength(1);
  });

  it('someone who turned note mail off is added but not mailed (their preference wins)', async () => {
    const id = await newTicket();
    const note = await write(id, `cc @${local(quiet)}`, true);
    expect((await ticketOf(s, id)).admin_cc).toEqual([quiet.id]);
    const rows = (await outboxOf(s, id)).filter((r) => r.transaction_id === note.transaction.id);
    expect(rows.length).toBeGreaterThan(0); // the note went to the queue's AdminCc
    expect(rows.map((r) => r.recipient)).not.toContain(quiet.email);
  });

  it('in a public reply a mention is plain text: nobody is added or told', async () => {
    const id = await newTicket();
    const reply = await write(id, `Thanks! @${local(bob)} knows more.`, false);
    expect((await ticketOf(s, id)).admin_cc).toEqual([]);
    const rows = (await outboxOf(s, id)).filter((r) => r.transaction_id === reply.transaction.id);
    expect(rows.map((r) => r.recipient)).not.toContain(bob.email);
  });
});

describe('the scrip line under an entry', () => {
  it('is one quiet line counting who was told, opening to the details; a failure stands out, open; none when nothing happened', async () => {
    const id = await newTicket();
    await write(id, 'Looking into it.', false);
    const html = (await page(id)).text;
    expect(html).toMatch(/<details class="scrip-line"><summary>2 people notified<\/summary>/);
    expect(html).toContain('notify_requester_on_correspond');
    const scrip = await s.api('POST', '/scrips', {
      body: {
        key: uniq('broken_'),
        condition: 'on_comment',
        action: 'set_status',
        queue_id: queueId,
        config: { status: 'open' },
      },
    });
    expect(scrip.status, scrip.text).toBe(201);
    // Damaged behind the API's back (a hand edit), as tests/notifications.test.ts does.
    expect(await rawConfigRun(s, 'UPDATE scrips SET config=\'{"status":"bogus"}\' WHERE id=?', [scrip.body.id])).toBe(
      1,
    );
    try {
      const note = await write(id, 'A note that sets off a broken scrip.', true);
      expect(note.scrip_results.some((r) => !r.ok)).toBe(true);
      const after = (await page(id)).text;
      expect(after).toMatch(
        /<details class="scrip-line has-failed" open=""><summary><strong class="scrip-failed">1 scrip failed<\/strong> · 1 person notified<\/summary>/,
      );
      expect(after).toContain('config.status must be one of');
      // Three entries told people; a change whose scrips did nothing (a priority) has no line.
      const changed = await s.api('PATCH', `/tickets/${id}`, { token: ann.token, body: { priority: 5 } });
      expect(changed.status, changed.text).toBe(200);
      const lines = (await page(id)).text.match(/<details class="scrip-line/g) ?? [];
      expect(lines).toHaveLength(3);
    } finally {
      await s.api('DELETE', `/scrips/${scrip.body.id}`);
    }
  });
});

describe('Reply quoting without JavaScript', () => {
  it('?quote=<entry> starts the reply box with the entry quoted; a note or a stranger is refused in words', async () => {
    const id = await newTicket();
    const reply = await write(id, 'First line\n\nSecond **line**', false);
    const note = await write(id, 'internal', true);
    const html = (await page(id)).text;
    expect(html).toContain(`href="/tickets/${id}?quote=${reply.transaction.id}#reply-form"`);
    expect(html).not.toContain(`?quote=${note.transaction.id}`);
    const quoted = await page(id, `?quote=${reply.transaction.id}`);
    expect(quoted.status).toBe(200);
    const box = /<textarea id="reply-body"[^>]*>([\s\S]*?)<\/textarea>/.exec(quoted.text)![1];
    expect(box).toMatch(
      /^\nOn \d{4}-\d\d-\d\d \d\d:\d\d, agent \d+ wrote:\n&gt; First line\n&gt;\n&gt; Second \*\*line\*\*\n\n$/,
    );
    for (const bad of [`?quote=${note.transaction.id}`, '?quote=999999', '?quote=abc']) {
      const res = await page(id, bad);
      expect(res.status, bad).toBe(422);
      expect(res.text).toMatch(/quote/i);
    }
  });
});
