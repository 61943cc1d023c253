import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { postMail, rawMail } from './helpers/mail.js';
import { settle } from './helpers/notify.js';
import { userByEmail } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from './helpers/smtp.js';
import { uniq, uniqueAddress } from './helpers/unique.js';

// Who gets which mail (SPEC C2), end to end: changes through the API and through /mailgate,
// mail through the outbox and the delivery worker into a real SMTP server. Every step asserts
// who received a message and, as much, who did not.

let sink: SmtpSink;
let s: TestServer;

interface Person {
  id: number;
  email: string;
  token: string;
}
let ann: Person; // agent, owns tickets
let ben: Person; // agent, team Support
let cat: Person; // agent, team Support
let dan: Person; // agent, AdminCc of the Billing queue
let queueId: number;
let teamId: number;
const ALIAS = 'billing@example.com';

/** Runs `act`, waits for its mail, and answers who received what: envelope address → mails. */
async function mailFrom(ticketOf: () => number, act: () => Promise<unknown>): Promise<Map<string, ReceivedMail[]>> {
  const before = sink.messages.length;
  await act();
  const id = ticketOf();
  await settle(s, id);
  const got = new Map<string, ReceivedMail[]>();
  for (const m of sink.messages.slice(before)) {
    if (String(m.parsed.headers.get('x-hxdesk-ticket')) !== String(id)) continue;
    expect(m.envelope.to).toHaveLength(1); // one copy per envelope recipient
    const to = m.envelope.to[0];
    got.set(to, [...(got.get(to) ?? []), m]);
  }
  return got;
}

const who = (got: Map<string, ReceivedMail[]>) => [...got.keys()].sort();
const addr = (list: { value: { address?: string }[] } | { value: { address?: string }[] }[] | undefined) =>
  [list ?? []]
    .flat()
    .flatMap((l) => l.value.map((v) => v.address))
    .sort();

async function mail(h: Record<string, string>, body: string) {
  const res = await postMail(s, rawMail({ headers: h }, body));
  expect(res.status, res.text).toBe(res.body.created ? 201 : 200);
  return res.body as { ticket_id: number; transaction_id: number; created: boolean };
}

