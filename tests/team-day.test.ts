import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMail } from './helpers/mail.js';
import { settle } from './helpers/notify.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from './helpers/smtp.js';

// A five-person team's day (issue 13, "Done when"): three agents and an admin, two queues with
// AdminCc, a team; twenty customers writing in with a colleague in Cc, agents replying and
// writing notes, customers replying to all, colleagues answering through the portal link in
// their mail, tickets resolved and reopened. Every event's mail is checked against the rules of
// SPEC C2, worked out here independently of the scrip engine; the delivered messages are
// counted per recipient class and printed (the closing note of issue 13 quotes them).

type Role = 'requester' | 'cc' | 'owner' | 'admin_cc' | 'team' | 'actor';
let sink: SmtpSink;
let s: TestServer;

interface Agent {
  id: number;
  email: string;
  token: string;
  name: string;
}
let ann: Agent;
let ben: Agent;
let cat: Agent;
let dee: Agent;
const team: number[] = [];
interface Queue {
  id: number;
  alias: string;
  adminCc: number[];
  team: boolean;
}
let billing: Queue;
let tech: Queue;

interface Ticket {
  id: number;
  queue: Queue;
  owner: number | null;
  requester: string;
  cc: string;
  status: string;
}
const counts = new Map<string, number>();
const tally = (event: string, cls: string) => counts.set(`${event}|${cls}`, (counts.get(`${event}|${cls}`) ?? 0) + 1);

let rnd = 42;
const random = () => (rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];

const emailOf = new Map<number, string>();
async function idOf(email: string): Promise<number> {
  for (const [id, e] of emailOf) if (e === email) return id;
  const users = (await s.api('GET', '/users')).body.users as { id: number; email: string }[];
  for (const u of users) emailOf.set(u.id, u.email);
  const u = users.find((x) => x.email === email);
  if (!u) throw new Error(`no user ${email}`);
  return u.id;
}

/**
 * Runs one event and checks its mail: `expected` maps each address that must receive exactly
 * one message to its recipient class; nobody else may get any.
 */
async function event(name: string, t: Ticket, expected: Map<string, Role>, act: () => Promise<void>) {
  const before = sink.messages.length;
  await act();
  await settle(s, t.id);
  const got = sink.messages
    .slice(before)
    .filter((m) => String(m.parsed.headers.get('x-hxdesk-ticket')) === String(t.id));
  const to = got.map((m) => m.envelope.to[0]).sort();
  expect(to, `${name} on #${t.id}`).toEqual([...expected.keys()].sort());
  for (const m of got) {
    const cls = expected.get(m.envelope.to[0])!;
    tally(name, cls);
    checkLinks(m, cls);
  }
}

