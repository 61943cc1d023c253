import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C5, the list side over real HTTP on both stores: a live list asks about the tickets its
// stream named under its own query (`GET /tickets?<query>&live_ids=…`) and learns, per ticket,
// whether it is in the list now, where it sorts, and (htmx) its row in the list's columns.
// Built-in lists and saved views alike; the reader's permissions apply; bad input is a 422.
// A dashboard widget answers its own contents (what the page reloads while tickets change).

let s: TestServer;
let agent: { id: number; email: string; token: string };
let customer: { id: number; email: string; token: string };
let queueId = 0;

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  customer = await s.user('requester');
  const team = (await s.api('POST', '/teams', { body: { name: 'Live team' } })).body;
  await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: agent.id } });
  queueId = (await s.api('POST', '/queues', { body: { name: 'Live queue', team_id: team.id } })).body.id;
});
afterAll(async () => {
  await s?.close();
});

let seq = 0;
async function ticket(body: Record<string, unknown> = {}) {
  const res = await s.api('POST', '/tickets', {
    body: { queue_id: queueId, subject: `Live list ${++seq}`, description: 'Hello', ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket as { id: number; updated_at: string };
}
const live = (query: string, ids: number[], token = agent.token, html = false) =>
  s.api('GET', `/tickets?${query}${query ? '&' : ''}live_ids=${ids.join(',')}`, {
    token,
    headers: html ? { 'hx-request': 'true' } : { accept: 'application/json' },
  });

describe('GET /tickets?…&live_ids=', () => {
  it('says per ticket whether it is in the list now, with its sort key, under the built-in lists', async () => {
    const mine = await ticket({ owner_id: agent.id, status: 'open' });
    const nobodys = await ticket();
    const mineList = 'owner_id=me&status=new,open,stalled';
    const res = await live(mineList, [mine.id, nobodys.id]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.sort).toBe('-updated');
    expect(res.body.rows.map((r: any) => [r.id, r.visible, r.matches])).toEqual([
      [mine.id, true, true],
      [nobodys.id, true, false],
    ]);
    expect(res.body.rows[0].sort_key).toEqual([mine.updated_at, mine.id]);
    expect(res.body.rows[0].ticket.subject).toBe(`Live list ${seq - 1}`);
    // Unassigned in my teams' queues: the other way round.
    const un = await live('owner_id=none&status=new,open,stalled&my_teams=true&sort=id', [mine.id, nobodys.id]);
    expect(un.body.rows.map((r: any) => r.matches)).toEqual([false, true]);
    expect(un.body.rows[1].sort_key).toEqual([nobodys.id, nobodys.id]);
    // A change takes it out of the list: still visible, no longer matching.
    expect((await s.api('PATCH', `/tickets/${mine.id}`, { body: { status: 'resolved' } })).status).toBe(200);
    const after = await live(mineList, [mine.id]);
    expect(after.body.rows[0]).toMatchObject({
      id: mine.id,
      visible: true,
      matches: false,
      ticket: { status: 'resolved' },
    });
  });

  it("answers htmx with the list's own rows (its columns, checkboxes), marked in or out", async () => {
    const t = await ticket({ status: 'open' });
    const res = await live('status=open&columns=ID,Status', [t.id, 999_999], agent.token, true);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('id="live-rows"');
    expect(res.text).toContain('data-gone="999999"');
    const row = /<tr data-id="(\d+)" data-key="([^"]*)" data-match="(\w+)">([\s\S]*?)<\/tr>/.exec(res.text)!;
    expect(row[1]).toBe(String(t.id));
    expect(row[3]).toBe('true');
    expect(row[4]).toContain(`aria-label="Select ticket #${t.id}"`);
    expect((row[4].match(/<td/g) ?? []).length).toBe(3); // the checkbox, ID and Status: the chosen columns
    expect(row[4]).toContain('status-open');
  });

  it('works for saved views (their filters and sort), and text search', async () => {
    const t = await ticket({ subject: 'Printer on fire zq7', status: 'stalled' });
    const other = await ticket({ subject: 'Something else', status: 'stalled' });
    const view = await s.api('POST', '/saved-views', {
      token: agent.token,
      body: { name: 'Stalled', filters: { status: 'stalled' }, columns: ['ID', 'Subject'] },
    });
    expect(view.status, view.text).toBe(201);
    const res = await live(`view_id=${view.body.id}`, [t.id, other.id]);
    expect(res.body.rows.map((r: any) => r.matches)).toEqual([true, true]);
    const q = await live(`view_id=${view.body.id}&q=fire%20zq7`, [t.id, other.id]);
    expect(q.body.rows.map((r: any) => r.matches)).toEqual([true, false]);
    const html = await live(`view_id=${view.body.id}`, [t.id], agent.token, true);
    expect((/<tr data-id[^>]*>([\s\S]*?)<\/tr>/.exec(html.text)![1].match(/<td/g) ?? []).length).toBe(3); // the view's columns
  });

  it("tells a customer nothing: live lists are the staff list page's (decision 050)", async () => {
    const theirs = await ticket({ requester_id: customer.id });
    const notTheirs = await ticket();
    const res = await live('', [theirs.id, notTheirs.id], customer.token);
    expect(res.status, res.text).toBe(403);
    expect(res.text).not.toContain('"rows"');
  });

  it('refuses bad live_ids and bad list parameters with 422, never 500', async () => {
    for (const bad of ['abc', '1,1', '0', '-3', Array.from({ length: 101 }, (_, i) => i + 1).join(',')]) {
      const res = await s.api('GET', `/tickets?live_ids=${bad}`, {
        token: agent.token,
        headers: { accept: 'application/json' },
      });
      expect(res.status, `${bad}: ${res.text}`).toBe(422);
      expect(res.body.error.details[0].path).toMatch(/^live_ids/);
    }
    expect(
      (
        await s.api('GET', '/tickets?status=nope&live_ids=1', {
          token: agent.token,
          headers: { accept: 'application/json' },
        })
      ).status,
    ).toBe(422);
  });
});

describe('GET /dashboards/:id/widgets/:widgetId', () => {
  it("answers one widget's contents, now (JSON and the fragment the page reloads)", async () => {
    const d = await s.api('POST', '/dashboards', {
      token: agent.token,
      body: { name: 'Live', widgets: [{ kind: 'status_counts' }] },
    });
    expect(d.status, d.text).toBe(201);
    const w = d.body.widgets[0];
    const before = await s.api('GET', `/dashboards/${d.body.id}/widgets/${w.id}`, {
      token: agent.token,
      headers: { accept: 'application/json' },
    });
    expect(before.status, before.text).toBe(200);
    const count = (b: any) => b.data.counts.find((c: any) => c.status === 'rejected')?.count ?? 0;
    await ticket({ status: 'rejected' });
    const after = await s.api('GET', `/dashboards/${d.body.id}/widgets/${w.id}`, {
      token: agent.token,
      headers: { accept: 'application/json' },
    });
    expect(count(after.body)).toBe(count(before.body) + 1);
    const html = await s.api('GET', `/dashboards/${d.body.id}/widgets/${w.id}`, {
      token: agent.token,
      headers: { 'hx-request': 'true' },
    });
    expect(html.text).toContain('class="bars"');
    expect(html.text).not.toContain('<html');
    expect(
      (
        await s.api('GET', `/dashboards/${d.body.id}/widgets/999999`, {
          token: agent.token,
          headers: { accept: 'application/json' },
        })
      ).status,
    ).toBe(404);
    // The page holds the stream and the widget's reload.
    const page = await s.api('GET', `/dashboards/${d.body.id}`, {
      token: agent.token,
      headers: { accept: 'text/html' },
    });
    expect(page.text).toContain('sse-connect="/events"');
    expect(page.text).toContain(`hx-get="/dashboards/${d.body.id}/widgets/${w.id}"`);
  });
});