async function ticket(id: number) {
  const res = await s.api('GET', `/tickets/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' });
  [ann, ben, cat, dan] = [await s.user('agent'), await s.user('agent'), await s.user('agent'), await s.user('agent')];
  const team = await s.api('POST', '/teams', { body: { name: 'Support' } });
  teamId = team.body.id;
  for (const u of [ben, cat])
    expect((await s.api('POST', `/teams/${teamId}/members`, { body: { user_id: u.id } })).status).toBe(201);
  const q = await s.api('POST', '/queues', {
    body: { name: 'Billing', mail_alias: ALIAS, team_id: teamId, admin_cc: [dan.id] },
  });
  expect(q.status, q.text).toBe(201);
  queueId = q.body.id;
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

describe('a customer mail with a colleague in Cc, through its life', () => {
  let id = 0;
  let carol: string;
  let dave: string;

  it('new ticket: the Cc becomes a Cc watcher; the requester gets the autoreply; the staff watchers get the new-ticket notice', async () => {
    carol = uniqueAddress('carol', 'customer.example');
    dave = uniqueAddress('dave', 'customer.example');
    const got = await mailFrom(
      () => id,
      async () => {
        const r = await mail(
          { From: `Carol Customer <${carol}>`, To: ALIAS, Cc: `Dave Colleague <${dave}>`, Subject: 'Invoice is wrong' },
          'The invoice total is off by 10 EUR.',
        );
        id = r.ticket_id;
      },
    );
    const t = await ticket(id);
    const carolUser = (await userByEmail<{ id: number; email: string; role: string }>(s, carol))!;
    const daveUser = (await userByEmail<{ id: number; email: string; role: string }>(s, dave))!;
    expect(t).toMatchObject({
      queue_id: queueId,
      team_id: teamId,
      requesters: [carolUser.id],
      cc: [daveUser.id],
      admin_cc: [],
    });
    expect(daveUser).toMatchObject({ role: 'requester' });
    // Staff watchers: the queue's AdminCc and the members of the ticket's team. Ann is neither.
    expect(who(got)).toEqual([ben.email, carol, cat.email, dan.email].sort());
    const [auto] = got.get(carol)!;
    expect(auto.parsed.headers.get('auto-submitted')).toBe('auto-replied');
    expect(addr(auto.parsed.to)).toEqual([carol]);
    for (const staff of [ben, cat, dan]) {
      const [m] = got.get(staff.email)!;
      expect(m.parsed.subject).toContain('New ticket: Invoice is wrong');
      expect(m.parsed.text).toContain('The invoice total is off by 10 EUR.');
      expect(m.parsed.text).toContain(`${s.env.PUBLIC_URL ?? ''}/tickets/${id}`);
      expect(m.parsed.text).toContain(dave); // the staff notice shows the Cc
    }
    // Customer mail links to the portal, never to a staff page.
    expect(auto.parsed.text).toMatch(/\/portal\/\S+/);
    expect(auto.parsed.text).not.toMatch(/\/tickets\/\d+/);
  });

  it('taking ownership tells nobody (the actor is never notified)', async () => {
    const got = await mailFrom(
      () => id,
      async () => {
        expect((await s.api('PATCH', `/tickets/${id}`, { body: { owner_id: ann.id }, token: ann.token })).status).toBe(
          200,
        );
      },
    );
    expect(who(got)).toEqual([]);
  });

  it('a public reply: one message To the requester, Cc the Cc (a copy each), a staff copy to the AdminCc, nothing to the author', async () => {
    const text = uniq('We corrected the invoice.');
    const got = await mailFrom(
      () => id,
      async () => {
        expect(
          (await s.api('POST', `/tickets/${id}/comment`, { body: { body: text, internal: false }, token: ann.token }))
            .status,
        ).toBe(201);
      },
    );
    expect(who(got)).toEqual([carol, dan.email, dave].sort());
    for (const customer of [carol, dave]) {
      const [m] = got.get(customer)!;
      expect(addr(m.parsed.to)).toEqual([carol]);
      expect(addr(m.parsed.cc)).toEqual([dave]);
      expect(m.parsed.text).toContain(text);
      expect(m.parsed.headers.get('auto-submitted')).toBeUndefined();
      expect(m.parsed.text).toMatch(/\/portal\/\S+/);
      expect(m.parsed.text).not.toMatch(/\/tickets\/\d+/);
    }
    // Each copy carries its own reader's portal link.
    const link = (m: ReceivedMail) => /\/portal\/\S+/.exec(m.parsed.text!)![0];
    expect(link(got.get(carol)![0])).not.toBe(link(got.get(dave)![0]));
    const [staff] = got.get(dan.email)!;
    expect(staff.parsed.text).toContain(text);
    expect(staff.parsed.text).toContain(`/tickets/${id}`);
    expect(staff.parsed.headers.get('auto-submitted')).toBe('auto-generated');
  });

  it('an internal note by the owner goes to the AdminCc only; by another agent, to the owner and the AdminCc', async () => {
    const note1 = uniq('Customer is on the old price plan.');
    const got1 = await mailFrom(
      () => id,
      async () => {
        expect(
          (await s.api('POST', `/tickets/${id}/comment`, { body: { body: note1 }, token: ann.token })).status,
        ).toBe(201);
      },
    );
    expect(who(got1)).toEqual([dan.email]);
    const note2 = uniq('Checked with finance.');
    const got2 = await mailFrom(
      () => id,
      async () => {
        expect(
          (await s.api('POST', `/tickets/${id}/comment`, { body: { body: note2 }, token: ben.token })).status,
        ).toBe(201);
      },
    );
    expect(who(got2)).toEqual([ann.email, dan.email].sort());
    for (const [m] of got2.values()) expect(m.parsed.text).toContain(note2);
    // No requester or Cc ever saw either note.
    expect(
      sink.messages.filter(
        (m) =>
          m.envelope.to.some((t) => t === carol || t === dave) &&
          (m.parsed.text?.includes(note1) || m.parsed.text?.includes(note2)),
      ),
    ).toEqual([]);
  });

  it('the requester replies to all: the owner and AdminCc get it; the Cc, who has it already, gets no second copy', async () => {
    const text = uniq('Thanks, looks right now.');
    const got = await mailFrom(
      () => id,
      async () => {
        const r = await mail(
          { From: `Carol Customer <${carol}>`, To: ALIAS, Cc: dave, Subject: `Re: [hxdesk #${id}] Invoice is wrong` },
          text,
        );
        expect(r).toMatchObject({ ticket_id: id, created: false });
      },
    );
    expect(who(got)).toEqual([ann.email, dan.email].sort());
    const [m] = got.get(ann.email)!;
    expect(m.parsed.text).toContain(text);
    expect(m.parsed.from!.value[0].name).toContain('Carol Customer');
  });

  it('the Cc replies to us alone: it is correspondence by the Cc; the requester gets it, and the owner and AdminCc', async () => {
    const text = uniq('Dave here: finance agrees.');
    const got = await mailFrom(
      () => id,
      async () => {
        const r = await mail({ From: dave, To: ALIAS, Subject: `Re: [hxdesk #${id}] Invoice is wrong` }, text);
        expect(r).toMatchObject({ ticket_id: id, created: false });
      },
    );
    expect(who(got)).toEqual([ann.email, carol, dan.email].sort());
    const txns = (await s.api('GET', `/tickets/${id}/transactions`)).body.transactions as any[];
    const daveUser = (await userByEmail<{ id: number; email: string; role: string }>(s, dave))!;
    expect(txns.at(-1)).toMatchObject({ type: 'Correspond', creator_id: daveUser.id });
    const [toCarol] = got.get(carol)!;
    expect(toCarol.parsed.text).toContain(text);
    expect(addr(toCarol.parsed.to)).toEqual([carol]);
    expect(addr(toCarol.parsed.cc)).toEqual([dave]);
  });

  it('a reply that Ccs someone new adds them as a Cc watcher (an AddWatcher transaction); our own addresses never', async () => {
    const erin = uniqueAddress('erin', 'customer.example');
    const other = await s.api('POST', '/queues', { body: { name: uniq('Sales'), mail_alias: uniqueAddress('sales') } });
    const text = uniq('Adding Erin from accounting.');
    const got = await mailFrom(
      () => id,
      async () => {
        await mail(
          {
            From: carol,
            To: ALIAS,
            Cc: `Erin <${erin}>, ${other.body.mail_alias}, ${ann.email}`,
            Subject: `Re: [hxdesk #${id}] Invoice is wrong`,
          },
          text,
        );
      },
    );
    const erinUser = (await userByEmail<{ id: number; email: string; role: string }>(s, erin))!;
    const daveUser = (await userByEmail<{ id: number; email: string; role: string }>(s, dave))!;
    expect((await ticket(id)).cc).toEqual([daveUser.id, erinUser.id]); // not the Sales alias, not the agent
    const txns = (await s.api('GET', `/tickets/${id}/transactions`)).body.transactions as any[];
    const added = txns.filter((t) => t.type === 'AddWatcher');
    expect(added.at(-1)).toMatchObject({
      field: 'cc',
      new_value: String(erinUser.id),
      creator_id: (await userByEmail<{ id: number; email: string; role: string }>(s, carol))!.id,
    });
    // Dave was not in this message: the relay reaches him; Erin was, so she gets no second copy.
    // Ann (in Cc) has it too; only Dan's staff copy and Dave's relay are sent.
    expect(who(got)).toEqual([dan.email, dave].sort());
  });
});

