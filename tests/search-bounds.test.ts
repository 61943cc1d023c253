import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOf } from '../src/db/store.js';
import { flushSearch } from '../src/db/sqlite/search.js';
import type { Actor } from '../src/domain/actor.js';
import { MAX_CHECKED_TICKETS, OWN_SCAN_MAX_TICKETS, TEXT_CHECK_BUDGET } from '../src/db/sqlite/textHold.js';
import { writerHandle } from '../src/db/sqlite/client.js';
import { transaction } from '../src/db/port.js';
import { commentOnTicket } from '../src/domain/tickets/comment.js';
import { createTicket } from '../src/domain/tickets/write.js';
import { expectError } from './helpers/expect.js';
import { startServer, type TestServer } from './helpers/server.js';
import { mintedToken } from './helpers/session.js';
import { itOn, testStore } from './helpers/store.js';

// Issue 12 §3 / decision 017: `q` keeps SPEC B4's meaning (a case-insensitive substring of the
// subject and the messages the reader may see, with an exact total) for any text, while the
// work one search does stays bounded: a repeated trigram is walked once in the index and the
// candidates are checked against their text, a requester's search reads their own tickets, and
// a search whose check would read too much is a 422. Input the search cannot match is a 422.

const enc = encodeURIComponent;
const MAILGATE_TOKEN = 'search-bounds-mailgate-token';

/** The ids a search finds (all of them), checked against `total`. */
async function found(s: TestServer, q: string, token?: string): Promise<number[]> {
  const res = await s.api('GET', `/tickets?q=${enc(q)}&limit=500`, { token });
  expect(res.status, `${JSON.stringify(q)}: ${res.text.slice(0, 300)}`).toBe(200);
  const ids = (res.body.tickets as { id: number }[]).map((t) => t.id).sort((a, b) => a - b);
  expect(res.body.total, JSON.stringify(q)).toBe(ids.length);
  return ids;
}

const sorted = (...ids: number[]) => [...ids].sort((a, b) => a - b);

/**
 * Moves pending text into SQLite's full-text index now. PostgreSQL has no pending text (its
 * trigram indexes are maintained in each transaction): both states are the same there, and the
 * answers must be too.
 */
const indexNow = (s: TestServer) => {
  if (testStore() === 'sqlite') flushSearch(writerHandle(s.db), 100_000);
};

function mail(from: string, subject: string, body: string): string {
  return (
    `From: Sender <${from}>\r\nTo: help@example.com\r\nSubject: ${subject}\r\nMessage-ID: <${Math.random().toString(36).slice(2)}@example.com>\r\n` +
    `Content-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`
  );
}

