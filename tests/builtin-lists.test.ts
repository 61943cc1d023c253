import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C4 "triage at speed": the built-in lists beside the saved views (My open tickets — the
// staff landing page —, Unassigned in my teams' queues, All), Take and Resolve on the ticket
// page, and saved views shared with a team.

let s: TestServer;
type U = { id: number; email: string; token: string };
let ann: U; // agent in Support
let bob: U; // agent in Support
let cat: U; // agent in no team
let rq: U;
let support: number;
let other: number;
let supportQueue: number;
let otherQueue: number;
const t: Record<string, number> = {};

const ok = async (method: string, path: string, body?: unknown, token?: string) => {
  const res = await s.api(method, path, { body, token });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
};
const ids = async (qs: string, token: string) => {
  const res = await s.api('GET', `/tickets?${qs}&limit=500&sort=id`, { token });
  expect(res.status, res.text).toBe(200);
  return (res.body.tickets as { id: number }[]).map((x) => x.id);
};
const MINE = 'owner_id=me&status_category=initial,active,waiting&snoozed=false';
const UNASSIGNED = 'owner_id=none&status_category=initial,active,waiting&my_teams=true';

beforeAll(async () => {
  s = await startServer();
  [ann, bob, cat, rq] = [
    await s.user('agent', 'ann@example.com'),
    await s.user('agent', 'bob@example.com'),
    await s.user('agent', 'cat@example.com'),
    await s.user('requester', 'rq@example.com'),
  ];
  support = (await ok('POST', '/teams', { name: 'Support' })).id;
  other = (await ok('POST', '/teams', { name: 'Other' })).id;
  for (const u of [ann, bob]) await ok('POST', `/teams/${support}/members`, { user_id: u.id });
  supportQueue = (await ok('POST', '/queues', { name: 'Support queue', team_id: support })).id;
  otherQueue = (await ok('POST', '/queues', { name: 'Other queue', team_id: other })).id;
  const make = async (name: string, body: Record<string, unknown>) => {
    t[name] = (await ok('POST', '/tickets', { subject: name, requester_id: rq.id, ...body })).ticket.id;
  };
  await make('annOpen', { queue_id: supportQueue, owner_id: ann.id, status: 'open' });
  await make('annNew', { queue_id: otherQueue, owner_id: ann.id });
  await make('annResolved', { queue_id: supportQueue, owner_id: ann.id, status: 'resolved' });
  await make('annStalled', { queue_id: 1, owner_id: ann.id, status: 'stalled' });
  await make('bobOpen', { queue_id: supportQueue, owner_id: bob.id, status: 'open' });
  await make('freeSupport', { queue_id: supportQueue });
  await make('freeSupportStalled', { queue_id: supportQueue, status: 'stalled' });
  await make('freeSupportRejected', { queue_id: supportQueue, status: 'rejected' });
  await make('freeOther', { queue_id: otherQueue });
  // The ticket's own team is not what counts: the queue's team is (decision 035).
  await make('freeGeneralSupportTeam', { queue_id: 1, team_id: support });
});
afterAll(async () => {
  await s?.close();
});

describe('built-in lists', () => {
  it('My open tickets: owned by the reader, not inactive', async () => {
    expect(await ids(MINE, ann.token)).toEqual([t.annOpen, t.annNew, t.annStalled]);
    expect(await ids(MINE, bob.token)).toEqual([t.bobOpen]);
    expect(await ids(MINE, cat.token)).toEqual([]);
  });

  it("Unassigned in my teams' queues: no owner, active, in a queue of a team the reader belongs to", async () => {
    expect(await ids(UNASSIGNED, ann.token)).toEqual([t.freeSupport, t.freeSupportStalled]);
    expect(await ids(UNASSIGNED, bob.token)).toEqual([t.freeSupport, t.freeSupportStalled]);
    expect(await ids(UNASSIGNED, cat.token)).toEqual([]); // in no team: no queue
  });

  it('All: every ticket', async () => {
    expect(await ids('', cat.token)).toEqual(Object.values(t).sort((a, b) => a - b));
  });

  it('the list page links to the four, marks the current one, and titles itself by it', async () => {
    const html = async (qs: string) =>
      (await s.api('GET', `/tickets${qs}`, { token: ann.token, headers: { accept: 'text/html' } })).text;
    const mine = await html(`?${MINE}`);
    expect(mine).toContain('<h1>My open tickets</h1>');
    expect(mine).toMatch(
      /<a href="\/tickets\?owner_id=me&amp;status_category=initial,active,waiting&amp;snoozed=false" class="current" aria-current="page">My open tickets<\/a>/,
    );
    expect(mine).toMatch(
      /<a href="\/tickets\?owner_id=none&amp;status_category=initial,active,waiting&amp;my_teams=true" class="">Unassigned in my teams’ queues<\/a>/,
    );
    // Sorting or paging keeps it current; another filter does not.
    expect(await html(`?${MINE}&sort=-created`)).toMatch(/class="current" aria-current="page">My open tickets</);
    expect(await html(`?${MINE}&queue_id=1`)).not.toMatch(/aria-current="page">My open tickets</);
    expect(await html(`?${UNASSIGNED}`)).toMatch(/class="current" aria-current="page">Unassigned in my teams’ queues</);
    expect(await html('')).toMatch(/<a href="\/tickets" class="current" aria-current="page">All<\/a>/);
    // SPEC D2: Snoozed, everyone's; still current with snoozed=1.
    expect(await html('?snoozed=1')).toMatch(
      /<a href="\/tickets\?snoozed=true" class="current" aria-current="page">Snoozed<\/a>/,
    );
  });

  it('"me" and my_teams are checked like any parameter', async () => {
    for (const [qs, path] of [
      ['owner_id=you', 'owner_id'],
      ['my_teams=maybe', 'my_teams'],
    ]) {
      const res = await s.api('GET', `/tickets?${qs}`, { token: ann.token });
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].path).toBe(path);
    }
  });
});