describe('unowned tickets and staff watchers', () => {
  it('a customer reply on an unowned ticket goes to every staff watcher; a disabled agent never gets mail', async () => {
    const frank = uniqueAddress('frank', 'customer.example');
    let id = 0;
    await mailFrom(
      () => id,
      async () => {
        id = (await mail({ From: frank, To: ALIAS, Subject: 'Refund?' }, 'Can I get a refund?')).ticket_id;
      },
    );
    expect((await s.api('PATCH', `/users/${cat.id}`, { body: { disabled: true } })).status).toBe(200);
    try {
      const got = await mailFrom(
        () => id,
        () => mail({ From: frank, To: ALIAS, Subject: `Re: [hxdesk #${id}] Refund?` }, 'Hello? Anyone?'),
      );
      expect(who(got)).toEqual([ben.email, dan.email].sort());
      // Once owned, only the owner (and AdminCc, who gets every public reply's staff copy).
      expect((await s.api('PATCH', `/tickets/${id}`, { body: { owner_id: ben.id } })).status).toBe(200);
      const got2 = await mailFrom(
        () => id,
        () => mail({ From: frank, To: ALIAS, Subject: `Re: [hxdesk #${id}] Refund?` }, 'Still waiting.'),
      );
      expect(who(got2)).toEqual([ben.email, dan.email].sort());
    } finally {
      expect((await s.api('PATCH', `/users/${cat.id}`, { body: { disabled: false } })).status).toBe(200);
    }
  });
});

