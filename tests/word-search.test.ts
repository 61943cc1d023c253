import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/port.js';
import { writerHandle } from '../src/db/sqlite/client.js';
import { flushSearch } from '../src/db/sqlite/search.js';
import { sqliteOf } from '../src/db/store.js';
import { wordPlan } from '../src/db/shared/words.js';
import { nowIso } from '../src/domain/clock.js';
import type { Actor } from '../src/domain/actor.js';
import { commentOnTicket } from '../src/domain/tickets/comment.js';
import { recordTransactions } from '../src/domain/transactions.js';
import { startServer, type TestServer } from './helpers/server.js';
import { testStore } from './helpers/store.js';

// Decision 084: a q of whole words is answered from a word index (SQLite: FTS5 unicode61 beside
// the trigram index; PostgreSQL: tsvector GIN indexes beside the trigram ones): whole words, the
// last one a prefix, case and diacritics folded; a q that is not words, or a word search that finds
// nothing, is the substring search it always was. The same answers on both stores, before and
// after SQLite's indexer moves pending text into its indexes.

const MAILGATE_TOKEN = 'word-search-mailgate-token';
const CORPUS = path.resolve(import.meta.dirname, '.corpus');

let s: TestServer;
let rq: { id: number; token: string };
const t: Record<string, number> = {};

/** Moves pending text into SQLite's indexes now (PostgreSQL's are written with each change). */
const indexNow = () => {
  if (testStore() === 'sqlite') flushSearch(writerHandle(s.db), 100_000);
};
const pendingRows = () =>
  testStore() === 'sqlite'
    ? (sqliteOf(s.db).prepare('SELECT count(*) AS n FROM search_pending').get() as { n: number }).n
    : 0;
const found = async (q: string, token?: string) => {
  const res = await s.api('GET', `/tickets?q=${encodeURIComponent(q)}&limit=500`, { token });
  expect(res.status, res.text).toBe(200);
  return (res.body.tickets as { id: number }[]).map((x) => x.id).sort((a, b) => a - b);
};
const sorted = (...ids: number[]) => [...ids].sort((a, b) => a - b);
const create = async (name: string, body: Record<string, unknown>) => {
  const res = await s.api('POST', '/tickets', { body: { queue_id: 1, requester_id: rq.id, ...body } });
  expect(res.status, res.text).toBe(201);
  t[name] = res.body.ticket.id;
};
const comment = async (name: string, body: string, internal: boolean) =>
  expect((await s.api('POST', `/tickets/${t[name]}/comment`, { body: { body, internal } })).status).toBe(201);

/** A corpus message through the mail gate, with a sender of ours added (as tests/mail-corpus.test.ts does): its ticket. */
async function mailed(original: Buffer): Promise<number> {
  const at = original.subarray(0, 5).toString() === 'From ' ? original.indexOf('\n') + 1 : 0;
  const raw = Buffer.concat([
    original.subarray(0, at),
    Buffer.from('From: Corpus Sender <corpus-sender@example.org>\r\n'),
    original.subarray(at),
  ]);
  const res = await s.api('POST', '/mailgate', {
    token: MAILGATE_TOKEN,
    headers: { 'content-type': 'message/rfc822' },
    body: raw.toString('latin1'), // both messages used here are ASCII (quoted-printable)
  });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket_id as number;
}

beforeAll(async () => {
  // The indexer's timer is an hour: each test moves pending text into the index itself.
  s = await startServer({ SEARCH_INDEX_MS: '3600000', MAILGATE_TOKEN });
  rq = await s.user('requester');
});
afterAll(async () => {
  await s.close();
});

describe('which q is a search for words', () => {
  it('whole words of letters and digits, two or more each; anything else is text', () => {
    expect(wordPlan('Invoice')?.words).toEqual(['invoice']);
    expect(wordPlan('  Café  Crème ')?.words).toEqual(['cafe', 'creme']);
    expect(wordPlan('order 4711')?.words).toEqual(['order', '4711']);
    for (const q of ['bob@example.com', 'x-ray', 'v1.2', 'a b', 'C++', 'foo_bar', '#12'])
      expect(wordPlan(q), q).toBe(undefined);
  });
});

