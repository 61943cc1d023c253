import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C4: a `q` of `123` or `#123` puts ticket 123 first — when the reader may see it and it
// passes the other filters — followed by the text matches of q as for any search, without it.
// No text here holds a digit except the ticket numbers written on purpose.

let s: TestServer;
let rq: { id: number; token: string };
let A: number; // its own subject holds its number
let B: number; // its description mentions A's number
let C: number; // the requester's own ticket
let D: number; // resolved, mentions A's number too

const list = async (qs: string, token?: string) => {
  const res = await s.api('GET', `/tickets?${qs}`, { token });
  expect(res.status, res.text).toBe(200);
  return { ids: (res.body.tickets as { id: number }[]).map((x) => x.id), total: res.body.total as number };
};

beforeAll(async () => {
  s = await startServer();
  rq = await s.user('requester', 'numbers@example.com');
  const make = async (subject: string, description: string, extra: Record<string, unknown> = {}) => {
    const res = await s.api('POST', '/tickets', { body: { queue_id: 1, subject, description, ...extra } });
    expect(res.status, res.text).toBe(201);
    return res.body.ticket.id as number;
  };
  // Enough tickets first that the numbers below have two digits and appear in no other text.
  for (let i = 0; i < 11; i++) await make('Filler ticket', 'nothing to see');
  A = await make('Printer jam', 'the tray is stuck');
  expect((await s.api('PATCH', `/tickets/${A}`, { body: { subject: `Printer jam, case ${A}` } })).status).toBe(200);
  B = await make('Scanner', `same cause as ticket ${A} probably`);
  C = await make('My own question', 'from the requester', { requester_id: rq.id });
  D = await make('Old duplicate', `see ${A}`, { status: 'resolved' });
});
afterAll(async () => {
  await s?.close();
});

describe('q naming a ticket by its number', () => {
  it('"#n" and "n" put ticket n first, then the text matches, each ticket once', async () => {
    expect(await list(`q=${encodeURIComponent(`#${A}`)}`)).toEqual({ ids: [A], total: 1 });
    // A's own subject holds its number too: it is listed first and only once.
    const plain = await list(`q=${A}`);
    expect(plain.ids[0]).toBe(A);
    expect(plain.ids.slice(1).sort((x, y) => x - y)).toEqual([B, D]);
    expect(plain.total).toBe(3);
  });

  it('pages count the ticket once: page 1 starts with it, the next pages go on without it', async () => {
    const all = (await list(`q=${A}&limit=50`)).ids;
    const pages = [];
    for (let offset = 0; offset < 3; offset++) pages.push(...(await list(`q=${A}&limit=1&offset=${offset}`)).ids);
    expect(pages).toEqual(all);
    expect(await list(`q=${A}&limit=1&offset=3`)).toEqual({ ids: [], total: 3 });
    expect(await list(`q=${A}&limit=2&offset=1`)).toEqual({ ids: all.slice(1), total: 3 });
  });

  it('the other filters apply to the ticket as to every other', async () => {
    expect(await list(`q=${A}&status=resolved`)).toEqual({ ids: [D], total: 1 });
    expect(await list(`q=${B}&status=new`)).toEqual({ ids: [B], total: 1 });
    expect(await list(`q=${B}&status=resolved`)).toEqual({ ids: [], total: 0 });
  });

  it('a requester gets only a ticket of their own first; another number finds nothing of theirs', async () => {
    expect(await list(`q=${encodeURIComponent(`#${C}`)}`, rq.token)).toEqual({ ids: [C], total: 1 });
    expect(await list(`q=${encodeURIComponent(`#${A}`)}`, rq.token)).toEqual({ ids: [], total: 0 });
    expect(await list(`q=${A}`, rq.token)).toEqual({ ids: [], total: 0 });
  });

  it('a number that is no ticket is searched as text only', async () => {
    expect(await list('q=%23987654')).toEqual({ ids: [], total: 0 });
    expect(await list(`q=${A}x`)).toEqual({ ids: [], total: 0 }); // not a number: text only
  });
});
