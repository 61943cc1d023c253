import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';
import { uniq } from './helpers/unique.js';

// A list's tickets are the tickets themselves (SPEC B4): what GET /tickets says of each ticket is
// what GET /tickets/:id says, whatever is stored beside it. A list reads the parts beside its
// page's tickets for the whole page at once (on PostgreSQL in one statement, decision 097), a
// ticket alone in one statement of its own: two readings of the same rows, compared here for
// tickets with every part — descriptions, custom values, watchers in the order they were added,
// tags, links both ways, also between two tickets of the same page — and tickets with none.

let s: TestServer;
const tag = uniq('page').toLowerCase();
const ids: number[] = [];
let requester: { id: number; email: string };

beforeAll(async () => {
  s = await startServer();
  const ok = async (method: string, path: string, body: unknown, status = 201) => {
    const res = await s.api(method, path, { body });
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
    return (res.body.ticket ?? res.body) as { id: number };
  };
  await ok('POST', '/custom-fields', { key: 'account', name: 'Account', type: 'text' });
  await ok('POST', '/custom-fields', { key: 'seats', name: 'Seats', type: 'number' });
  const people = [];
  for (let i = 0; i < 3; i++) people.push(await s.user('agent', `${uniq('w')}@example.test`));
  requester = await s.user('requester', `${uniq('r')}@customer.example`);
  for (let i = 0; i < 6; i++) {
    const t = await ok('POST', '/tickets', {
      queue_id: 1,
      subject: uniq(`Ticket ${i}`),
      description: i === 3 ? '' : `The description of ticket ${i}: ünïcode ✓`,
      ...(i % 2 === 0 ? { custom_fields: { account: `ACME-${i}`, seats: i * 10 } } : {}),
      ...(i === 1 ? { requesters: [requester.email], cc: [people[2].email, people[0].email] } : {}),
    });
    ids.push(t.id);
    await ok('POST', `/tickets/${t.id}/tags`, { tag });
    if (i === 2) for (const x of ['zeta', 'alpha', 'mid']) await ok('POST', `/tickets/${t.id}/tags`, { tag: x });
  }
  // Links within the page (both ends listed) and to a ticket outside it.
  const outside = await ok('POST', '/tickets', { queue_id: 1, subject: uniq('Outside'), description: 'x' });
  await ok('POST', `/tickets/${ids[0]}/links`, { type: 'depends_on', ticket_id: ids[1] });
  await ok('POST', `/tickets/${ids[0]}/links`, { type: 'refers_to', ticket_id: outside.id });
  await ok('POST', `/tickets/${ids[2]}/links`, { type: 'parent_of', ticket_id: ids[0] });
  await ok('POST', `/tickets/${outside.id}/links`, { type: 'refers_to', ticket_id: ids[4] });
});
afterAll(async () => {
  await s?.close();
});

describe('a list’s tickets', () => {
  it('are each what GET /tickets/:id answers, with every part stored beside them', async () => {
    const list = await s.api('GET', `/tickets?tag=${encodeURIComponent(tag)}&sort=id`);
    expect(list.status, list.text).toBe(200);
    const listed = (list.body as { tickets: Record<string, unknown>[] }).tickets;
    expect(listed.map((t) => t.id)).toEqual(ids);
    for (const t of listed) {
      const one = await s.api('GET', `/tickets/${t.id}`);
      expect(one.status).toBe(200);
      // What a list adds to each ticket: whether it is unread, its requester's name and address.
      const { unread: _, requester: __, ...rest } = t;
      expect(rest).toEqual(one.body);
    }
    // The parts are there, not two readings that agree on nothing.
    const [t0, t1, t2, , t4] = listed as Record<string, any>[];
    expect(t0.custom_fields).toEqual({ account: 'ACME-0', seats: 0 });
    expect(t0.links).toMatchObject({ depends_on: [ids[1]], child_of: [ids[2]] });
    expect(t0.links.refers_to).toHaveLength(1);
    expect(t1.links.depended_on_by).toEqual([ids[0]]);
    expect(t1.cc).toHaveLength(2);
    expect(t1.requesters).toHaveLength(1);
    expect(t2.tags).toEqual(['alpha', 'mid', tag, 'zeta'].sort());
    expect(t4.links.referred_to_by).toHaveLength(1);
    expect(t0.description).toBe('The description of ticket 0: ünïcode ✓');
    // Who wrote in, read with the parts (on PostgreSQL in the same statement, decision 112).
    expect(t1.requester).toEqual({ id: requester.id, name: expect.any(String), email: requester.email });
    expect(listed.every((t) => t.unread === false)).toBe(true);
  });
});