describe('Take and Resolve (plain form posts, as the ticket page sends them without JavaScript)', () => {
  const form = (id: number, fields: Record<string, string>, token: string) =>
    s.api('POST', `/tickets/${id}`, {
      token,
      headers: { accept: 'text/html' },
      form: { _method: 'PATCH', ...fields },
    });

  it('shows Take when I am not the owner and Resolve when not resolved; each one click', async () => {
    const id = (await ok('POST', '/tickets', { subject: 'Take me', queue_id: supportQueue, requester_id: rq.id }))
      .ticket.id;
    const page = async () =>
      (await s.api('GET', `/tickets/${id}`, { token: bob.token, headers: { accept: 'text/html' } })).text;
    let html = await page();
    expect(html).toContain(
      `<input type="hidden" name="owner_id" value="${bob.id}"/><button type="submit">Take</button>`,
    );
    expect(html).toContain(
      '<input type="hidden" name="status" value="resolved"/><button type="submit">Resolve</button>',
    );
    const take = await form(id, { owner_id: String(bob.id) }, bob.token);
    expect(take.status).toBe(303);
    expect(take.headers.get('location')).toBe(`/tickets/${id}`);
    expect((await ok('GET', `/tickets/${id}`)).owner_id).toBe(bob.id);
    html = await page();
    expect(html).not.toContain('>Take</button>');
    expect(await form(id, { status: 'resolved' }, bob.token).then((r) => r.status)).toBe(303);
    expect((await ok('GET', `/tickets/${id}`)).status).toBe('resolved');
    html = await page();
    expect(html).not.toContain('>Resolve</button>');
    const types = (await ok('GET', `/tickets/${id}/transactions`)).transactions.map((x: { type: string }) => x.type);
    expect(types).toEqual(['Create', 'SetOwner', 'Status', 'Status']); // Take opened it (SPEC D6), then Resolve
  });

  it('with htmx: the properties and the history come back, as the property forms have them', async () => {
    const id = (await ok('POST', '/tickets', { subject: 'Htmx take', queue_id: supportQueue, requester_id: rq.id }))
      .ticket.id;
    const res = await s.api('PATCH', `/tickets/${id}`, {
      token: ann.token,
      headers: { 'hx-request': 'true' },
      form: { _method: 'PATCH', owner_id: String(ann.id) },
    });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^<aside id="properties"/);
    expect(res.text).toContain('id="history"');
    expect(res.text).not.toContain('>Take</button>');
    expect(res.text).toContain('>Resolve</button>');
  });
});