describe('word search, on both stores', () => {
  beforeAll(async () => {
    indexNow();
    await create('voice', { subject: 'Voice mailbox full', description: 'The voice box beeps' });
    await create('invoice', { subject: 'Invoice 4711 overdue', description: 'Please pay the invoices' });
    await create('cafe', { subject: 'Crème brûlée order', description: 'For the café on the corner' });
    await create('phrase', { subject: 'Toner', description: 'The quokka toner cartridge is empty' });
    await create('apart', { subject: 'Cartridge', description: 'Toner is fine, the quokka ran away' });
    await create('mail', { subject: 'Bounce', description: 'Write to zed.support@helpdesk-example.org please' });
    await create('secret', { subject: 'Locked out', description: 'Cannot log in' });
    await comment('secret', 'Internal: password reset via wombatgate', true);
    await comment('secret', 'Public: we are on it', false);
  });

  for (const state of ['pending', 'indexed']) {
    it(`finds whole words and word prefixes, case and accents folded (${state})`, async () => {
      if (state === 'indexed') indexNow();
      else if (testStore() === 'sqlite') expect(pendingRows()).toBeGreaterThan(0);
      expect(await found('INVOICE'), state).toEqual([t.invoice]);
      expect(await found('inv'), state).toEqual([t.invoice]); // a prefix of a word
      expect(await found('invoices'), state).toEqual([t.invoice]);
      expect(await found('4711'), state).toEqual([t.invoice]);
      expect(await found('cafe'), state).toEqual([t.cafe]);
      expect(await found('CAFÉ'), state).toEqual([t.cafe]);
      expect(await found('creme brulee'), state).toEqual([t.cafe]);
      // Several words: in a row, the last one a prefix.
      expect(await found('quokka toner'), state).toEqual([t.phrase]);
      expect(await found('quokka ton'), state).toEqual([t.phrase]);
      expect(await found('toner quokka'), state).toEqual([]);
      // A word is a word: "voice" is not found inside "invoice" while whole words match.
      expect(await found('voice'), state).toEqual([t.voice]);
      // Parts of an address are words too.
      expect(await found('helpdesk'), state).toEqual([t.mail]);
    });

    it(`keeps the substring search for what is not words, and when words find nothing (${state})`, async () => {
      if (state === 'indexed') indexNow();
      // Inside a word: no word starts with it, so the substring search answers, as before.
      expect(await found('nvoic'), state).toEqual([t.invoice]);
      expect(await found('oice'), state).toEqual(sorted(t.voice, t.invoice));
      // Not words: an address, a hyphen, a dot.
      expect(await found('zed.support@helpdesk'), state).toEqual([t.mail]);
      expect(await found('desk-exam'), state).toEqual([t.mail]);
      // The substring search does not fold accents: a word search does.
      expect(await found('rûlé'), state).toEqual([t.cafe]);
      expect(await found('no such words here'), state).toEqual([]);
    });

    it(`never finds a requester's ticket by words of an internal note (${state})`, async () => {
      if (state === 'indexed') indexNow();
      expect(await found('wombatgate'), state).toEqual([t.secret]);
      expect(await found('wombatgate', rq.token), state).toEqual([]);
      expect(await found('wombat', rq.token), state).toEqual([]); // nor by a prefix, nor by the substring fallback
      expect(await found('public'), state).toEqual([t.secret]);
      expect(await found('public', rq.token), state).toEqual([t.secret]);
    });
  }

  it('a two-letter word is a word search too; found nowhere as a word, it is the substring search', async () => {
    await create('pc', { subject: 'New PC for Anna', description: 'Order it today' });
    await create('epcot', { subject: 'Epcot trip', description: 'Refill the Qxtank' });
    for (const state of ['pending', 'indexed']) {
      if (state === 'indexed') indexNow();
      expect(await found('pc'), state).toEqual([t.pc]);
      expect(await found('PC', rq.token), state).toEqual([t.pc]);
      expect(await found('xt'), state).toEqual([t.epcot]); // no word starts with it: LIKE, as before
      expect(await found('xt', rq.token), state).toEqual([t.epcot]);
    }
  });

  it('a rating comment is staff text: requesters never find a ticket by it', async () => {
    await create('rated', { subject: 'Rated ticket' });
    await transaction(s.db, async (tx) => {
      await recordTransactions(
        tx,
        t.rated,
        rq.id,
        [{ type: 'Rating', field: 'csat', new_value: 'bad', body: 'Slowpokeservice all week' }],
        nowIso(tx),
        { notify: s.settings.notify },
      );
    });
    for (const state of ['pending', 'indexed']) {
      if (state === 'indexed') indexNow();
      expect(await found('slowpokeservice'), state).toEqual([t.rated]);
      expect(await found('slowpokeservice', rq.token), state).toEqual([]);
      expect(await found('slowpoke', rq.token), state).toEqual([]);
    }
  });

  it('a merge moves the words with the messages, and an unmerge moves them back', async () => {
    await create('from', { subject: 'Merged away', description: 'Zanzibarflavour is missing' });
    await create('into', { subject: 'Merge target' });
    indexNow();
    expect(await found('zanzibarflavour')).toEqual([t.from]);
    expect((await s.api('POST', `/tickets/${t.from}/merge`, { body: { into: t.into } })).status).toBe(200);
    for (const state of ['pending', 'indexed']) {
      if (state === 'indexed') indexNow();
      expect(await found('zanzibarflavour'), state).toEqual([t.into]);
    }
    const back = await s.api('POST', `/tickets/${t.into}/unmerge`, { body: { ticket_id: t.from } });
    expect(back.status, back.text).toBe(200);
    indexNow();
    expect(await found('zanzibarflavour')).toEqual([t.from]);
  });

  it('a message with more distinct words than a tsvector holds is written, and found by its words', async () => {
    // ~150,000 distinct words (about 900 KB): past PostgreSQL's 1 MB tsvector, whose index keeps
    // the first 64 Ki characters' words; the later ones are found by the substring search there.
    const words = Array.from({ length: 150_000 }, (_, i) => `q${i.toString(36).padStart(4, '0')}`);
    await create('huge', { subject: 'Word list' });
    const admin: Actor = { id: 1, email: 'admin@example.com', name: 'Admin', role: 'admin' };
    await commentOnTicket(
      s.db,
      admin,
      t.huge,
      { body: words.join(' '), internal: false },
      { notify: s.settings.notify },
    );
    for (const state of ['pending', 'indexed']) {
      if (state === 'indexed') indexNow();
      expect(await found(words[10]), state).toEqual([t.huge]);
      expect(await found(words[149_000]), state).toEqual([t.huge]);
    }
  }, 60_000);

  it('finds mail nobody here wrote by the words of its body', async () => {
    // A text, not a message: sent as the body of one.
    const text = fs.readFileSync(path.join(CORPUS, 'rt/lorem-ipsum'));
    const lorem = await mailed(
      Buffer.concat([Buffer.from('Subject: Placeholder\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n'), text]),
    );
    const umlaut = await mailed(fs.readFileSync(path.join(CORPUS, 'rt/multipart-alternative-with-umlaut')));
    for (const state of ['pending', 'indexed']) {
      if (state === 'indexed') indexNow();
      expect(await found('consectetur adipisicing'), state).toEqual([lorem]);
      expect(await found('laborum'), state).toEqual([lorem]);
      expect(await found('freundlichen grußen'), state).toEqual([umlaut]); // Grüßen, the ü folded
      expect(await found('freundlichen GRÜ'), state).toEqual([umlaut]);
    }
  });
});
