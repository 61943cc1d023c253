import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C4: the ticket list's q also finds tickets by their requester's name or address
// (decision 035), and GET /users pages — with q a people search — like GET /tickets does.

let s: TestServer;
const ids: Record<string, number> = {};

const ok = async (method: string, path: string, body?: unknown) => {
  const res = await s.api(method, path, { body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
};
const list = async (q: string, extra = '') => {
  const res = await s.api(
    'GET',
    `/tickets?q=${encodeURIComponent(q)}&sort=id${extra.includes('limit=') ? '' : '&limit=500'}${extra}`,
  );
  expect(res.status, res.text).toBe(200);
  return { ids: (res.body.tickets as { id: number }[]).map((t) => t.id), total: res.body.total as number };
};

beforeAll(async () => {
  s = await startServer();
  ids.zelda = (
    await ok('POST', '/users', {
      email: 'zelda.quartermain@hyrule.example',
      name: 'Zelda Quartermain',
      role: 'requester',
    })
  ).id;
  ids.link = (
    await ok('POST', '/users', { email: 'link@kokiri.example', name: 'Link Greentunic', role: 'requester' })
  ).id;
  const make = async (subject: string, requester: number, extra: Record<string, unknown> = {}) =>
    (
      await ok('POST', '/tickets', {
        queue_id: 1,
        subject,
        description: 'Nothing about anyone',
        requester_id: requester,
        ...extra,
      })
    ).ticket.id as number;
  ids.t1 = await make('Broken sword', ids.zelda);
  ids.t2 = await make('Lost map', ids.link);
  // Zelda as a second requester of Link's ticket.
  ids.t3 = await make('Shared trouble', ids.link, { requesters: [ids.zelda] });
  ids.t4 = await make('Closed matter', ids.zelda, { status: 'resolved' });
  // A ticket whose text names the word, from someone else.
  ids.t5 = await make('Quartermain asked about this', ids.link);
  // Many people with a common name part, for paging.
  for (let i = 0; i < 60; i++)
    await ok('POST', '/users', {
      email: `pager${String(i).padStart(2, '0')}@crowd.example`,
      name: `Pager Person ${i}`,
      role: 'requester',
    });
});
afterAll(async () => {
  await s?.close();
});

describe('q finds tickets by their requester', () => {
  it('by name: the tickets whose requester is named so, plus the text matches', async () => {
    expect(await list('Quartermain')).toEqual({ ids: [ids.t1, ids.t3, ids.t4, ids.t5], total: 4 });
    expect(await list('greentunic')).toEqual({ ids: [ids.t2, ids.t3, ids.t5], total: 3 });
  });

  it('by address, and by the start of an address (any case)', async () => {
    expect((await list('zelda.quartermain@hyrule.example')).ids).toEqual([ids.t1, ids.t3, ids.t4]);
    expect((await list('LINK@KOKIRI')).ids).toEqual([ids.t2, ids.t3, ids.t5]);
    expect((await list('hyrule.example')).ids).toEqual([ids.t1, ids.t3, ids.t4]);
  });

  it('the other filters apply to those tickets too', async () => {
    expect(await list('Quartermain', '&status=resolved')).toEqual({ ids: [ids.t4], total: 1 });
    expect(await list('zelda', '&status=new&limit=1')).toEqual({ ids: [ids.t1], total: 2 });
  });

  it("a requester's own search is about their tickets' text only, not about people", async () => {
    const zelda = await s.user('requester', 'zelda-login@example.com');
    const res = await s.api('GET', `/tickets?q=${encodeURIComponent('Greentunic')}`, { token: zelda.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
  });
});

describe('GET /users pages', () => {
  it('without q: 50 by default, limit and offset, with the total, in id order', async () => {
    const first = (await s.api('GET', '/users')).body;
    expect(first.users).toHaveLength(50);
    expect(first).toMatchObject({ limit: 50, offset: 0 });
    const total = first.total as number;
    expect(total).toBeGreaterThanOrEqual(63);
    const all: number[] = [];
    for (let offset = 0; offset < total; offset += 20) {
      const page = (await s.api('GET', `/users?limit=20&offset=${offset}`)).body;
      expect(page.total).toBe(total);
      all.push(...page.users.map((u: { id: number }) => u.id));
    }
    expect(all).toHaveLength(total);
    expect(all).toEqual([...all].sort((a, b) => a - b));
    expect((await s.api('GET', `/users?offset=${total}`)).body).toMatchObject({ users: [], total });
    const requesters = (await s.api('GET', '/users?role=requester&limit=500')).body;
    expect(requesters.users.every((u: { role: string }) => u.role === 'requester')).toBe(true);
    expect(requesters.total).toBe(requesters.users.length);
  });

  it('with q: the people search, paged', async () => {
    const page1 = (await s.api('GET', '/users?q=pager&limit=25')).body;
    expect(page1.users).toHaveLength(25);
    expect(page1.total).toBe(60);
    const page3 = (await s.api('GET', '/users?q=pager&limit=25&offset=50')).body;
    expect(page3.users).toHaveLength(10);
    const seen = new Set<number>();
    for (const offset of [0, 25, 50])
      for (const u of (await s.api('GET', `/users?q=pager&limit=25&offset=${offset}`)).body.users) seen.add(u.id);
    expect(seen.size).toBe(60);
    expect((await s.api('GET', '/users?q=quartermain')).body.users.map((u: { id: number }) => u.id)).toEqual([
      ids.zelda,
    ]);
  });

  it('bad paging is a 422 naming the parameter', async () => {
    for (const [qs, path] of [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=-1', 'offset'],
      ['q=pager&offset=x', 'offset'],
    ]) {
      const res = await s.api('GET', `/users?${qs}`);
      expect(res.status, qs).toBe(422);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
  });

  it('the admin people page searches and pages', async () => {
    const html = (await s.api('GET', '/users?q=pager&limit=25', { headers: { accept: 'text/html' } })).text;
    expect(html).toContain('name="q" value="pager"');
    expect(html).toContain('1–25 of 60');
    expect(html).toContain('href="/users?q=pager&amp;limit=25&amp;offset=25" rel="next"');
  });
});
