import { rawRun } from './helpers/db.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { startServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/expect.js';

// SPEC D6 "Lists that show who wrote in", "Who is this customer" and "First run" (decision 055),
// over HTTP on both stores: the requester and priority of each list row (JSON and HTML), the
// Status, Owner and Queue sorts (unowned last either way), the requester and requester_domain
// filters, the ticket page's Customer panel, and the first-run checklist of an empty install.

let s: TestServer;
const clock = testClock('2026-03-02T09:00:00.000Z');
const staff: Record<'zed' | 'amy' | 'bob', number> = {} as never;
const people: Record<'alice' | 'carol' | 'dave' | 'erin' | 'frank', { id: number; token: string; email: string }> =
  {} as never;
const queue: Record<'General' | 'Billing' | 'Accounts', number> = {} as never;
const t: Record<string, number> = {};

type Who = keyof typeof people;
const FIXTURE: [string, Who, keyof typeof queue, string, keyof typeof staff | null, number][] = [
  // name, requester, queue, status, owner, priority
  ['t1', 'alice', 'General', 'new', 'zed', 0],
  ['t2', 'alice', 'Billing', 'resolved', null, 30],
  ['t3', 'alice', 'Accounts', 'open', 'amy', 0],
  ['t4', 'alice', 'General', 'stalled', 'bob', 0],
  ['t5', 'alice', 'Billing', 'rejected', null, 0],
  ['t6', 'alice', 'General', 'open', 'zed', 0],
  ['t7', 'alice', 'General', 'resolved', 'amy', 0],
  ['t8', 'carol', 'Accounts', 'deleted', 'amy', 90],
  ['t9', 'dave', 'General', 'new', null, 0],
  ['t10', 'erin', 'General', 'open', 'bob', 5],
  ['t11', 'frank', 'Billing', 'open', null, 0],
];
const nameOf = (id: number) => Object.entries(t).find(([, v]) => v === id)?.[0] ?? `#${id}`;