describe('tickets opened by an agent', () => {
  it('for a customer on the phone: the customer (named by address) is the requester and gets the autoreply; the agent gets none', async () => {
    const gina = uniqueAddress('gina', 'customer.example');
    const hank = uniqueAddress('hank', 'customer.example');
    let id = 0;
    const got = await mailFrom(
      () => id,
      async () => {
        const res = await s.api('POST', '/tickets', {
          body: { queue_id: queueId, subject: 'Phone: printer', requesters: [`Gina Green <${gina}>`], cc: [hank] },
          token: ann.token,
        });
        expect(res.status, res.text).toBe(201);
        id = res.body.ticket.id;
        const g = (await userByEmail<{ id: number; email: string; role: string }>(s, gina))!;
        expect(res.body.ticket).toMatchObject({ requester_id: g.id, requesters: [g.id] });
        expect(res.body.ticket.cc).toHaveLength(1);
      },
    );
    expect(who(got)).toEqual([ben.email, cat.email, dan.email, gina].sort());
    expect(got.has(ann.email)).toBe(false);
    // A public reply reaches the customer, not the agent.
    const got2 = await mailFrom(
      () => id,
      async () => {
        expect(
          (
            await s.api('POST', `/tickets/${id}/comment`, {
              body: { body: 'We will call you back.', internal: false },
              token: ann.token,
            })
          ).status,
        ).toBe(201);
      },
    );
    expect(who(got2)).toEqual([dan.email, gina, hank].sort());
  });

  it('for themselves: no autoreply to the agent who opened it', async () => {
    let id = 0;
    const got = await mailFrom(
      () => id,
      async () => {
        const res = await s.api('POST', '/tickets', {
          body: { queue_id: queueId, subject: 'My laptop' },
          token: ann.token,
        });
        expect(res.status, res.text).toBe(201);
        id = res.body.ticket.id;
        expect(res.body.ticket.requesters).toEqual([ann.id]);
      },
    );
    expect(who(got)).toEqual([ben.email, cat.email, dan.email].sort());
  });
});

describe('requesters in the order they were added (requester_id is the first)', () => {
  it('an existing user named after a new address stays second: in the ticket, the list, the page, the Liquid list and the mail', async () => {
    const known = await s.user('requester'); // an older user: a lower id than the address that becomes a user below
    const newcomer = uniqueAddress('zoe', 'customer.example');
    let id = 0;
    const got = await mailFrom(
      () => id,
      async () => {
        const res = await s.api('POST', '/tickets', {
          body: {
            queue_id: queueId,
            subject: uniq('Order of requesters'),
            requesters: [`Zoe New <${newcomer}>`, known.id],
          },
          token: ann.token,
        });
        expect(res.status, res.text).toBe(201);
        id = res.body.ticket.id;
      },
    );
    const zoe = (await userByEmail<{ id: number; email: string; role: string }>(s, newcomer))!;
    expect(zoe.id).toBeGreaterThan(known.id);
    const t = await ticket(id);
    expect(t).toMatchObject({ requester_id: zoe.id, requesters: [zoe.id, known.id] });
    const listed = (await s.api('GET', `/tickets?q=${encodeURIComponent(t.subject)}`)).body.tickets as any[];
    expect(listed.map((x) => [x.id, x.requesters])).toEqual([[id, [zoe.id, known.id]]]);
    // The autoreply goes To both requesters, in that order.
    const autoreply = [...got.values()].flat().find((m) => m.envelope.to[0] === newcomer)!;
    expect([autoreply.parsed.to].flat().flatMap((l: any) => l.value.map((v: any) => v.address))).toEqual([
      newcomer,
      known.email,
    ]);
    // The ticket page lists them so.
    const page = await fetch(`${s.url}/tickets/${id}`, {
      headers: { authorization: `Bearer ${s.adminToken}`, accept: 'text/html' },
    }).then((r) => r.text());
    const people = page.slice(page.indexOf('id="people-requester"'));
    expect(people.indexOf(newcomer)).toBeGreaterThan(0);
    expect(people.indexOf(newcomer)).toBeLessThan(people.indexOf(known.email));
    // A third joins last; when the first leaves, the second (not the lowest id) becomes requester_id.
    expect(
      (await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'requester', user_id: ben.id } })).status,
    ).toBe(201);
    expect((await ticket(id)).requesters).toEqual([zoe.id, known.id, ben.id]);
    expect((await s.api('DELETE', `/tickets/${id}/watchers/requester/${zoe.id}`)).status).toBe(204);
    expect(await ticket(id)).toMatchObject({ requester_id: known.id, requesters: [known.id, ben.id] });
    // Templates list them in the same order.
    const rendered = await s.api('POST', '/templates/preview', {
      body: { subject: 'Order', body: '{% for r in ticket.requesters %}[{{ r.email }}]{% endfor %}', ticket_id: id },
    });
    expect(rendered.status, rendered.text).toBe(200);
    expect(rendered.body.body).toBe(`[${known.email}][${ben.email}]`);
  });
});

