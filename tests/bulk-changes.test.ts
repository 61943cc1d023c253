import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C4 "triage at speed": PATCH /tickets changes many tickets, each in its own unit of work
// with its scrips, through the single-ticket update; one ticket's failure stops none of the others.

let s: TestServer;
let rq: { id: number; email: string; token: string };
let agent: { id: number; email: string; token: string };

const make = async (subject: string, extra: Record<string, unknown> = {}) => {
  const res = await s.api('POST', '/tickets', { body: { queue_id: 1, subject, requester_id: rq.id, ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket.id as number;
};
const txns = async (id: number) =>
  ((await s.api('GET', `/tickets/${id}/transactions`)).body.transactions as { type: string }[]).map((t) => t.type);

beforeAll(async () => {
  s = await startServer();
  rq = await s.user('requester', 'bulk-requester@example.com');
  agent = await s.user('agent', 'bulk-agent@example.com');
});
afterAll(async () => {
  await s?.close();
});

describe('PATCH /tickets', () => {
  it('answers per id in the order given: the valid ones change with their scrips, missing ones say so', async () => {
    const a = await make('Bulk A');
    const b = await make('Bulk B');
    const c = await make('Bulk C');
    const missing = 999_999;
    const res = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [c, missing, a, b], changes: { status: 'resolved', priority: 7 } },
    });
    expect(res.status, res.text).toBe(200);
    const results = res.body.results as {
      id: number;
      ok: boolean;
      error?: string;
      scrip_results?: { key: string; ok: boolean; notifications?: number }[];
    }[];
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      [c, true],
      [missing, false],
      [a, true],
      [b, true],
    ]);
    // The same words as the single PATCH.
    const single = await s.api('PATCH', `/tickets/${missing}`, { token: agent.token, body: { status: 'resolved' } });
    expect(single.status).toBe(404);
    expect(results[1].error).toBe(single.body.error.message);
    for (const id of [a, b, c]) {
      const t = await ticketOf(s, id);
      expect([t.status, t.priority]).toEqual(['resolved', 7]);
      expect(await txns(id)).toEqual(expect.arrayContaining(['Status', 'SetPriority']));
    }
    // Each ticket ran its scrips: the requester is told of each resolution.
    for (const r of results.filter((x) => x.ok)) {
      expect(r.scrip_results!.find((x) => x.key === 'notify_requester_on_resolve')).toMatchObject({
        ok: true,
        notifications: 1,
      });
    }
  });

  it('a change one ticket refuses fails that ticket only (a disabled owner stays on the ticket it owns)', async () => {
    const leaving = await s.user('agent', 'bulk-leaving@example.com');
    const owned = await make('Owned by the leaver', { owner_id: leaving.id });
    const other = await make('Someone else’s');
    expect((await s.api('PATCH', `/users/${leaving.id}`, { body: { disabled: true } })).status).toBe(200);
    const res = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [owned, other], changes: { owner_id: leaving.id, priority: 3 } },
    });
    expect(res.status, res.text).toBe(200);
    const [r1, r2] = res.body.results;
    expect(r1).toMatchObject({ id: owned, ok: true });
    expect(r2).toMatchObject({ id: other, ok: false });
    const single = await s.api('PATCH', `/tickets/${other}`, {
      token: agent.token,
      body: { owner_id: leaving.id, priority: 3 },
    });
    expect(single.status).toBe(422);
    expect(r2.error).toBe(single.body.error.message);
    expect((await ticketOf(s, owned)).priority).toBe(3);
    expect((await ticketOf(s, other)).priority).toBe(0);
  });

  it('a requester changes nothing: their own ticket is refused as by the single PATCH, others are not found', async () => {
    const own = await make('Requester’s own');
    const foreign = await make('Not theirs', { requester_id: agent.id });
    const res = await s.api('PATCH', '/tickets', {
      token: rq.token,
      body: { ids: [own, foreign], changes: { status: 'open' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toEqual([
      { id: own, ok: false, error: 'Requesters cannot change tickets' },
      { id: foreign, ok: false, error: `Ticket ${foreign} not found` },
    ]);
    expect((await ticketOf(s, own)).status).toBe('new');
  });

  it('refuses bad requests whole, with clear errors, and changes nothing', async () => {
    const t = await make('Untouched');
    const bad = async (body: unknown, path: string, message: string) => {
      const res = await s.api('PATCH', '/tickets', { token: agent.token, body });
      expect(res.status, res.text).toBe(422);
      expect(res.body.error.details).toContainEqual({ path, message });
    };
    await bad(
      { ids: Array.from({ length: 501 }, (_, i) => (i === 0 ? t : 100_000 + i)), changes: { status: 'resolved' } },
      'ids',
      'You can change at most 500 tickets at a time',
    );
    await bad({ ids: [], changes: { status: 'resolved' } }, 'ids', 'Select at least one ticket');
    await bad(
      { ids: [t, 'x'], changes: { status: 'resolved' } },
      'ids.1',
      'Ticket id 2 must be an id (a positive whole number)',
    );
    await bad(
      { ids: [t, 1.5], changes: { status: 'resolved' } },
      'ids.1',
      'Ticket id 2 must be an id (a positive whole number)',
    );
    await bad({ ids: [t, t], changes: { status: 'resolved' } }, 'ids', 'Each ticket may appear once');
    await bad(
      { ids: [t], changes: {} },
      'changes',
      'Choose at least one change (status, owner, queue, team, priority or tags)',
    );
    await bad(
      { ids: [t], changes: { status: 'closed' } },
      'changes.status',
      'Status must be one of: new, open, stalled, resolved, rejected, deleted',
    );
    await bad(
      { ids: [t], changes: { priority: 101, status: 'resolved' } },
      'changes.priority',
      'Priority must be between 0 and 100',
    );
    await bad({ ids: [t], changes: { subject: 'x' } }, 'changes.subject', 'Unknown field "subject"');
    expect((await ticketOf(s, t)).status).toBe('new');
    expect(await txns(t)).toEqual(['Create']);
  });

  it('a plain form post changes the ticked tickets and goes back to the list with a summary', async () => {
    const a = await make('Form A');
    const b = await make('Form B');
    const res = await s.api('POST', '/tickets', {
      token: agent.token,
      headers: { accept: 'text/html' },
      form: {
        _method: 'PATCH',
        ids: [String(a), String(b), '999998'],
        'changes.status': 'open',
        'changes.owner_id': 'none',
        'changes.priority': '',
        return_to: '?status=open&sort=id',
      },
    });
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get('location')).toBe('/tickets?status=open&sort=id');
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    expect((await ticketOf(s, a)).status).toBe('open');
    expect((await ticketOf(s, b)).status).toBe('open');
    const page = await s.api('GET', '/tickets?status=open&sort=id', {
      token: agent.token,
      headers: { accept: 'text/html', cookie },
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Changed 2 tickets; 1 failed: #999998 Ticket 999998 not found');
    expect(page.text).toMatch(/<p class="bulk-summary" role="status">/);
  });

  it('htmx gets the list region again, as its query string asks, with the summary', async () => {
    const a = await make('Htmx A');
    const res = await s.api('PATCH', '/tickets', {
      token: agent.token,
      headers: { 'hx-request': 'true', 'hx-target': 'ticket-list' },
      form: { ids: [String(a)], 'changes.status': 'stalled', 'changes.team_id': '', return_to: '?status=stalled' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toMatch(/^<div id="ticket-list"/);
    expect(res.text).toContain('Changed 1 ticket</p>');
    expect(res.text).toContain(`aria-label="Select ticket #${a}"`);
    // A hand-made return_to that is no list still answers the change (the plain list), never a 422.
    for (const back of ['?status=bogus', '?view_id=99999', '?columns=Colour']) {
      const b = await make('Htmx B');
      const odd = await s.api('PATCH', '/tickets', {
        token: agent.token,
        headers: { 'hx-request': 'true', 'hx-target': 'ticket-list' },
        form: { ids: [String(b)], 'changes.status': 'open', return_to: back },
      });
      expect(odd.status, back).toBe(200);
      expect(odd.text).toContain('Changed 1 ticket</p>');
      expect((await ticketOf(s, b)).status).toBe('open');
    }
  });
});
