import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOf } from '../src/db/store.js';
import { writerHandle } from '../src/db/sqlite/client.js';
import { flushSearch } from '../src/db/sqlite/search.js';
import { startServer, type TestServer } from './helpers/server.js';

// Issue 6 / decision 011: new text is indexed in batches. A change writes its text into
// search_pending; the indexer moves it into the FTS5 index later. Search must give the same
// answers before and after that move. The indexer's own timer is set to an hour here, so each
// test decides when the move happens (flushSearch), instead of racing a 100 ms timer.

let srv: TestServer;
let requester: { id: number; token: string };

const pending = () => (sqliteOf(srv.db).prepare('SELECT count(*) AS n FROM search_pending').get() as { n: number }).n;
const found = async (q: string, token?: string) => {
  const res = await srv.api('GET', `/tickets?q=${encodeURIComponent(q)}&limit=500`, { token });
  expect(res.status).toBe(200);
  return (res.body.tickets as { id: number }[]).map((t) => t.id).sort((a, b) => a - b);
};

beforeAll(async () => {
  srv = await startServer({ SEARCH_INDEX_MS: '3600000' });
  requester = await srv.user('requester');
});
afterAll(async () => {
  await srv.close();
});

describe('text search across the pending batch and the index', () => {
  it('finds a subject, a public reply and an internal note before and after they are indexed, case-insensitively', async () => {
    flushSearch(writerHandle(srv.db));
    const t = (
      await srv.api('POST', '/tickets', {
        body: {
          queue_id: 1,
          subject: 'Zebraprinter jammed',
          description: 'Paper tray Ölwechsel',
          requester_id: requester.id,
        },
      })
    ).body.ticket;
    await srv.api('POST', `/tickets/${t.id}/comment`, {
      body: { body: 'Customer says the QUOKKA toner is empty', internal: false },
    });
    await srv.api('POST', `/tickets/${t.id}/comment`, { body: { body: 'Internal: wombatcode 4711' } });
    expect(pending()).toBe(4); // subject, description, reply, note

    for (const state of ['pending', 'indexed']) {
      if (state === 'indexed') {
        expect(flushSearch(writerHandle(srv.db))).toBe(4);
        expect(pending()).toBe(0);
      }
      expect(await found('zebraPRINTER'), state).toEqual([t.id]);
      expect(await found('ölwechsel'), state).toEqual([t.id]);
      expect(await found('quokka toner'), state).toEqual([t.id]);
      expect(await found('wombatcode'), state).toEqual([t.id]);
      expect(await found('no such words here'), state).toEqual([]);
      // The requester sees their ticket by public words, never by the internal note.
      expect(await found('quokka', requester.token), state).toEqual([t.id]);
      expect(await found('wombatcode', requester.token), state).toEqual([]);
    }
  });

  it('a renamed subject is found by its new words only, whether or not the rename is indexed yet', async () => {
    const t = (await srv.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Aardvarkmonitor flickers' } })).body
      .ticket;
    flushSearch(writerHandle(srv.db));
    expect(await found('aardvarkmonitor')).toEqual([t.id]);
    expect((await srv.api('PATCH', `/tickets/${t.id}`, { body: { subject: 'Pangolinscreen flickers' } })).status).toBe(
      200,
    );
    expect(pending()).toBe(1);
    expect(await found('aardvarkmonitor')).toEqual([]);
    expect(await found('pangolinscreen')).toEqual([t.id]);
    flushSearch(writerHandle(srv.db));
    expect(await found('aardvarkmonitor')).toEqual([]);
    expect(await found('pangolinscreen')).toEqual([t.id]);
    // Renamed twice before the indexer runs: only the last subject counts.
    await srv.api('PATCH', `/tickets/${t.id}`, { body: { subject: 'Capybaradisplay flickers' } });
    await srv.api('PATCH', `/tickets/${t.id}`, { body: { subject: 'Okapipanel flickers' } });
    expect(await found('capybaradisplay')).toEqual([]);
    flushSearch(writerHandle(srv.db));
    expect(await found('capybaradisplay')).toEqual([]);
    expect(await found('okapipanel')).toEqual([t.id]);
  });

  it('moves a backlog in bounded batches and leaves nothing behind', async () => {
    for (let i = 0; i < 7; i++)
      await srv.api('POST', '/tickets', { body: { queue_id: 1, subject: `Backlogitem number ${i}` } });
    expect(pending()).toBe(7);
    expect(flushSearch(writerHandle(srv.db), 3)).toBe(3);
    expect(flushSearch(writerHandle(srv.db), 3)).toBe(3);
    expect(await found('backlogitem')).toHaveLength(7); // 6 indexed, 1 pending
    expect(flushSearch(writerHandle(srv.db), 3)).toBe(1);
    expect(flushSearch(writerHandle(srv.db), 3)).toBe(0);
    expect(await found('backlogitem')).toHaveLength(7);
  });
});

describe('the indexer', () => {
  it('indexes pending text on its own timer', async () => {
    const s = await startServer({ SEARCH_INDEX_MS: '20' });
    try {
      await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Timerindexed ticket' } });
      const left = () => (sqliteOf(s.db).prepare('SELECT count(*) AS n FROM search_pending').get() as { n: number }).n;
      await expect.poll(left, { timeout: 2000, interval: 20 }).toBe(0);
      const res = await s.api('GET', '/tickets?q=timerindexed');
      expect(res.body.total).toBe(1);
    } finally {
      await s.close();
    }
  });
});

describe('the index merges its segments a little at a time', () => {
  // FTS5's "crisis merge" merged a whole level at once inside one write: 0.8–1.2 s at 100k
  // tickets, on the thread that serves every request (migration 0017, decision 032).
  it('has the crisis merge out of reach, and the index still finds what is written after it', async () => {
    const config = sqliteOf(srv.db).prepare("SELECT v FROM message_search_config WHERE k = 'crisismerge'").get() as
      | { v: number }
      | undefined;
    expect(config?.v).toBe(1000);
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) {
      ids.push(
        (
          await srv.api('POST', '/tickets', {
            body: { queue_id: 1, subject: `Segmentwalrus ${i}`, description: `Body ${i}` },
          })
        ).body.ticket.id,
      );
      flushSearch(writerHandle(srv.db)); // each flush writes a segment of its own
    }
    expect(await found('segmentwalrus')).toEqual(ids);
  });
});
