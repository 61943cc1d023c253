import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { startServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { uniq } from './helpers/unique.js';

// SPEC D0 "Bounded templates" (issue 25, decision 040) over real HTTP, on both stores: a rendered
// template, canned response or signature larger than 1 MiB (UTF-8 bytes) is refused — 422
// naming the field when a person saves or renders it, a failed scrip result with nothing sent
// when a notification renders it — and the render stops at the limit. The attack: a sender
// mails a 1 MB description, and Liquid that repeats it would render hundreds of MB.

const TOKEN = 'mailgate-secret-for-bounded-templates';
const MIB = 1024 * 1024;
const TOO_LARGE = `The rendered text is larger than 1 MiB (${MIB} bytes)`;
/** The audit's canned response: 200 copies of the description. */
const REPEAT = '{% for i in (1..200) %}{{ ticket.description }}{% endfor %}';
/** Liquid rendering `times` copies of `unit` (by default 1 KiB of ASCII), whatever the scope. */
const kib = (times: number, unit = 'k'.repeat(1024)) => `{% for i in (1..${times}) %}${unit}{% endfor %}`;

let s: TestServer;
let agent: { id: number; email: string; token: string };
let requester: { id: number; email: string; token: string };

beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN: TOKEN });
  agent = await s.user('agent');
  requester = await s.user('requester');
});
afterAll(async () => {
  await s?.close();
});

/** A ticket opened by the requester's mail (to `to`) whose text is about 1 MiB of "x": the sender's description. */
async function mailedTicket(to = 'support@helpdesk.example'): Promise<{ id: number; description: string }> {
  const text = `${'x'.repeat(998)}\r\n`.repeat(Math.ceil(MIB / 1000));
  const raw = [
    `From: Customer <${requester.email}>`,
    `To: ${to}`,
    `Subject: ${uniq('Big description')}`,
    `Message-ID: <${uniq('bounded.')}@customer.example>`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
  ].join('\r\n');
  const res = await s.api('POST', '/mailgate', {
    token: null,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
    body: raw,
  });
  expect(res.status, res.text).toBe(201);
  const history = (await s.api('GET', `/tickets/${res.body.ticket_id}/transactions`)).body.transactions as {
    type: string;
    body: string;
  }[];
  const description = history.find((t) => t.type === 'Create')!.body;
  expect(description.length).toBeGreaterThanOrEqual(1_000_000);
  return { id: res.body.ticket_id, description };
}

function expectTooLarge(res: ApiResponse, path: string) {
  expectError(res, 422, 'validation_failed', [path]);
  expect(res.body.error.details[0].message).toBe(TOO_LARGE);
}

const respond = (body: string) =>
  s.api('POST', '/responses', { token: agent.token, body: { name: uniq('Response'), body } });

describe('a canned response rendered for a ticket with a 1 MB description from mail', () => {
  it('repeating the description is 422 naming body (not 200 MB of text); the same response renders an ordinary ticket', async () => {
    const big = await mailedTicket();
    const r = await respond(REPEAT);
    expect(r.status, r.text).toBe(201); // the sample ticket's description is short
    const res = await s.api('GET', `/responses/${r.body.id}/render?ticket_id=${big.id}`, { token: agent.token });
    expectTooLarge(res, 'body');
    expect(res.text.length).toBeLessThan(1000);
    const small = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: uniq('Small'), description: 'ab', requester_id: requester.id },
    });
    const ok = await s.api('GET', `/responses/${r.body.id}/render?ticket_id=${small.body.ticket.id}`, {
      token: agent.token,
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.body).toBe('ab'.repeat(200));
  });

  it('stops at the limit: a thousand repetitions, or text captured into a variable, are refused the same way', async () => {
    const big = await mailedTicket();
    for (const body of [
      '{% for i in (1..1000) %}{{ ticket.description }}{% endfor %}', // 1000 rounds: a GB without the limit
      `{% capture all %}${REPEAT}{% endcapture %}{{ all | size }}`,
      '{% for i in (1..200) %}{% capture one %}{{ ticket.description }}{% endcapture %}{{ one }}{% endfor %}',
    ]) {
      const r = await respond(body);
      expect(r.status, r.text).toBe(201);
      expectTooLarge(
        await s.api('GET', `/responses/${r.body.id}/render?ticket_id=${big.id}`, { token: agent.token }),
        'body',
      );
    }
    // The description itself (about 1 MB, under the limit) renders whole.
    const once = await respond('{{ ticket.description }}');
    const res = await s.api('GET', `/responses/${once.body.id}/render?ticket_id=${big.id}`, { token: agent.token });
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.body.body).toBe(big.description);
  });
});