describe('watcher routes', () => {
  let id: number;
  let requester: Person;
  beforeAll(async () => {
    requester = await s.user('requester');
    const res = await s.api('POST', '/tickets', {
      body: { queue_id: queueId, subject: 'Watchers', requester_id: requester.id },
    });
    id = res.body.ticket.id;
  });

  it('adds by address (a stub user) and by id, each an AddWatcher transaction with scrip results; removes with DelWatcher', async () => {
    const add = await s.api('POST', `/tickets/${id}/watchers`, {
      body: { role: 'cc', email: 'Ivy Stone <ivy@customer.example>' },
    });
    expect(add.status, add.text).toBe(201);
    const ivy = (await userByEmail<{ id: number; email: string; role: string }>(s, 'ivy@customer.example'))!;
    expect(add.body.transaction).toMatchObject({
      type: 'AddWatcher',
      field: 'cc',
      new_value: String(ivy.id),
      old_value: null,
    });
    expect(add.body.scrip_results).toEqual([]);
    const adminCc = await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'admin_cc', user_id: ann.id } });
    expect(adminCc.status, adminCc.text).toBe(201);
    const second = await s.api('POST', `/tickets/${id}/watchers`, {
      form: { role: 'requester', user_id: String(ben.id) },
    });
    expect(second.status, second.text).toBe(201);
    expect(await ticket(id)).toMatchObject({
      requester_id: requester.id,
      requesters: [requester.id, ben.id],
      cc: [ivy.id],
      admin_cc: [ann.id],
    });

    const del = await s.api('DELETE', `/tickets/${id}/watchers/requester/${requester.id}`);
    expect(del.status, del.text).toBe(204);
    // The next requester becomes the first.
    expect(await ticket(id)).toMatchObject({ requester_id: ben.id, requesters: [ben.id] });
    const txns = (await s.api('GET', `/tickets/${id}/transactions`)).body.transactions as any[];
    expect(txns.at(-1)).toMatchObject({
      type: 'DelWatcher',
      field: 'requester',
      old_value: String(requester.id),
      new_value: null,
    });
  });

  it('bad input changes nothing: 409 already there, 422 bad address / role / requester as AdminCc, 404 unknown, 403 for requesters', async () => {
    const before = await ticket(id);
    const count = (await s.api('GET', `/tickets/${id}/transactions`)).body.transactions.length;
    expectError(
      await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'admin_cc', user_id: ann.id } }),
      409,
      'conflict',
    );
    expectError(
      await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'cc', email: 'not an address' } }),
      422,
      'validation_failed',
      ['email'],
    );
    expectError(
      await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'boss', user_id: ann.id } }),
      422,
      'validation_failed',
      ['role'],
    );
    expectError(
      await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'admin_cc', user_id: requester.id } }),
      422,
      'validation_failed',
      ['user_id'],
    );
    expectError(
      await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'cc', user_id: 999_999 } }),
      422,
      'validation_failed',
      ['user_id'],
    );
    expectError(await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'cc' } }), 422, 'validation_failed', [
      'user_id',
    ]);
    expectError(
      await s.api('POST', '/tickets/999999/watchers', { body: { role: 'cc', user_id: ann.id } }),
      404,
      'not_found',
    );
    expectError(await s.api('DELETE', `/tickets/${id}/watchers/cc/${ann.id}`), 404, 'not_found');
    expectError(await s.api('DELETE', `/tickets/${id}/watchers/boss/${ann.id}`), 422, 'validation_failed', ['role']);
    // A requester on the ticket cannot change who is on it (only by replying with a Cc).
    await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'requester', user_id: requester.id } });
    expectError(
      await s.api('POST', `/tickets/${id}/watchers`, {
        body: { role: 'cc', email: 'x@customer.example' },
        token: requester.token,
      }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('DELETE', `/tickets/${id}/watchers/admin_cc/${ann.id}`, { token: requester.token }),
      403,
      'forbidden',
    );
    const after = await ticket(id);
    expect({ ...after, updated_at: 0, requesters: after.requesters.filter((x: number) => x !== requester.id) }).toEqual(
      { ...before, updated_at: 0 },
    );
    expect((await s.api('GET', `/tickets/${id}/transactions`)).body.transactions.length).toBe(count + 1);
    expect(await userByEmail<{ id: number; email: string; role: string }>(s, 'x@customer.example')).toBeUndefined();
  });

  it('our own addresses are never watchers, and never mailed: one that became ours later is skipped', async () => {
    expectError(
      await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'cc', email: ALIAS } }),
      422,
      'validation_failed',
      ['email'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'x', cc: [`Us <${ALIAS}>`] } }),
      422,
      'validation_failed',
      ['cc.0'],
    );
    const later = uniqueAddress('later');
    expect((await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'cc', email: later } })).status).toBe(201);
    const q = await s.api('POST', '/queues', { body: { name: uniq('Later queue'), mail_alias: later } });
    expect(q.status, q.text).toBe(201);
    const got = await mailFrom(
      () => id,
      async () => {
        expect(
          (
            await s.api('POST', `/tickets/${id}/comment`, {
              body: { body: 'To everyone but us.', internal: false },
              token: ann.token,
            })
          ).status,
        ).toBe(201);
      },
    );
    expect(got.has(later)).toBe(false);
    expect(got.size).toBeGreaterThan(0);
  });

  it('create names bad people with the field: 422 requesters.1 / cc.0 / admin_cc.0, and nothing is created', async () => {
    const total = (await s.api('GET', '/tickets?limit=1')).body.total;
    expectError(
      await s.api('POST', '/tickets', {
        body: { queue_id: queueId, subject: 'x', requesters: ['ok@customer.example', 'nope'] },
      }),
      422,
      'validation_failed',
      ['requesters.1'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'x', cc: [999_999] } }),
      422,
      'validation_failed',
      ['cc.0'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'x', admin_cc: [requester.id] } }),
      422,
      'validation_failed',
      ['admin_cc.0'],
    );
    expect((await s.api('GET', '/tickets?limit=1')).body.total).toBe(total);
    expect(await userByEmail<{ id: number; email: string; role: string }>(s, 'ok@customer.example')).toBeUndefined();
    // A requester signed in cannot name other people on a new ticket.
    expectError(
      await s.api('POST', '/tickets', {
        body: { queue_id: queueId, subject: 'x', cc: ['a@customer.example'] },
        token: requester.token,
      }),
      403,
      'forbidden',
    );
  });

  it('a Cc watcher (a customer) sees the ticket and can reply; other customers cannot see it', async () => {
    const cc = await s.user('requester');
    const stranger = await s.user('requester');
    expect((await s.api('POST', `/tickets/${id}/watchers`, { body: { role: 'cc', user_id: cc.id } })).status).toBe(201);
    expect((await s.api('GET', `/tickets/${id}`, { token: cc.token })).status).toBe(200);
    const list = await s.api('GET', '/tickets', { token: cc.token });
    expect(list.body.tickets.map((t: { id: number }) => t.id)).toEqual([id]);
    // And finds it by its text, as its requester would (a long q through the index or their own tickets, a short one by LIKE).
    for (const q of ['Watchers', 'atc']) {
      const found = await s.api('GET', `/tickets?q=${q}`, { token: cc.token });
      expect(found.status, found.text).toBe(200);
      expect(
        found.body.tickets.map((t: { id: number }) => t.id),
        q,
      ).toEqual([id]);
    }
    const reply = await s.api('POST', `/tickets/${id}/comment`, { body: { body: 'Cc here.' }, token: cc.token });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.transaction).toMatchObject({ type: 'Correspond', creator_id: cc.id });
    // Their page names the people in the history: staff by name only, never by address.
    // (Their page is the portal's, decision 050.)
    const staffPage = await s.api('GET', `/tickets/${id}`, { token: cc.token, headers: { accept: 'text/html' } });
    expect(staffPage.headers.get('location')).toBe(`/portal/tickets/${id}`);
    const page = await s.api('GET', `/portal/tickets/${id}`, { token: cc.token, headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/User #\d+/);
    const ccUser = (await s.api('GET', `/users/${cc.id}`)).body;
    expect(page.text).toContain(ccUser.name);
    expect(page.text).not.toContain(ann.email);
    // The customer's history leaves out what only staff see: who was made AdminCc.
    const theirs = (await s.api('GET', `/tickets/${id}/transactions`, { token: cc.token })).body.transactions as any[];
    const staffs = (await s.api('GET', `/tickets/${id}/transactions`)).body.transactions as any[];
    expect(staffs.some((t) => t.type === 'AddWatcher' && t.field === 'admin_cc')).toBe(true);
    expect(theirs.filter((t) => t.field === 'admin_cc')).toEqual([]);
    // Their history is the public entries only (decision 050).
    expect(theirs.every((t) => t.type === 'Create' || t.type === 'Correspond')).toBe(true);
    expectError(await s.api('GET', `/tickets/${id}`, { token: stranger.token }), 404, 'not_found');
    expect((await s.api('GET', '/tickets', { token: stranger.token })).body.tickets).toEqual([]);
  });
});

