import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { startServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/expect.js';
import { TICKET_KEYS } from './helpers/reads.js';

// GET /tickets parameters (SPEC A and B4) against a fixture built through the API. Every
// assertion names the exact set of tickets that must match, so the others must not.

let s: TestServer;
let adminId: number;
const u: Record<'ag1' | 'ag2' | 'ag3' | 'rq1' | 'rq2', { id: number; token: string }> = {} as never;
let T1: number; // members ag1, ag2
let T2: number; // members ag2, ag3
let T3: number; // no members
let GENERAL: number;
let SALES: number; // team T1
let SUPPORT: number; // team T2
const t: Record<string, number> = {}; // fixture name -> ticket id

type Who = 'ag1' | 'ag2' | 'ag3' | 'rq1' | 'rq2' | 'admin' | null;
interface Spec {
  name: string;
  queue: () => number;
  subject: string;
  description: string;
  status: string;
  owner: Who;
  team?: () => number | null;
  requester: Who;
  priority: number;
  cf?: Record<string, unknown>;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const idOf = (w: Who) => (w === null ? null : w === 'admin' ? adminId : u[w].id);
/** The server's time, moved by the tests (a later change gets a later stamp without waiting). */
const clock = testClock();

// Ticket team in comments: the queue's team unless `team` says otherwise.
const SPECS: Spec[] = [
  {
    name: 't1',
    queue: () => SUPPORT,
    subject: 'Printer on fire',
    description: 'The office printer emits smoke',
    status: 'new',
    owner: 'ag1',
    requester: 'rq1',
    priority: 10,
    cf: { region: 'eu', tier: 1 },
  }, // T2
  {
    name: 't2',
    queue: () => SUPPORT,
    subject: 'VPN drops hourly',
    description: 'connection resets',
    status: 'open',
    owner: 'ag2',
    requester: 'rq2',
    priority: 50,
    cf: { region: 'us', tier: 2 },
  }, // T2
  {
    name: 't3',
    queue: () => SALES,
    subject: 'Quote request for 50 seats',
    description: 'pricing "enterprise" plan, 100% discount?',
    status: 'open',
    owner: 'ag3',
    requester: 'rq1',
    priority: 20,
    cf: { region: 'eu', tier: 2 },
  }, // T1
  {
    name: 't4',
    queue: () => SALES,
    subject: 'Invoice copy',
    description: 'need a PDF',
    status: 'stalled',
    owner: null,
    requester: 'rq2',
    priority: 0,
    cf: { region: 'apac' },
  }, // T1
  {
    name: 't5',
    queue: () => GENERAL,
    subject: 'Ärger mit Übersetzung',
    description: 'Straße ÖFFNUNG Crème Brûlée',
    status: 'new',
    owner: 'ag1',
    requester: 'admin',
    priority: 70,
  }, // none
  {
    name: 't6',
    queue: () => GENERAL,
    subject: 'Password reset',
    description: 'forgot password',
    status: 'resolved',
    owner: 'ag2',
    team: () => T1,
    requester: 'rq1',
    priority: 30,
    cf: { region: 'us', tier: 1 },
  }, // T1
  {
    name: 't7',
    queue: () => SUPPORT,
    subject: 'Slow laptop',
    description: 'it is slow',
    status: 'rejected',
    owner: 'ag3',
    team: () => null,
    requester: 'rq2',
    priority: 5,
    cf: { tier: 3 },
  }, // none
  {
    name: 't8',
    queue: () => GENERAL,
    subject: 'Mailbox full',
    description: 'quota exceeded',
    status: 'open',
    owner: 'ag1',
    team: () => T2,
    requester: 'rq1',
    priority: 90,
    cf: { region: 'eu', tier: 1 },
  }, // T2
  {
    name: 't9',
    queue: () => SALES,
    subject: 'Contract renewal',
    description: 'renew',
    status: 'new',
    owner: 'ag2',
    requester: 'admin',
    priority: 40,
  }, // T1
  {
    name: 't10',
    queue: () => SUPPORT,
    subject: 'Keyboard issue',
    description: 'keys stuck',
    status: 'open',
    owner: 'ag3',
    requester: 'rq1',
    priority: 60,
    cf: { region: 'apac', tier: 2 },
  }, // T2
  {
    name: 't11',
    queue: () => GENERAL,
    subject: 'MiXeD CaSe Subject',
    description: 'lowercase words',
    status: 'deleted',
    owner: 'ag1',
    requester: 'rq2',
    priority: 100,
    cf: { region: 'us' },
  }, // none
  {
    name: 't12',
    queue: () => SUPPORT,
    subject: 'Monitor flicker',
    description: 'flickers',
    status: 'stalled',
    owner: 'ag2',
    requester: 'admin',
    priority: 15,
  }, // T2
];
const ALL = SPECS.map((x) => x.name);

/** GET /tickets with a query string; returns the whole (checked) response body. */
async function list(qs: string, token?: string) {
  const res = await s.api('GET', `/tickets${qs ? `?${qs}` : ''}`, { token });
  expect(res.status, `${qs}: ${res.text}`).toBe(200);
  // SPEC B4's four, and whether the total is exact (decision 085: these lists are far below its bound).
  expect(Object.keys(res.body).sort()).toEqual(['limit', 'offset', 'tickets', 'total', 'total_exact']);
  expect(res.body.total_exact).toBe(true);
  return res.body as { tickets: Record<string, any>[]; total: number; limit: number; offset: number };
}

/** The fixture names of the tickets a query returns, sorted, checked against `total`. */
async function names(qs: string, token?: string): Promise<string[]> {
  const body = await list(qs, token);
  const byId = new Map(Object.entries(t).map(([n, id]) => [id, n]));
  const found = body.tickets.map((x) => byId.get(x.id) ?? `#${x.id}`);
  expect(body.total, qs).toBe(found.length);
  return found.sort(byName);
}
const byName = (a: string, b: string) => Number(a.slice(1)) - Number(b.slice(1)) || a.localeCompare(b);
const set = (...n: string[]) => [...n].sort(byName);
const enc = encodeURIComponent;

beforeAll(async () => {
  s = await startServer({}, { clock });
  adminId = (await s.api('GET', '/me')).body.id;
  for (const name of ['ag1', 'ag2', 'ag3'] as const) u[name] = await s.user('agent', `${name}@example.com`);
  for (const name of ['rq1', 'rq2'] as const) u[name] = await s.user('requester', `${name}@example.com`);
  const team = async (name: string, members: string[]) => {
    const res = await s.api('POST', '/teams', { body: { name } });
    expect(res.status, res.text).toBe(201);
    for (const m of members)
      expect(
        (await s.api('POST', `/teams/${res.body.id}/members`, { body: { user_id: u[m as 'ag1'].id } })).status,
      ).toBe(201);
    return res.body.id as number;
  };
  T1 = await team('Team One', ['ag1', 'ag2']);
  T2 = await team('Team Two', ['ag2', 'ag3']);
  T3 = await team('Team Empty', []);
  GENERAL = (await s.api('GET', '/queues')).body.queues.find((q: { name: string }) => q.name === 'General').id;
  SALES = (await s.api('POST', '/queues', { body: { name: 'Sales', team_id: T1 } })).body.id;
  SUPPORT = (await s.api('POST', '/queues', { body: { name: 'Support', team_id: T2 } })).body.id;
  expect(
    (
      await s.api('POST', '/custom-fields', {
        body: { key: 'region', name: 'Region', type: 'select', options: ['eu', 'us', 'apac'] },
      })
    ).status,
  ).toBe(201);
  expect((await s.api('POST', '/custom-fields', { body: { key: 'tier', name: 'Tier', type: 'number' } })).status).toBe(
    201,
  );

  for (const x of SPECS) {
    const res = await s.api('POST', '/tickets', {
      body: {
        queue_id: x.queue(),
        subject: x.subject,
        description: x.description,
        status: x.status,
        owner_id: idOf(x.owner),
        requester_id: idOf(x.requester),
        priority: x.priority,
        ...(x.team ? { team_id: x.team() } : {}),
        ...(x.cf ? { custom_fields: x.cf } : {}),
      },
    });
    expect(res.status, res.text).toBe(201);
    t[x.name] = res.body.ticket.id;
  }
  // Later messages: a word only in a public reply, an internal note, and a final reply on a low id.
  const comment = async (name: string, body: string, internal: boolean) =>
    expect((await s.api('POST', `/tickets/${t[name]}/comment`, { body: { body, internal } })).status).toBe(201);
  await comment('t10', 'Customer says zebracorn appears', false);
  await comment('t1', 'secretword noted by staff', true);
  await comment('t12', 'checked the cable', true);
  clock.advance(1000);
  await comment('t3', 'final follow-up', false);
});
afterAll(async () => {
  await s?.close();
});

describe('fixture sanity', () => {
  it('the fixture is what the filters below assume', async () => {
    const body = await list('limit=500&sort=id');
    expect(body.total).toBe(12);
    expect(body.tickets.map((x) => x.id)).toEqual(ALL.map((n) => t[n]));
    const teamOf = Object.fromEntries(body.tickets.map((x) => [x.id, x.team_id]));
    expect(teamOf[t.t1]).toBe(T2);
    expect(teamOf[t.t3]).toBe(T1);
    expect(teamOf[t.t6]).toBe(T1);
    expect(teamOf[t.t7]).toBeNull();
    expect(teamOf[t.t8]).toBe(T2);
    expect(teamOf[t.t5]).toBeNull();
  });
});

describe('response shape', () => {
  it('is { tickets, total, limit, offset } with full tickets', async () => {
    const body = await list('');
    expect(body).toMatchObject({ total: 12, limit: 50, offset: 0 });
    expect(body.tickets).toHaveLength(12);
    for (const x of body.tickets) {
      expect(Object.keys(x).sort()).toEqual([...TICKET_KEYS, 'requester', 'unread'].sort());
      expect(x.created_at).toMatch(ISO);
    }
    const t1 = body.tickets.find((x) => x.id === t.t1)!;
    expect(t1).toMatchObject({
      queue_id: SUPPORT,
      subject: 'Printer on fire',
      description: 'The office printer emits smoke',
      status: 'new',
      owner_id: u.ag1.id,
      team_id: T2,
      requester_id: u.rq1.id,
      priority: 10,
      custom_fields: { region: 'eu', tier: 1 },
      resolved_at: null,
    });
  });
});

describe('queue_id', () => {
  it('matches the queue exactly', async () => {
    expect(await names(`queue_id=${SUPPORT}`)).toEqual(set('t1', 't2', 't7', 't10', 't12'));
    expect(await names(`queue_id=${SALES}`)).toEqual(set('t3', 't4', 't9'));
    expect(await names(`queue_id=${GENERAL}`)).toEqual(set('t5', 't6', 't8', 't11'));
    expect(await names('queue_id=999999')).toEqual([]);
    expectError(await s.api('GET', '/tickets?queue_id=abc'), 422, 'validation_failed', ['queue_id']);
  });
});

describe('status', () => {
  it('one value', async () => {
    expect(await names('status=open')).toEqual(set('t2', 't3', 't8', 't10'));
    expect(await names('status=new')).toEqual(set('t1', 't5', 't9'));
    expect(await names('status=stalled')).toEqual(set('t4', 't12'));
    expect(await names('status=resolved')).toEqual(set('t6'));
    expect(await names('status=rejected')).toEqual(set('t7'));
    expect(await names('status=deleted')).toEqual(set('t11'));
  });
  it('comma-separated values', async () => {
    expect(await names('status=new,stalled')).toEqual(set('t1', 't4', 't5', 't9', 't12'));
    expect(await names(`status=${enc('resolved, rejected,deleted')}`)).toEqual(set('t6', 't7', 't11'));
    expect(await names('status=new,open,stalled,resolved,rejected,deleted')).toEqual(set(...ALL));
  });
  it('an unknown status is 422', async () => {
    expectError(await s.api('GET', '/tickets?status=closed'), 422, 'validation_failed', ['status.0']);
    expectError(await s.api('GET', '/tickets?status=open,closed'), 422, 'validation_failed', ['status.1']);
  });
});

describe('owner_id', () => {
  it('a user id', async () => {
    expect(await names(`owner_id=${u.ag1.id}`)).toEqual(set('t1', 't5', 't8', 't11'));
    expect(await names(`owner_id=${u.ag2.id}`)).toEqual(set('t2', 't6', 't9', 't12'));
    expect(await names(`owner_id=${u.ag3.id}`)).toEqual(set('t3', 't7', 't10'));
    expect(await names(`owner_id=${adminId}`)).toEqual([]);
  });
  it('none = unassigned', async () => {
    expect(await names('owner_id=none')).toEqual(set('t4'));
  });
  it('anything else is 422', async () => {
    expectError(await s.api('GET', '/tickets?owner_id=nobody'), 422, 'validation_failed', ['owner_id']);
  });
});

describe('q (text search)', () => {
  it('case-insensitive substring of the subject', async () => {
    expect(await names('q=PRINTER')).toEqual(set('t1'));
    expect(await names('q=vpn%20DROPS')).toEqual(set('t2'));
    expect(await names(`q=${enc('mixed case')}`)).toEqual(set('t11'));
    expect(await names('q=eyboar')).toEqual(set('t10'));
  });
  it('case-insensitive substring of the description', async () => {
    expect(await names('q=QUOTA')).toEqual(set('t8'));
    expect(await names(`q=${enc('LOWERCASE Words')}`)).toEqual(set('t11'));
    expect(await names('q=forgot')).toEqual(set('t6'));
  });
  it('a word only in a later comment body', async () => {
    expect(await names('q=zebracorn')).toEqual(set('t10'));
    expect(await names('q=ZebraCorn')).toEqual(set('t10'));
    expect(await names(`q=${enc('follow-up')}`)).toEqual(set('t3'));
  });
  it('non-ASCII text, case-insensitively', async () => {
    expect(await names(`q=${enc('übersetzung')}`)).toEqual(set('t5'));
    expect(await names(`q=${enc('ärger')}`)).toEqual(set('t5'));
    expect(await names(`q=${enc('öffnung')}`)).toEqual(set('t5'));
    expect(await names(`q=${enc('BRÛLÉE')}`)).toEqual(set('t5'));
    expect(await names(`q=${enc('Straße')}`)).toEqual(set('t5'));
  });
  it('a 2-character q', async () => {
    expect(await names('q=Pd')).toEqual(set('t4'));
    expect(await names(`q=${enc('üb')}`)).toEqual(set('t5'));
    expect(await names(`q=${enc('ÜB')}`)).toEqual(set('t5'));
  });
  it('% and " match literally and never error', async () => {
    expect(await names(`q=${enc('100%')}`)).toEqual(set('t3'));
    expect(await names(`q=${enc('%')}`)).toEqual(set('t3'));
    expect(await names(`q=${enc('0% d')}`)).toEqual(set('t3'));
    expect(await names(`q=${enc('%%')}`)).toEqual([]);
    expect(await names(`q=${enc('"enterprise"')}`)).toEqual(set('t3'));
    expect(await names(`q=${enc('"')}`)).toEqual(set('t3'));
    expect(await names(`q=${enc('""')}`)).toEqual([]);
    expect(await names(`q=${enc('"enterprise" plan, 100%')}`)).toEqual(set('t3'));
    expect(await names(`q=${enc('_')}`)).toEqual([]);
    expect(await names(`q=${enc('a_b')}`)).toEqual([]);
    expect(await names(`q=${enc('\\')}`)).toEqual([]);
    expect(await names(`q=${enc('* OR printer')}`)).toEqual([]);
    expect(await names(`q=${enc('printer NOT smoke')}`)).toEqual([]);
  });
  it('no match is an empty list; an over-long q is 422', async () => {
    expect(await names('q=nothingmatchesthis')).toEqual([]);
    expectError(await s.api('GET', `/tickets?q=${'x'.repeat(201)}`), 422, 'validation_failed', ['q']);
  });
  it('internal notes are searchable by staff only', async () => {
    expect(await names('q=secretword')).toEqual(set('t1'));
    expect(await names('q=secretword', u.rq1.token)).toEqual([]);
    // A two-letter word is a word search (decision 084): "Crème", not "secretword".
    expect(await names('q=cr')).toEqual(set('t5'));
    expect(await names('q=cr', u.rq1.token)).toEqual([]);
    // Inside a word only ("secretword"): the substring search (LIKE), the note still for staff only.
    expect(await names('q=tw')).toEqual(set('t1'));
    expect(await names('q=tw', u.rq1.token)).toEqual([]);
    expect(await names('q=printer', u.rq1.token)).toEqual(set('t1'));
    expect(await names('q=zebracorn', u.rq1.token)).toEqual(set('t10'));
  });
});

describe('cf.<key>', () => {
  it('custom-field equality', async () => {
    expect(await names('cf.region=eu')).toEqual(set('t1', 't3', 't8'));
    expect(await names('cf.region=us')).toEqual(set('t2', 't6', 't11'));
    expect(await names('cf.region=apac')).toEqual(set('t4', 't10'));
    expect(await names('cf.tier=2')).toEqual(set('t2', 't3', 't10'));
    expect(await names('cf.tier=2.0')).toEqual(set('t2', 't3', 't10'));
    expect(await names('cf.region=EU')).toEqual([]);
  });
  it('several combine with AND', async () => {
    expect(await names('cf.region=eu&cf.tier=1')).toEqual(set('t1', 't8'));
    expect(await names('cf.region=us&cf.tier=1')).toEqual(set('t6'));
    expect(await names('cf.region=apac&cf.tier=1')).toEqual([]);
  });
  it('an unknown key or a non-number for a number field is 422 naming cf.<key>', async () => {
    expectError(await s.api('GET', '/tickets?cf.nope=x'), 422, 'validation_failed', ['cf.nope']);
    expectError(await s.api('GET', '/tickets?cf.region=eu&cf.nope=x'), 422, 'validation_failed', ['cf.nope']);
    expectError(await s.api('GET', '/tickets?cf.tier=abc'), 422, 'validation_failed', ['cf.tier']);
  });
});

describe('team_id and ticket_team_id', () => {
  it('team_id: tickets whose OWNER is a member of the team', async () => {
    // T1 = {ag1, ag2}
    expect(await names(`team_id=${T1}`)).toEqual(set('t1', 't2', 't5', 't6', 't8', 't9', 't11', 't12'));
    // T2 = {ag2, ag3}
    expect(await names(`team_id=${T2}`)).toEqual(set('t2', 't3', 't6', 't7', 't9', 't10', 't12'));
    expect(await names(`team_id=${T3}`)).toEqual([]);
  });
  it('ticket_team_id: the ticket’s own team', async () => {
    expect(await names(`ticket_team_id=${T1}`)).toEqual(set('t3', 't4', 't6', 't9'));
    expect(await names(`ticket_team_id=${T2}`)).toEqual(set('t1', 't2', 't8', 't10', 't12'));
    expect(await names(`ticket_team_id=${T3}`)).toEqual([]);
  });
  it('membership changes apply to team_id at once', async () => {
    expect((await s.api('POST', `/teams/${T3}/members`, { body: { user_id: u.ag3.id } })).status).toBe(201);
    expect(await names(`team_id=${T3}`)).toEqual(set('t3', 't7', 't10'));
    expect((await s.api('DELETE', `/teams/${T3}/members/${u.ag3.id}`)).status).toBe(204);
    expect(await names(`team_id=${T3}`)).toEqual([]);
  });
  it('non-ids are 422', async () => {
    expectError(await s.api('GET', '/tickets?team_id=x'), 422, 'validation_failed', ['team_id']);
    expectError(await s.api('GET', '/tickets?ticket_team_id=x'), 422, 'validation_failed', ['ticket_team_id']);
  });
});

describe('requester_id', () => {
  it('matches the requester', async () => {
    expect(await names(`requester_id=${u.rq1.id}`)).toEqual(set('t1', 't3', 't6', 't8', 't10'));
    expect(await names(`requester_id=${u.rq2.id}`)).toEqual(set('t2', 't4', 't7', 't11'));
    expect(await names(`requester_id=${adminId}`)).toEqual(set('t5', 't9', 't12'));
    expectError(await s.api('GET', '/tickets?requester_id=me'), 422, 'validation_failed', ['requester_id']);
  });
  it('a requester only ever sees their own tickets, whatever the filters', async () => {
    expect(await names('', u.rq1.token)).toEqual(set('t1', 't3', 't6', 't8', 't10'));
    expect(await names('status=open', u.rq1.token)).toEqual(set('t3', 't8', 't10'));
    expect(await names(`requester_id=${u.rq2.id}`, u.rq1.token)).toEqual([]);
    // Staff fields are not theirs to filter by (decision 050).
    expect((await s.api('GET', `/tickets?owner_id=${u.ag2.id}`, { token: u.rq2.token })).status).toBe(403);
  });
});

describe('view_id', () => {
  it("applies a saved view's filters; explicit parameters override them", async () => {
    const res = await s.api('POST', '/saved-views', {
      body: { name: 'Open support', filters: { queue_id: SUPPORT, status: 'open' } },
    });
    expect(res.status, res.text).toBe(201);
    const view = res.body.id;
    expect(await names(`view_id=${view}`)).toEqual(set('t2', 't10'));
    expect(await names(`view_id=${view}&status=stalled`)).toEqual(set('t12'));
    expect(await names(`view_id=${view}&status=open,stalled`)).toEqual(set('t2', 't10', 't12'));
    expect(await names(`view_id=${view}&queue_id=${SALES}`)).toEqual(set('t3'));
    expect(await names(`view_id=${view}&owner_id=${u.ag3.id}`)).toEqual(set('t10'));
  });
  it('custom-field filters of a view combine per key with explicit ones', async () => {
    const res = await s.api('POST', '/saved-views', { body: { name: 'EU', filters: { 'cf.region': 'eu' } } });
    expect(res.status, res.text).toBe(201);
    const view = res.body.id;
    expect(await names(`view_id=${view}`)).toEqual(set('t1', 't3', 't8'));
    expect(await names(`view_id=${view}&cf.tier=1`)).toEqual(set('t1', 't8'));
    expect(await names(`view_id=${view}&cf.region=us`)).toEqual(set('t2', 't6', 't11'));
  });
  it('a view with sort and limit', async () => {
    const res = await s.api('POST', '/saved-views', {
      body: { name: 'Top priority', filters: { sort: '-priority', limit: 2 } },
    });
    expect(res.status, res.text).toBe(201);
    const body = await list(`view_id=${res.body.id}`);
    expect(body.tickets.map((x) => x.id)).toEqual([t.t11, t.t8]);
    expect(body).toMatchObject({ total: 12, limit: 2, offset: 0 });
    const over = await list(`view_id=${res.body.id}&limit=3`);
    expect(over.tickets.map((x) => x.id)).toEqual([t.t11, t.t8, t.t5]);
  });
  it('an unknown view is 422', async () => {
    expectError(await s.api('GET', '/tickets?view_id=999999'), 422, 'validation_failed', ['view_id']);
    expectError(await s.api('GET', '/tickets?view_id=abc'), 422, 'validation_failed', ['view_id']);
  });
});

describe('sort', () => {
  const ids = async (qs: string) => (await list(`${qs}&limit=500`)).tickets.map((x) => x.id);
  const byIdAsc = () => ALL.map((n) => t[n]);
  const byPriority = () => [...SPECS].sort((a, b) => a.priority - b.priority).map((x) => t[x.name]);

  it('id and -id', async () => {
    expect(await ids('sort=id')).toEqual(byIdAsc());
    expect(await ids('sort=-id')).toEqual(byIdAsc().reverse());
  });
  it('created and -created', async () => {
    expect(await ids('sort=created')).toEqual(byIdAsc());
    expect(await ids('sort=-created')).toEqual(byIdAsc().reverse());
  });
  it('priority and -priority', async () => {
    expect(await ids('sort=priority')).toEqual(byPriority());
    expect(await ids('sort=-priority')).toEqual(byPriority().reverse());
  });
  it('default is -updated: the ticket commented on last comes first', async () => {
    const body = await list('limit=500');
    expect(body.tickets[0].id).toBe(t.t3);
    const stamps = body.tickets.map((x) => x.updated_at);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    expect(await ids('sort=-updated')).toEqual(body.tickets.map((x) => x.id));
    const asc = await ids('sort=updated');
    expect(asc.at(-1)).toBe(t.t3);
  });
  it('a new comment moves a ticket to the top', async () => {
    clock.advance(1000);
    expect((await s.api('POST', `/tickets/${t.t7}/comment`, { body: { body: 'bumping this one' } })).status).toBe(201);
    expect((await list('')).tickets.slice(0, 2).map((x) => x.id)).toEqual([t.t7, t.t3]);
  });
  it('an unknown sort is 422', async () => {
    expectError(await s.api('GET', '/tickets?sort=subject'), 422, 'validation_failed', ['sort']);
    expectError(await s.api('GET', '/tickets?sort=--id'), 422, 'validation_failed', ['sort']);
  });
});

describe('limit and offset', () => {
  it('limit caps the count; total is the full count', async () => {
    const body = await list('limit=3&sort=id');
    expect(body.tickets.map((x) => x.id)).toEqual(ALL.slice(0, 3).map((n) => t[n]));
    expect(body).toMatchObject({ total: 12, limit: 3, offset: 0 });
    const filtered = await list('status=open&limit=1');
    expect(filtered.tickets).toHaveLength(1);
    expect(filtered.total).toBe(4);
    expect((await list('limit=500')).limit).toBe(500);
    expect((await list('limit=1')).tickets).toHaveLength(1);
  });
  it('limit outside 1-500 or not an integer is 422 path limit', async () => {
    for (const v of ['0', '501', 'abc', '-1', '2.5', '']) {
      if (v === '') continue; // an empty value means "no filter"
      expectError(await s.api('GET', `/tickets?limit=${v}`), 422, 'validation_failed', ['limit']);
    }
    expect((await list('limit=')).limit).toBe(50);
  });
  it('offset pages through the results', async () => {
    const pages = [];
    for (const offset of [0, 5, 10]) {
      const body = await list(`sort=id&limit=5&offset=${offset}`);
      expect(body).toMatchObject({ total: 12, limit: 5, offset });
      pages.push(...body.tickets.map((x) => x.id));
    }
    expect(pages).toEqual(ALL.map((n) => t[n]));
    const past = await list('sort=id&limit=5&offset=12');
    expect(past).toMatchObject({ tickets: [], total: 12, offset: 12 });
    expectError(await s.api('GET', '/tickets?offset=-1'), 422, 'validation_failed', ['offset']);
    expectError(await s.api('GET', '/tickets?offset=x'), 422, 'validation_failed', ['offset']);
  });
});

describe('unknown parameters', () => {
  it('are 422 naming the parameter', async () => {
    expectError(await s.api('GET', '/tickets?colour=red'), 422, 'validation_failed', ['colour']);
    expectError(await s.api('GET', '/tickets?owner=5'), 422, 'validation_failed', ['owner']);
    expectError(await s.api('GET', '/tickets?status=open&pagesize=5'), 422, 'validation_failed', ['pagesize']);
  });
});

describe('combined filters', () => {
  it('AND together', async () => {
    expect(await names(`queue_id=${SUPPORT}&status=open,stalled&owner_id=${u.ag2.id}`)).toEqual(set('t2', 't12'));
    expect(await names(`team_id=${T2}&ticket_team_id=${T1}`)).toEqual(set('t3', 't6', 't9'));
    expect(await names(`team_id=${T1}&ticket_team_id=${T2}&status=new,open`)).toEqual(set('t1', 't2', 't8'));
    expect(await names(`requester_id=${u.rq1.id}&cf.tier=1&status=open`)).toEqual(set('t8'));
    expect(await names('q=printer&status=open')).toEqual([]);
    expect(await names(`q=zebracorn&owner_id=${u.ag3.id}&queue_id=${SUPPORT}`)).toEqual(set('t10'));
    expect(await names(`owner_id=none&queue_id=${SALES}&cf.region=apac`)).toEqual(set('t4'));
    expect(await names(`owner_id=none&team_id=${T1}`)).toEqual([]);
    const page = await list(`team_id=${T1}&sort=-priority&limit=3&offset=1`);
    expect(page.tickets.map((x) => x.id)).toEqual([t.t8, t.t5, t.t2]);
    expect(page.total).toBe(8);
  });
});

describe('authentication', () => {
  it('GET /tickets needs a user', async () => {
    expectError(await s.api('GET', '/tickets', { token: null }), 401, 'unauthenticated');
  });
});