describe('saving: what renders larger than 1 MiB against the sample is 422 naming the field', () => {
  it('a canned response: exactly 1 MiB is accepted, one byte more is not; the limit counts UTF-8 bytes, not characters', async () => {
    expect((await respond(kib(1024))).status).toBe(201);
    expectTooLarge(await respond(`${kib(1024)}!`), 'body');
    const accented = kib(1024, 'é'.repeat(512)); // 1 MiB of UTF-8 in 524,288 characters
    expect((await respond(accented)).status).toBe(201);
    expectTooLarge(await respond(`${accented}!`), 'body');
    const own = await respond('ok');
    expectTooLarge(
      await s.api('PATCH', `/responses/${own.body.id}`, { token: agent.token, body: { body: `${kib(1024)}!` } }),
      'body',
    );
    expect((await s.api('GET', `/responses/${own.body.id}`, { token: agent.token })).body.body).toBe('ok');
  });

  it('a template (subject or body), on create and update', async () => {
    expectTooLarge(
      await s.api('POST', '/templates', { body: { name: uniq('Huge'), subject: 'ok', body: `${kib(1024)}!` } }),
      'body',
    );
    expectTooLarge(
      await s.api('POST', '/templates', {
        body: { name: uniq('Huge'), subject: `{% for i in (1..1200) %}${'k'.repeat(900)}{% endfor %}`, body: 'ok' },
      }),
      'subject',
    );
    const tpl = await s.api('POST', '/templates', { body: { name: uniq('Fine'), subject: 'ok', body: kib(1024) } });
    expect(tpl.status, tpl.text).toBe(201);
    expectTooLarge(
      await s.api('PATCH', `/templates/${tpl.body.id}`, { body: { body: `{{ ticket.id }}${kib(1024)}` } }),
      'body',
    );
    expect((await s.api('GET', `/templates/${tpl.body.id}`)).body.body).toBe(kib(1024));
  });

  it('a user signature and a queue signature', async () => {
    const huge = `{% for i in (1..2000) %}${'y'.repeat(600)}{% endfor %}`; // 1.2 MB from 4000 characters of Liquid
    expectTooLarge(await s.api('PATCH', '/settings', { token: agent.token, body: { signature: huge } }), 'signature');
    expect((await s.api('GET', '/settings', { token: agent.token })).body.signature).toBe('');
    expectTooLarge(await s.api('POST', '/queues', { body: { name: uniq('Signed'), signature: huge } }), 'signature');
    const q = await s.api('POST', '/queues', { body: { name: uniq('Signed') } });
    expectTooLarge(await s.api('PATCH', `/queues/${q.body.id}`, { body: { signature: huge } }), 'signature');
    expect((await s.api('GET', `/queues/${q.body.id}`)).body.signature).toBe('');
  });
});

describe('a template previewed against the ticket with a 1 MB description', () => {
  it('is 422 naming the part that passes 1 MiB', async () => {
    const big = await mailedTicket();
    expectTooLarge(
      await s.api('POST', '/templates/preview', {
        body: { subject: 'Re: {{ ticket.subject }}', body: REPEAT, ticket_id: big.id },
      }),
      'body',
    );
    expectTooLarge(
      await s.api('POST', '/templates/preview', {
        body: { subject: '{{ ticket.description }}{{ ticket.description }}', body: 'ok', ticket_id: big.id },
      }),
      'subject',
    );
  });
});