describe('saved views shared with a team', () => {
  let shared: number;
  it('the owner shares with a team they belong to; not with another (403); an unknown team is 422', async () => {
    const mine = await s.api('POST', '/saved-views', {
      token: ann.token,
      body: { name: 'Support backlog', filters: { queue_id: supportQueue }, team_id: support },
    });
    expect(mine.status, mine.text).toBe(201);
    expect(mine.body.team_id).toBe(support);
    shared = mine.body.id;
    const notMine = await s.api('POST', '/saved-views', { token: ann.token, body: { name: 'Sneaky', team_id: other } });
    expect(notMine.status).toBe(403);
    expect(notMine.body.error.message).toBe(`You can share a view only with a team you belong to (not team ${other})`);
    const unknown = await s.api('POST', '/saved-views', {
      token: ann.token,
      body: { name: 'Nowhere', team_id: 99_999 },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([{ path: 'team_id', message: 'Team 99999 does not exist' }]);
    // An administrator may share with any team.
    expect((await s.api('POST', '/saved-views', { body: { name: 'Admin’s', team_id: other } })).status).toBe(201);
  });

  it('a member sees it (shared, with its owner) and uses it; a non-member does not see it listed', async () => {
    const annName = (await ok('GET', `/users/${ann.id}`)).name;
    const list = (await ok('GET', '/saved-views', undefined, bob.token)).saved_views as {
      id: number;
      shared: boolean;
      owner_name: string;
    }[];
    expect(list.find((v) => v.id === shared)).toMatchObject({ shared: true, owner_name: annName, team_id: support });
    expect(
      (await ok('GET', '/saved-views', undefined, ann.token)).saved_views.find((v: { id: number }) => v.id === shared),
    ).toMatchObject({ shared: false });
    expect(
      (await ok('GET', '/saved-views', undefined, cat.token)).saved_views.map((v: { id: number }) => v.id),
    ).not.toContain(shared);
    const viaView = await ids(`view_id=${shared}`, bob.token);
    expect(viaView.length).toBeGreaterThan(0);
    expect(viaView).toEqual(await ids(`queue_id=${supportQueue}`, bob.token));
    const page = (await s.api('GET', '/tickets', { token: bob.token, headers: { accept: 'text/html' } })).text;
    expect(page).toContain(`Support backlog<span class="shared-by"> (shared by ${annName})</span>`);
    // The save-view form offers the reader's own teams to share with.
    const share = /<label>Share with team\s*<select name="team_id">(.*?)<\/select>/s.exec(page)?.[1] ?? '';
    expect(share).toContain(`<option value="">Only me</option><option value="${support}">Support</option>`);
    expect(share).not.toContain('>Other<');
    expect((await s.api('GET', '/tickets', { token: cat.token, headers: { accept: 'text/html' } })).text).not.toContain(
      'Share with team',
    );
  });

  it('only the owner (or an administrator) changes or deletes it', async () => {
    const edit = await s.api('PATCH', `/saved-views/${shared}`, { token: bob.token, body: { name: 'Mine now' } });
    expect(edit.status).toBe(403);
    expect((await s.api('DELETE', `/saved-views/${shared}`, { token: bob.token })).status).toBe(403);
    // The owner stops sharing it; bob no longer sees it.
    expect(
      (await s.api('PATCH', `/saved-views/${shared}`, { token: ann.token, body: { team_id: null } })).body.team_id,
    ).toBeNull();
    expect(
      (await ok('GET', '/saved-views', undefined, bob.token)).saved_views.map((v: { id: number }) => v.id),
    ).not.toContain(shared);
    expect(
      (await s.api('PATCH', `/saved-views/${shared}`, { token: ann.token, body: { team_id: other } })).status,
    ).toBe(403);
    expect((await s.api('PATCH', `/saved-views/${shared}`, { body: { team_id: other } })).status).toBe(200);
  });
});