async function list(qs: string, token?: string) {
  const res = await s.api('GET', `/tickets?${qs}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body as { tickets: Record<string, any>[]; total: number };
}
const names = async (qs: string) => (await list(qs)).tickets.map((x) => nameOf(x.id));
async function html(path: string, token?: string) {
  const res = await s.api('GET', path, { token, headers: { accept: 'text/html' } });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.text;
}
/** The HTML of one list row. */
const rowOf = (page: string, id: number) => {
  const m = new RegExp(`<tr data-id="${id}"[\\s\\S]*?</tr>`).exec(page);
  expect(m, `row of #${id}`).not.toBeNull();
  return m![0];
};

beforeAll(async () => {
  s = await startServer({}, { clock });
  const mk = async (email: string, name: string, role: string) => {
    const res = await s.api('POST', '/users', { body: { email, name, role } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as number;
  };
  staff.zed = await mk('zed@ours.example', 'Zed Agent', 'agent');
  staff.amy = await mk('amy@ours.example', 'Amy Agent', 'agent');
  staff.bob = await mk('bob@ours.example', 'bob agent', 'agent');
  const emails: Record<Who, [string, string]> = {
    alice: ['alice@acme.example', 'Alice Ames'],
    carol: ['carol@acme.example', ''],
    dave: ['dave@gmail.com', 'Dave'],
    erin: ['erin@gmail.com', 'Erin'],
    frank: ['frank@solo.example', 'Frank'],
  };
  for (const [who, [email, name]] of Object.entries(emails) as [Who, [string, string]][]) {
    const u = await s.user('requester', email);
    expect((await s.api('PATCH', `/users/${u.id}`, { body: { name } })).status).toBe(200);
    people[who] = u;
  }
  const queues = (await s.api('GET', '/queues')).body.queues as { id: number; name: string }[];
  queue.General = queues.find((q) => q.name === 'General')!.id;
  queue.Billing = (await s.api('POST', '/queues', { body: { name: 'Billing' } })).body.id;
  queue.Accounts = (await s.api('POST', '/queues', { body: { name: 'Accounts' } })).body.id;
  for (const [name, who, q, status, owner, priority] of FIXTURE) {
    clock.advance(60_000);
    const res = await s.api('POST', '/tickets', {
      body: {
        queue_id: queue[q],
        subject: `Laptop ${name}`,
        description: 'It does not start',
        status,
        owner_id: owner ? staff[owner] : null,
        requester_id: people[who].id,
        priority,
      },
    });
    expect(res.status, res.text).toBe(201);
    t[name] = res.body.ticket.id;
  }
});
afterAll(async () => {
  await s?.close();
});

describe('list rows name who wrote in', () => {
  it('each ticket in the list JSON has its requester (id, name, address) and priority', async () => {
    const body = await list('sort=id');
    const byName = Object.fromEntries(body.tickets.map((x) => [nameOf(x.id), x]));
    expect(byName.t1.requester).toEqual({ id: people.alice.id, name: 'Alice Ames', email: 'alice@acme.example' });
    expect(byName.t8.requester).toEqual({ id: people.carol.id, name: '', email: 'carol@acme.example' });
    expect(byName.t8.priority).toBe(90);
    expect(byName.t1.priority).toBe(0);
  });

  it('a requester reads their own tickets with themselves as requester', async () => {
    const body = await list('', people.alice.token);
    expect(body.total).toBe(7);
    for (const x of body.tickets) expect(x.requester).toEqual(expect.objectContaining({ email: 'alice@acme.example' }));
  });

  it('the HTML row shows the requester beside the subject, and the priority only when not 0', async () => {
    const page = await html('/tickets?sort=id');
    const t8 = rowOf(page, t.t8);
    expect(t8).toContain('carol@acme.example'); // no name: the address
    expect(t8).toMatch(/class="priority-badge"[^>]*>.*P90/);
    const t1 = rowOf(page, t.t1);
    expect(t1).toContain('Alice Ames');
    expect(t1).not.toContain('priority-badge');
    // The seven selectable columns of A are unchanged: the picker offers the same seven.
    expect([...page.matchAll(/type="checkbox" name="columns" value="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'ID',
      'Subject',
      'Status',
      'Queue',
      'Owner',
      'Created',
      'Updated',
    ]);
  });

  it('a live answer (live_ids) carries the requester too', async () => {
    const res = await s.api('GET', `/tickets?live_ids=${t.t8}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.rows[0].ticket.requester.email).toBe('carol@acme.example');
  });
});

const LIFECYCLE = ['new', 'open', 'stalled', 'resolved', 'rejected', 'deleted'];
const ownerName: Record<string, string> = { zed: 'zed agent', amy: 'amy agent', bob: 'bob agent' };
/** The fixture in the order a sort must give: by key, then by id in the same direction. */
function expected(
  key: (r: (typeof FIXTURE)[number]) => number | string,
  desc: boolean,
  last?: (r: (typeof FIXTURE)[number]) => boolean,
) {
  return [...FIXTURE]
    .sort((a, b) => {
      if (last && last(a) !== last(b)) return last(a) ? 1 : -1;
      const ka = key(a);
      const kb = key(b);
      const c = ka < kb ? -1 : ka > kb ? 1 : Number(a[0].slice(1)) - Number(b[0].slice(1));
      return desc ? -c : c;
    })
    .map((r) => r[0]);
}

describe('Status, Owner and Queue sort', () => {
  it('status sorts by the lifecycle, either way', async () => {
    expect(await names('sort=status')).toEqual(expected((r) => LIFECYCLE.indexOf(r[3]), false));
    expect(await names('sort=-status')).toEqual(expected((r) => LIFECYCLE.indexOf(r[3]), true));
  });

  it('owner sorts by the owner’s name ignoring case, unowned last either way', async () => {
    const unowned = (r: (typeof FIXTURE)[number]) => r[4] === null;
    const key = (r: (typeof FIXTURE)[number]) => (r[4] ? ownerName[r[4]] : '');
    const asc = await names('sort=owner');
    expect(asc).toEqual(expected(key, false, unowned));
    expect(asc.slice(0, 3)).toEqual(['t3', 't7', 't8']); // Amy's first
    expect(asc.slice(-4)).toEqual(['t2', 't5', 't9', 't11']);
    const desc = await names('sort=-owner');
    expect(desc).toEqual(expected(key, true, unowned));
    expect(desc.slice(-4)).toEqual(['t11', 't9', 't5', 't2']);
  });

  it('queue sorts by the queue’s name, with filters, text search and paging', async () => {
    const byQueue = expected((r) => r[2], false);
    expect(await names('sort=queue')).toEqual(byQueue);
    expect(await names('sort=-queue')).toEqual(expected((r) => r[2], true));
    expect(await names('sort=queue&status=open')).toEqual(
      byQueue.filter((n) => ['t3', 't6', 't10', 't11'].includes(n)),
    );
    // A text search (the held set on SQLite) keeps the order.
    expect(await names('sort=queue&q=Laptop')).toEqual(byQueue);
    expect(await names('sort=queue&limit=4&offset=4')).toEqual(byQueue.slice(4, 8));
  });

  it('an unknown sort is refused in words', async () => {
    const res = await s.api('GET', '/tickets?sort=requester');
    expectError(res, 422, 'validation_failed', 'sort');
  });

  it('the Status, Owner and Queue headers are sort links that say their order (aria-sort)', async () => {
    const page = await html('/tickets');
    for (const [col, key] of [
      ['Status', 'status'],
      ['Owner', 'owner'],
      ['Queue', 'queue'],
    ]) {
      const th = new RegExp(`<th[^>]*data-column="${col}"[\\s\\S]*?</th>`).exec(page)![0];
      expect(th).toContain(`href="/tickets?sort=${key}"`); // A→Z first
      expect(th).not.toContain('aria-sort');
    }
    const sorted = await html('/tickets?sort=owner');
    const th = /<th[^>]*data-column="Owner"[\s\S]*?<\/th>/.exec(sorted)![0];
    expect(th).toContain('aria-sort="ascending"');
    expect(th).toContain('href="/tickets?sort=-owner"');
    const again = /<th[^>]*data-column="Owner"[\s\S]*?<\/th>/.exec(await html('/tickets?sort=-owner'))![0];
    expect(again).toContain('aria-sort="descending"');
    // Each row's live sort key is its place in that order, unowned after every name.
    const keyOf = (page: string, id: number) =>
      JSON.parse(/data-key="([^"]+)"/.exec(rowOf(page, id))![1].replace(/&quot;/g, '"'));
    expect(keyOf(sorted, t.t9)[0]).toBeGreaterThan(keyOf(sorted, t.t1)[0]);
  });

  it('a saved view keeps a new sort', async () => {
    const res = await s.api('POST', '/saved-views', {
      body: { name: 'By owner', filters: { sort: 'owner', status: ['open'] }, columns: ['Subject', 'Owner'] },
    });
    expect(res.status, res.text).toBe(201);
    expect(await names(`view_id=${res.body.id}`)).toEqual(['t3', 't10', 't6', 't11']);
  });
});

describe('requester filters', () => {
  it('requester_id lists one person’s tickets', async () => {
    expect((await names(`requester_id=${people.alice.id}&sort=id`)).sort()).toEqual(
      ['t1', 't2', 't3', 't4', 't5', 't6', 't7'].sort(),
    );
  });

  it('requester_domain lists the tickets of everyone at a domain', async () => {
    expect(await names('requester_domain=acme.example&sort=id')).toEqual([
      't1',
      't2',
      't3',
      't4',
      't5',
      't6',
      't7',
      't8',
    ]);
    expect(await names('requester_domain=ACME.example&sort=id')).toHaveLength(8);
    expect(await names('requester_domain=solo.example')).toEqual(['t11']);
    // Only the end of the address: "me.example" is not "acme.example".
    expect(await names('requester_domain=me.example')).toEqual([]);
    expectError(await s.api('GET', '/tickets?requester_domain=%25'), 422, 'validation_failed', 'requester_domain');
  });
});

/** The Customer panel of a ticket page, or null. */
async function panel(id: number, token?: string) {
  const page = await html(`/tickets/${id}`, token);
  return /<section id="customer"[\s\S]*?<\/section>/.exec(page)?.[0] ?? null;
}
const listed = (p: string) => [...p.matchAll(/<li data-id="(\d+)"/g)].map((m) => nameOf(Number(m[1])));

describe('who is this customer', () => {
  it('shows the requester’s other tickets: active first, then the most recent, five, and a link to all', async () => {
    const p = (await panel(t.t6))!;
    expect(p).toContain('Alice Ames');
    // Active (stalled t4, open t3, new t1) newest first, then inactive newest first; t2 is the sixth.
    expect(listed(p)).toEqual(['t4', 't3', 't1', 't7', 't5']);
    expect(p).toContain(`href="/tickets?requester_id=${people.alice.id}"`);
    expect(p).toContain('All 7 tickets');
  });

  it('names the organization when other requesters share a domain that is not free mail', async () => {
    const p = (await panel(t.t6))!;
    expect(p).toContain('acme.example · 2 people');
    expect(p).toContain('href="/tickets?requester_domain=acme.example"');
    const carol = (await panel(t.t8))!;
    expect(carol).toContain('acme.example · 2 people');
    expect(listed(carol)).toEqual([]);
    expect(carol).not.toContain('All 1 tickets');
    // Dave and Erin share gmail.com: a provider, not an organization. Frank is alone at solo.example.
    expect(await panel(t.t9)).not.toContain('gmail.com ·');
    expect(await panel(t.t11)).not.toContain('solo.example ·');
  });

  it('counts the people at a big domain up to 1,000, then says 1,000+', async () => {
    const r = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'From a big company', requesters: ['first@big.example'] },
    });
    expect(r.status, r.text).toBe(201);
    const now = new Date().toISOString();
    // 999 more (some spelled in capitals: the domain is compared without letter case), then one more.
    const add = (from: number, to: number) =>
      rawRun(
        s,
        `INSERT INTO users (email, name, role, created_at, updated_at)
         WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})
         SELECT 'p' || i || (CASE WHEN i % 2 = 0 THEN '@BIG.example' ELSE '@big.example' END), '', 'requester', ?, ? FROM n`,
        [now, now],
      );
    await add(1, 999);
    expect(await panel(r.body.ticket.id)).toContain('big.example · 1,000 people');
    await add(1000, 1000);
    expect(await panel(r.body.ticket.id)).toContain('big.example · 1,000+ people');
  });

  it('is not shown to the requester', async () => {
    const res = await s.api('GET', `/tickets/${t.t6}`, { token: people.alice.token, headers: { accept: 'text/html' } });
    // Their page (or a redirect to the portal's) has no Customer panel.
    expect(res.text).not.toContain('id="customer"');
  });
});

describe('first run', () => {
  it('the landing list of an install in use has no checklist', async () => {
    expect(await html('/tickets')).not.toContain('id="first-run"');
  });

  it('an empty install says what to do first, each step ticked when done', async () => {
    const fresh = await startServer();
    try {
      const steps = async (token?: string) => {
        const page = (await fresh.api('GET', '/tickets', { token, headers: { accept: 'text/html' } })).text;
        const box = /<section class="first-run"[\s\S]*?<\/section>/.exec(page)?.[0];
        return box ? [...box.matchAll(/data-done="(true|false)"/g)].map((m) => m[1] === 'true') : null;
      };
      const page = (await fresh.api('GET', '/', { headers: { accept: 'text/html' } })).headers.get('location')!;
      const landing = (await fresh.api('GET', page, { headers: { accept: 'text/html' } })).text;
      expect(landing).toContain('Getting started');
      expect(landing).toContain('href="/queues"');
      expect(landing).toContain('href="/users"');
      expect(await steps()).toEqual([false, false, false]);
      const general = (await fresh.api('GET', '/queues')).body.queues[0].id;
      expect(
        (await fresh.api('PATCH', `/queues/${general}`, { body: { mail_alias: 'help@shop.example' } })).status,
      ).toBe(200);
      expect(await steps()).toEqual([true, false, false]);
      expect((await fresh.api('GET', '/tickets', { headers: { accept: 'text/html' } })).text).toContain(
        'help@shop.example',
      );
      const agent = await fresh.user('agent', 'first@shop.example');
      expect(await steps()).toEqual([true, true, false]);
      // An agent sees the same steps, without the admin links.
      const forAgent = (await fresh.api('GET', '/tickets', { token: agent.token, headers: { accept: 'text/html' } }))
        .text;
      expect(forAgent).toContain('Getting started');
      expect(forAgent).not.toContain('href="/queues"');
      expect((await fresh.api('POST', '/tickets', { body: { queue_id: general, subject: 'Test mail' } })).status).toBe(
        201,
      );
      expect(await steps()).toBeNull(); // every step done: the list alone
    } finally {
      await fresh.close();
    }
  });

  it('an install with its own addresses (MAIL_ADDRESSES) has its mail set up; a ticket ticks the test mail', async () => {
    const fresh = await startServer({ MAIL_ADDRESSES: 'support@shop.example' });
    try {
      expect(
        (
          await fresh.api('POST', '/tickets', {
            body: { queue_id: (await fresh.api('GET', '/queues')).body.queues[0].id, subject: 'Hello' },
          })
        ).status,
      ).toBe(201);
      const page = (await fresh.api('GET', '/tickets', { headers: { accept: 'text/html' } })).text;
      const box = /<section class="first-run"[\s\S]*?<\/section>/.exec(page)![0];
      expect([...box.matchAll(/data-done="(true|false)"/g)].map((m) => m[1])).toEqual(['true', 'false', 'true']);
      expect(box).toContain('support@shop.example');
    } finally {
      await fresh.close();
    }
  });
});