describe('a notification whose template renders larger than 1 MiB', () => {
  it("is a failed scrip result saying so and sends nothing; the ticket and the other scrips' mail are kept", async () => {
    const alias = `${uniq('bomb-')}@helpdesk.example`;
    const queue = await s.api('POST', '/queues', { body: { name: uniq('Bombed'), mail_alias: alias } });
    expect(queue.status, queue.text).toBe(201);
    const tpl = await s.api('POST', '/templates', {
      body: { name: uniq('Receipt'), subject: 'Got it: {{ ticket.subject }}', body: `You wrote:\n${REPEAT}` },
    });
    expect(tpl.status, tpl.text).toBe(201);
    const scrip = await s.api('POST', '/scrips', {
      body: {
        key: uniq('bomb_receipt_'),
        condition: 'on_create',
        action: 'autoreply_requester',
        template_id: tpl.body.id,
        queue_id: queue.body.id,
      },
    });
    expect(scrip.status, scrip.text).toBe(201);

    const big = await mailedTicket(alias);
    const ticket = await s.api('GET', `/tickets/${big.id}`);
    expect(ticket.body).toMatchObject({ id: big.id, queue_id: queue.body.id, requester_id: requester.id });
    const [create] = (await s.api('GET', `/tickets/${big.id}/transactions`)).body.transactions as {
      type: string;
      scrip_results: any[];
    }[];
    expect(create.type).toBe('Create');
    expect(create.scrip_results).toContainEqual({
      scrip_id: scrip.body.id,
      key: scrip.body.key,
      action: 'autoreply_requester',
      ok: false,
      notifications: 0,
      error: `The body of template "${tpl.body.name}" renders larger than 1 MiB (${MIB} bytes); nothing was sent`,
    });
    const autoreply = create.scrip_results.find((r) => r.key === 'autoreply_on_create');
    expect(autoreply).toMatchObject({ ok: true, notifications: 1 });
    const outbox = (await s.api('GET', `/outbox?ticket_id=${big.id}&limit=500`)).body.outbox as {
      scrip_id: number | null;
      recipient: string;
    }[];
    expect(outbox.filter((r) => r.scrip_id === scrip.body.id)).toEqual([]);
    expect(outbox.filter((r) => r.scrip_id === autoreply.scrip_id).map((r) => r.recipient)).toEqual([requester.email]);
  });
});

describe('a signature that renders larger than 1 MiB when a reply is sent', () => {
  it("is left out: the reply goes with the queue's signature only (a long subject must not stop every reply)", async () => {
    const name = uniq('Desk');
    const queue = await s.api('POST', '/queues', { body: { name, signature: 'The {{ queue.name }} team' } });
    expect(queue.status, queue.text).toBe(201);
    const writer = await s.user('agent');
    // Small against the sample (a 15-character subject: 2 KB); 500 × 10 × 500 characters = 2.5 MB against this ticket.
    const signature =
      'Best,\n{{ user.name }}{% for i in (1..ticket.subject.size) %}{% for j in (1..10) %}{{ ticket.subject }}{% endfor %}{% endfor %}';
    const set = await s.api('PATCH', '/settings', { token: writer.token, body: { signature } });
    expect(set.status, set.text).toBe(200);
    const t = await s.api('POST', '/tickets', {
      body: { queue_id: queue.body.id, subject: 's'.repeat(500), requester_id: requester.id },
    });
    expect(t.status, t.text).toBe(201);
    const reply = await s.api('POST', `/tickets/${t.body.ticket.id}/comment`, {
      token: writer.token,
      body: { body: 'Fixed.', internal: false },
    });
    expect(reply.status, reply.text.slice(0, 300)).toBe(201);
    expect(reply.body.transaction.body).toBe(`Fixed.\n\n-- \nThe ${name} team`);
    // On a ticket with a short subject the same signature signs.
    const short = await s.api('POST', '/tickets', {
      body: { queue_id: queue.body.id, subject: 'Hi', requester_id: requester.id },
    });
    const signed = await s.api('POST', `/tickets/${short.body.ticket.id}/comment`, {
      token: writer.token,
      body: { body: 'Done.', internal: false },
    });
    const me = (await s.api('GET', '/settings', { token: writer.token })).body;
    expect(signed.body.transaction.body).toBe(`Done.\n\n-- \nBest,\n${me.name}${'Hi'.repeat(20)}\n\nThe ${name} team`);
  });
});