describe('addresses of ours never become watchers', () => {
  it('MAIL_ADDRESSES, the IMAP account (when it is an address) and Delivered-To are ours; MAIL_ADDRESSES must be addresses', async () => {
    // The IMAP server is not running: only its user name matters here.
    const own = await startServer({
      MAIL_ADDRESSES: 'help@example.org, desk@example.org',
      IMAP_URL: 'imap://inbox%40example.org:pw@127.0.0.1:9/INBOX',
      IMAP_POLL_SECONDS: '3600',
    });
    try {
      const raw = rawMail(
        {
          from: 'Olga <olga@customer.example>',
          to: 'help@example.org',
          cc: 'desk@example.org, inbox@example.org, routed@example.org, pia@customer.example',
          subject: 'Our addresses',
          headers: { 'Delivered-To': 'routed@example.org' },
        },
        'Hello.',
      );
      const res = await postMail(own, raw);
      expect(res.status, res.text).toBe(201);
      const t = (await own.api('GET', `/tickets/${res.body.ticket_id}`)).body;
      const users = (await own.api('GET', '/users')).body.users as { id: number; email: string }[];
      expect(t.cc).toEqual([users.find((u) => u.email === 'pia@customer.example')!.id]);
      for (const a of ['help@example.org', 'desk@example.org', 'inbox@example.org', 'routed@example.org'])
        expect(users.some((u) => u.email === a)).toBe(false);
    } finally {
      await own.close();
    }
    await expect(startServer({ MAIL_ADDRESSES: 'help@example.org, not-an-address' })).rejects.toThrow(
      /MAIL_ADDRESSES must be e-mail addresses/,
    );
  });
});