/** Customer mail links to the portal, staff mail to the ticket page. */
function checkLinks(m: ReceivedMail, cls: Role) {
  const text = m.parsed.text ?? '';
  if (cls === 'requester' || cls === 'cc') {
    expect(text).toMatch(/\/portal\/\S+/);
    expect(text).not.toMatch(/\/tickets\/\d+/);
  } else {
    expect(text).not.toMatch(/\/portal\//);
  }
}

function mail(h: Record<string, string>, body: string) {
  const lines = Object.entries({
    Date: new Date().toUTCString(),
    'Message-ID': `<day${Math.random().toString(36).slice(2)}@customer.example>`,
    ...h,
  });
  return `${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;
}

const staffOn = (t: Ticket): Map<number, Role> => {
  const m = new Map<number, Role>();
  if (t.owner !== null) m.set(t.owner, 'owner');
  for (const id of t.queue.adminCc) if (!m.has(id)) m.set(id, 'admin_cc');
  return m;
};
const staffWatchers = (t: Ticket): Map<number, Role> => {
  const m = staffOn(t);
  if (t.queue.team) for (const id of team) if (!m.has(id)) m.set(id, 'team');
  return m;
};
const addresses = (people: Map<number, Role>, except: number[]) =>
  new Map([...people].filter(([id]) => !except.includes(id)).map(([id, r]) => [emailOf.get(id)!, r]));

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '20' });
  const mk = async (role: 'agent' | 'admin', name: string) => {
    const u = await s.user(role, `${name.toLowerCase()}@team.example`);
    emailOf.set(u.id, u.email);
    return { ...u, name };
  };
  [ann, ben, cat, dee] = [
    await mk('agent', 'Ann'),
    await mk('agent', 'Ben'),
    await mk('agent', 'Cat'),
    await mk('admin', 'Dee'),
  ];
  const t = await s.api('POST', '/teams', { body: { name: 'Support' } });
  for (const u of [ann, ben]) {
    await s.api('POST', `/teams/${t.body.id}/members`, { body: { user_id: u.id } });
    team.push(u.id);
  }
  const queue = async (name: string, alias: string, adminCc: number[], withTeam: boolean): Promise<Queue> => {
    const q = await s.api('POST', '/queues', {
      body: { name, mail_alias: alias, team_id: withTeam ? t.body.id : null, admin_cc: adminCc },
    });
    expect(q.status, q.text).toBe(201);
    return { id: q.body.id, alias, adminCc, team: withTeam };
  };
  billing = await queue('Billing', 'billing@team.example', [cat.id], true);
  tech = await queue('Tech', 'tech@team.example', [dee.id], false);
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

describe("a five-person team's day", () => {
  it('every mail lands with exactly the people SPEC C2 names', async () => {
    const agents = [ann, ben, cat];
    const tickets: Ticket[] = [];
    for (let i = 1; i <= 20; i++) {
      const queue = i % 2 ? billing : tech;
      const t: Ticket = {
        id: 0,
        queue,
        owner: null,
        requester: `cust${i}@customer.example`,
        cc: `colleague${i}@customer.example`,
        status: 'new',
      };
      // 1. The customer writes in, a colleague in Cc.
      const expected = new Map<string, Role>([[t.requester, 'requester']]);
      await event('new ticket', t, expected, async () => {
        const res = await postMail(
          s,
          mail(
            {
              From: `Customer ${i} <${t.requester}>`,
              To: queue.alias,
              Cc: `Colleague ${i} <${t.cc}>`,
              Subject: `Problem ${i}`,
            },
            `Problem number ${i}.`,
          ),
        );
        expect(res.status, res.text).toBe(201);
        t.id = res.body.ticket_id;
        for (const [addr, r] of addresses(staffWatchers(t), [])) expected.set(addr, r);
      });
      await idOf(t.requester);
      await idOf(t.cc);
      tickets.push(t);
    }

    for (const t of tickets) {
      const custId = await idOf(t.requester);
      const ccId = await idOf(t.cc);
      const customers = new Map<number, Role>([
        [custId, 'requester'],
        [ccId, 'cc'],
      ]);
      // 2. Two of three tickets get an owner: an agent takes it (no mail), or is given it (owner notice).
      const r = random();
      if (r < 0.33) {
        const taker = pick(agents);
        await event('take', t, new Map(), async () => {
          expect(
            (await s.api('PATCH', `/tickets/${t.id}`, { body: { owner_id: taker.id }, token: taker.token })).status,
          ).toBe(200);
        });
        t.owner = taker.id;
      } else if (r < 0.66) {
        const owner = pick(agents);
        await event('assign', t, new Map([[owner.email, 'owner' as Role]]), async () => {
          expect(
            (await s.api('PATCH', `/tickets/${t.id}`, { body: { owner_id: owner.id }, token: dee.token })).status,
          ).toBe(200);
        });
        t.owner = owner.id;
      }
      // 3. A public reply by an agent.
      const replier = t.owner !== null ? agents.find((a) => a.id === t.owner)! : pick(agents);
      await event(
        'public reply',
        t,
        new Map([...addresses(customers, []), ...addresses(staffOn(t), [replier.id])]),
        async () => {
          expect(
            (
              await s.api('POST', `/tickets/${t.id}/comment`, {
                body: { body: `Answer for #${t.id}.`, internal: false },
                token: replier.token,
              })
            ).status,
          ).toBe(201);
        },
      );
      // 4. An internal note by someone.
      const noter = pick([...agents, dee]);
      await event('internal note', t, addresses(staffOn(t), [noter.id]), async () => {
        expect(
          (await s.api('POST', `/tickets/${t.id}/comment`, { body: { body: `Note on #${t.id}.` }, token: noter.token }))
            .status,
        ).toBe(201);
      });
      // 5. The customer replies to all (the colleague in Cc has it directly).
      const staffForCustomer = new Map([...staffOn(t), ...(t.owner === null ? staffWatchers(t) : new Map())]);
      await event('customer reply-all', t, addresses(staffForCustomer, []), async () => {
        const res = await postMail(
          s,
          mail(
            { From: t.requester, To: t.queue.alias, Cc: t.cc, Subject: `Re: [hxdesk #${t.id}] Problem` },
            `Thanks for #${t.id}.`,
          ),
        );
        expect(res.status, res.text).toBe(200);
      });
      // 6. Every other ticket: the colleague answers through the portal link of their last mail.
      if (t.id % 2 === 0) {
        const last = sink.messages
          .filter((m) => m.envelope.to[0] === t.cc && String(m.parsed.headers.get('x-hxdesk-ticket')) === String(t.id))
          .at(-1)!;
        const link = /https?:\/\/\S+\/portal\/(\S+)/.exec(last.parsed.text!)!;
        await event(
          'portal reply',
          t,
          new Map([...addresses(new Map([[custId, 'requester' as Role]]), []), ...addresses(staffForCustomer, [])]),
          async () => {
            const res = await fetch(`${s.url}/portal/${link[1]}/reply`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ body: `Colleague on #${t.id}.` }),
            });
            expect(res.status, await res.text()).toBeLessThan(400);
          },
        );
      }
      // 7. One ticket in three is resolved: the requester is told.
      if (t.id % 3 === 0) {
        const resolver = t.owner !== null ? agents.find((a) => a.id === t.owner)! : dee;
        await event('resolve', t, addresses(new Map([[custId, 'requester' as Role]]), [resolver.id]), async () => {
          expect(
            (await s.api('PATCH', `/tickets/${t.id}`, { body: { status: 'resolved' }, token: resolver.token })).status,
          ).toBe(200);
        });
      }
    }

    const classes: Role[] = ['requester', 'cc', 'owner', 'admin_cc', 'team'];
    const events = [...new Set([...counts.keys()].map((k) => k.split('|')[0]))];
    const rows = events.map((e) => `| ${e} | ${classes.map((c) => counts.get(`${e}|${c}`) ?? 0).join(' | ')} |`);
    const total = classes.map((c) => [...counts].filter(([k]) => k.endsWith(`|${c}`)).reduce((n, [, v]) => n + v, 0));
    console.log(
      [
        `| event | ${classes.join(' | ')} |`,
        `|---|${classes.map(() => '---').join('|')}|`,
        ...rows,
        `| all (${total.reduce((a, b) => a + b, 0)} messages) | ${total.join(' | ')} |`,
      ].join('\n'),
    );
    // Nobody was ever mailed about their own change, and no customer ever saw a note.
    const notes = sink.messages.filter((m) => /Note on #\d+\./.test(m.parsed.text ?? ''));
    expect(notes.every((m) => m.envelope.to[0].endsWith('@team.example'))).toBe(true);
    expect(total.reduce((a, b) => a + b, 0)).toBe(sink.messages.length);
  }, 180_000);
});