/** Posts a message that must open a new ticket: its id. */
async function mailedTicketId(s: TestServer, raw: string): Promise<number> {
  const res = await s.api('POST', '/mailgate', {
    token: MAILGATE_TOKEN,
    headers: { 'content-type': 'message/rfc822' },
    body: raw,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket_id as number;
}

describe('what q finds, for any text', () => {
  let s: TestServer;
  let rqA: { id: number; token: string };
  let rqB: { id: number; token: string };
  const t: Record<string, number> = {};

  beforeAll(async () => {
    // The indexer's timer is an hour: each test moves pending text into the index itself.
    s = await startServer({ SEARCH_INDEX_MS: '3600000' });
    rqA = await s.user('requester');
    rqB = await s.user('requester');
    const create = async (name: string, body: Record<string, unknown>) => {
      const res = await s.api('POST', '/tickets', { body: { queue_id: 1, ...body } });
      expect(res.status, res.text).toBe(201);
      t[name] = res.body.ticket.id;
    };
    const comment = async (name: string, body: string, internal: boolean) =>
      expect((await s.api('POST', `/tickets/${t[name]}/comment`, { body: { body, internal } })).status).toBe(201);
    await create('a1', { subject: 'Yellow BANANA crate', description: 'We ordered ten crates', requester_id: rqA.id });
    await comment('a1', 'Route along the Mississippi river', true);
    await comment('a1', 'hahaha, that is funny', false);
    // Every piece of the repeated-trigram queries below, but never the whole query.
    await create('a2', {
      subject: 'bananXnana trap',
      description: 'banan nana; Missis sissippi ssiss; ha ha ha; x-xxxxx-xxxxxx',
      requester_id: rqA.id,
    });
    await create('b1', {
      subject: 'Other banana order',
      description: 'Delivery via MISSISSIPPI',
      requester_id: rqB.id,
    });
    await create('x', { subject: 'Long line', description: 'x'.repeat(50_000), requester_id: rqB.id });
    await create('special', {
      subject: 'Quote "enterprise" plan',
      description:
        'Path C:\\temp\\*.log NEAR(a b) {public_text}: col ^start -minus (paren) AND OR NOT 😀 emoji 漢字テキスト Ünïcödé\ttabbed\nnext line',
      requester_id: rqA.id,
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  for (const state of ['pending', 'indexed'] as const) {
    it(`a q that repeats a trigram is still an exact substring match (${state})`, async () => {
      if (state === 'indexed') indexNow(s);
      expect(await found(s, 'banana')).toEqual(sorted(t.a1, t.b1));
      expect(await found(s, 'mississippi')).toEqual(sorted(t.a1, t.b1));
      expect(await found(s, 'HAHAHA')).toEqual([t.a1]);
      expect(await found(s, 'ha ha ha')).toEqual([t.a2]);
      expect(await found(s, 'x'.repeat(200))).toEqual([t.x]);
      expect(await found(s, `${'x'.repeat(199)}y`)).toEqual([]);
      expect(await found(s, 'xxxxx-xxxxxx')).toEqual([t.a2]);
      expect(await found(s, 'xxxxxx-xxxxx')).toEqual([]);
    });

    it(`a requester finds only their own tickets, by what they may see (${state})`, async () => {
      if (state === 'indexed') indexNow(s);
      expect(await found(s, 'banana', rqA.token)).toEqual([t.a1]);
      expect(await found(s, 'banana', rqB.token)).toEqual([t.b1]);
      // a1's Mississippi is an internal note; a2 has only its pieces.
      expect(await found(s, 'mississippi', rqA.token)).toEqual([]);
      expect(await found(s, 'mississippi', rqB.token)).toEqual([t.b1]);
      expect(await found(s, 'hahaha', rqA.token)).toEqual([t.a1]);
      expect(await found(s, 'x'.repeat(200), rqA.token)).toEqual([]);
      expect(await found(s, 'x'.repeat(200), rqB.token)).toEqual([t.x]);
      // One or two characters (LIKE), over the requester's own tickets too.
      expect(await found(s, 'ba', rqA.token)).toEqual(sorted(t.a1, t.a2));
      expect(await found(s, 'iv', rqA.token)).toEqual([]); // only in a1's internal note
      expect(await found(s, 'iv')).toEqual(sorted(t.a1, t.b1));
    });

    it(`quotes, FTS5 syntax and any Unicode are plain text (${state})`, async () => {
      if (state === 'indexed') indexNow(s);
      for (const q of [
        '"enterprise"',
        'quote "enterprise" PLAN',
        'C:\\temp\\*.log',
        'NEAR(a b)',
        '{public_text}: col',
        '^start',
        '-minus (paren)',
        'AND OR NOT',
        '😀 emoji',
        '漢字テ',
        'ünïcödé',
        'ÜNÏCÖDÉ',
        'é\ttabbed',
        'tabbed\nnext',
        '*.',
        ') AND',
        '"',
        '*',
        'near',
      ]) {
        expect(await found(s, q), JSON.stringify(q)).toEqual([t.special]);
      }
      for (const q of ['""', '" OR "', 'a*', '😀😀', '{internal_text}: x', 'NEAR(a c)', 'plan AND']) {
        expect(await found(s, q), JSON.stringify(q)).toEqual([]);
      }
      // A broken percent-escape is left as typed (and found nowhere), not a failure.
      const res = await s.api('GET', '/tickets?q=abc%ED%A0%80');
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(0);
    });
  }

  it('text a message cannot hold is a 422 naming q, and so is a q over 200 characters', async () => {
    for (const raw of ['abc%00', '%00', 'a%00b%00c', '%01abc', 'abc%1B%5B31m', 'abc%7F']) {
      const res = await s.api('GET', `/tickets?q=${raw}`);
      expectError(res, 422, 'validation_failed', ['q']);
      expect(res.body.error.details[0].message).toBe('Search text must not contain control characters');
    }
    const long = await s.api('GET', `/tickets?q=${'x'.repeat(201)}`);
    expectError(long, 422, 'validation_failed', ['q']);
    expect(long.body.error.details[0].message).toBe('Search text: at most 200 characters');
    expectError(await s.api('GET', '/tickets?q=abc&q=def'), 422, 'validation_failed', ['q']);
    // Surrounding spaces do not count; 200 characters are fine.
    expect(await found(s, `${' '.repeat(150)}banana${' '.repeat(150)}`)).toEqual(sorted(t.a1, t.b1));
    expect(await found(s, 'x'.repeat(200))).toEqual([t.x]);
    // A lone UTF-16 surrogate can only arrive in JSON, e.g. a saved view's filters.
    const view = await s.api('POST', '/saved-views', { body: { name: 'Broken', filters: { q: 'abc\ud800' } } });
    expectError(view, 422, 'validation_failed', ['filters.q']);
    expect(view.body.error.details[0].message).toMatch(/lone surrogate/);
    expectError(
      await s.api('POST', '/saved-views', { body: { name: 'Nul', filters: { q: 'a\u0000b' } } }),
      422,
      'validation_failed',
      ['filters.q'],
    );
    // Nothing was stored by the refused requests.
    expect(
      (await s.api('GET', '/saved-views')).body.saved_views ?? (await s.api('GET', '/saved-views')).body.views ?? [],
    ).toEqual([]);
  });
});

describe('bounded work', () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startServer({ MAILGATE_TOKEN });
  });
  afterAll(async () => {
    await s?.close();
  });

  // The text budget and the candidate limit are SQLite's cost model (decision 017): a search on
  // PostgreSQL reads a GIN index and never needs them (SearchTooBroad is never thrown there).
  itOn('sqlite')(
    `a repeated q whose pieces are in more than ${TEXT_CHECK_BUDGET / 1024 / 1024} MiB of text is a 422; distinctive words still find it`,
    async () => {
      const sender = 'flood@customers.example';
      // Ten tickets, each a message of ~1 MB of "=" (a message keeps at most 1,000,000 characters
      // as text): "==========" is one trigram ten times over.
      const flood = await mailedTicketId(s, mail(sender, 'Flood of equals signs', '='.repeat(1_000_000)));
      for (let i = 1; i < 10; i++) await mailedTicketId(s, mail(sender, `More equals ${i}`, '='.repeat(1_000_000)));
      const users = (await s.api('GET', '/users?role=requester')).body.users as { id: number; email: string }[];
      const id = users.find((u) => u.email === sender)!.id;
      const token = await mintedToken(s, { id, email: sender });
      for (const who of [undefined, token]) {
        const res = await s.api('GET', `/tickets?q=${enc('==========')}`, { token: who });
        expectError(res, 422, 'validation_failed', ['q']);
        expect(res.body.error.details[0].message).toMatch(/^Too broad to search/);
        expect(await found(s, 'flood of equals', who)).toEqual([flood]);
        expect(await found(s, 'a=b', who)).toEqual([]); // no repeated trigram: exact, through the index alone
      }
      expect((await s.api('GET', '/healthz')).status).toBe(200);
    },
  );

  itOn('sqlite')(
    `a repeated q found in more than ${MAX_CHECKED_TICKETS} tickets is a 422 before any text is read`,
    async () => {
      // Bulk rows (the triggers index them as any write does); thousands of API creates would take long.
      const now = new Date().toISOString();
      sqliteOf(s.db)
        .prepare(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO tickets (queue_id, subject, status, priority, requester_id, created_at, updated_at)
      SELECT 1, 'Hohoho number ' || i, 'new', 0, 1, ?, ? FROM n`)
        .run(MAX_CHECKED_TICKETS, now, now);
      for (const state of ['pending', 'indexed']) {
        if (state === 'indexed') indexNow(s);
        // Inside words ("ohoho" starts no word: the word search finds nothing, decision 084), so by trigrams.
        const res = await s.api('GET', `/tickets?q=${enc('ohoho')}`);
        expectError(res, 422, 'validation_failed', ['q']);
        expect(res.body.error.details[0].message).toMatch(/^Too broad to search/);
        // Exact queries have no such limit: every match, and the exact total.
        const all = await s.api('GET', `/tickets?q=${enc('o number')}&limit=1`);
        expect(all.status).toBe(200);
        expect(all.body.total).toBe(MAX_CHECKED_TICKETS + 1);
        // The whole word is a word search, exact through the word index whatever it repeats:
        // counted up to the list's bound once indexed (decisions 085, 092: from the index's newest
        // tickets), exactly with count=exact.
        const word = await s.api('GET', `/tickets?q=${enc('hohoho')}&limit=1`);
        expect(word.status).toBe(200);
        expect([word.body.total, word.body.total_exact]).toEqual(
          word.body.total_exact ? [MAX_CHECKED_TICKETS + 1, true] : [1000, false],
        );
        const exact = await s.api('GET', `/tickets?q=${enc('hohoho')}&limit=1&count=exact`);
        expect([exact.body.total, exact.body.total_exact]).toEqual([MAX_CHECKED_TICKETS + 1, true]);
      }
      // A saved view with such a q: its list says why, and a dashboard showing it still opens.
      const view = await s.api('POST', '/saved-views', { body: { name: 'Hohoho', filters: { q: 'ohoho' } } });
      expect(view.status, view.text).toBe(201);
      expectError(await s.api('GET', `/tickets?view_id=${view.body.id}`), 422, 'validation_failed', ['q']);
      const board = await s.api('POST', '/dashboards', {
        body: {
          name: 'Board',
          widgets: [{ kind: 'ticket_list', title: 'Ho', config: { view_id: view.body.id } }, { kind: 'status_counts' }],
        },
      });
      expect(board.status, board.text).toBe(201);
      const shown = await s.api('GET', `/dashboards/${board.body.id}`);
      expect(shown.status, shown.text).toBe(200);
      expect(shown.body.widgets[0].data.error).toMatch(/^The view "Hohoho" cannot be shown: Too broad to search/);
      expect(shown.body.widgets[1].data.counts.length).toBeGreaterThan(0);
      expect((await s.api('GET', `/dashboards/${board.body.id}`, { headers: { accept: 'text/html' } })).status).toBe(
        200,
      );
    },
  );

  it(`a requester with more than ${OWN_SCAN_MAX_TICKETS} tickets is searched through the index, with the same answers`, async () => {
    const admin: Actor = { id: 1, email: 'admin@example.com', name: 'Admin', role: 'admin' };
    const busy = await s.user('requester');
    const other = await s.user('requester');
    const ids: Record<string, number> = {};
    await transaction(s.db, async (tx) => {
      for (let i = 0; i <= OWN_SCAN_MAX_TICKETS; i++)
        await createTicket(
          tx,
          admin,
          { queue_id: 1, subject: `Routine check ${i}`, requester_id: busy.id },
          s.settings.notify,
        );
      ids.pub = (
        await createTicket(
          tx,
          admin,
          { queue_id: 1, subject: 'Fruit', description: 'A kiwikiwi basket', requester_id: busy.id },
          s.settings.notify,
        )
      ).ticket.id;
      ids.note = (
        await createTicket(tx, admin, { queue_id: 1, subject: 'Fruit too', requester_id: busy.id }, s.settings.notify)
      ).ticket.id;
      await commentOnTicket(
        tx,
        admin,
        ids.note,
        { body: 'kiwikiwi in a note', internal: true },
        { notify: s.settings.notify },
      );
      ids.other = (
        await createTicket(
          tx,
          admin,
          { queue_id: 1, subject: 'kiwikiwi for someone else', requester_id: other.id },
          s.settings.notify,
        )
      ).ticket.id;
    });
    // Pending and then indexed: the word index's public column keeps the note from the requester (decision 084).
    for (const state of ['pending', 'indexed']) {
      if (state === 'indexed') indexNow(s);
      for (const [who, token, expected] of [
        ['busy', busy.token, [ids.pub]],
        ['other', other.token, [ids.other]],
        ['staff', undefined, sorted(ids.pub, ids.note, ids.other)],
      ] as const) {
        expect(await found(s, 'kiwikiwi', token), `${who} ${state}`).toEqual(expected);
        expect(await found(s, 'kiwi', token), `${who} ${state}`).toEqual(expected);
        expect(await found(s, 'KIWIKIWI basket', token), `${who} ${state}`).toEqual(who === 'other' ? [] : [ids.pub]);
      }
    }
  }, 120_000); // a thousand tickets made one by one: a round trip per statement on PostgreSQL
});