describe('a new install', () => {
  it('tells its administrator of new mail in General (its AdminCc) from the first day; a queue nobody watches says so on its page', async () => {
    const sink2 = await startSmtpSink();
    const fresh = await startServer({ SMTP_URL: sink2.url, OUTBOX_POLL_MS: '20' });
    try {
      const general = (await fresh.api('GET', '/queues')).body.queues.find(
        (q: { name: string }) => q.name === 'General',
      );
      const admin = (await fresh.api('GET', '/me')).body;
      expect((await fresh.api('GET', `/queues/${general.id}`)).body).toMatchObject({
        admin_cc: [admin.id],
        team_id: null,
      });
      const r = await postMail(
        fresh,
        rawMail({ from: 'first@customer.example', to: 'help@example.org', subject: 'Day one' }, 'Hello?'),
      );
      expect(r.status, r.text).toBe(201);
      await settle(fresh, r.body.ticket_id);
      expect(sink2.messages.map((m) => [m.envelope.to[0], m.parsed.subject]).sort()).toEqual(
        [
          [admin.email, `[hxdesk #${r.body.ticket_id}] New ticket: Day one`],
          ['first@customer.example', `Re: [hxdesk #${r.body.ticket_id}] Day one`],
        ].sort(),
      );
      const page = async () =>
        (await fresh.api('GET', `/queues/${general.id}`, { headers: { accept: 'text/html' } })).text;
      expect(await page()).not.toContain('Nobody is told of new tickets');
      expect((await fresh.api('PATCH', `/queues/${general.id}`, { body: { admin_cc: [] } })).status).toBe(200);
      expect(await page()).toContain('Nobody is told of new tickets in this queue');
    } finally {
      await fresh.close();
      await sink2.close();
    }
  });
});
