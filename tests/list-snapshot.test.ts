import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/db/port.js';
import type { TicketListSpec } from '../src/db/ticketListSpec.js';
import { closeDb, openStore } from '../src/db/store.js';
import { contradicts } from '../src/db/shared/listTotal.js';
import { SET_LEADS_UNDER } from '../src/db/sqlite/listSets.js';
import { countingBuilds } from './helpers/builds.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';

// A list's total and its page are read by two statements (on PostgreSQL side by side, on two
// connections: decision 088). While tickets change, the page a list shows must still
// be the page of the total it shows — never "1 ticket" over an empty page (decision 096; found
// by tests/imap.test.ts on PostgreSQL, whose poller's ticket was counted but not listed). Here a
// second connection moves a ticket in and out of the list (new, open, new…), each move its own
// commit, while the list of new tickets is read again and again.

const LISTS = 300;
const STEADY = 5; // tickets that stay new: the one moving makes the total 5 or 6
const NOW = '2026-11-28T12:00:00.000Z';
const spec = (queueId: number, more: Partial<TicketListSpec> = {}): TicketListSpec => ({
  includeComments: true,
  cf: [],
  queue_id: queueId,
  status: ['new'],
  sort: 'id',
  desc: true,
  limit: 50,
  offset: 0,
  ...more,
});

/** A loop of `step` from start() to stop(); stop() says how many steps ran. */
function mover(step: () => Promise<unknown>): { start(): void; stop(): Promise<number> } {
  let steps = 0;
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  return {
    start() {
      running = true;
      loop = (async () => {
        for (; running; steps++) await step();
      })();
    },
    async stop() {
      running = false;
      await loop;
      return steps;
    },
  };
}

/** Lists `LISTS` times while `move` runs; every answer whose page does not fit its total. */
async function listWhileMoving(store: Store, queueId: number, move: ReturnType<typeof mover>) {
  const misfits: { total: number; exact: boolean; shown: number }[] = [];
  const totals = new Set<number>();
  move.start();
  try {
    for (let i = 0; i < LISTS; i++) {
      const r = await store.queries.listTickets(store.db, spec(queueId));
      if (contradicts(spec(queueId), { ...r, page: r.rows }))
        misfits.push({ total: r.total, exact: r.exact, shown: r.rows.length });
      totals.add(r.total);
    }
  } finally {
    expect(await move.stop()).toBeGreaterThan(0);
  }
  expect([...totals].sort()).toEqual([STEADY, STEADY + 1]); // the lists raced the moves: they saw the ticket in and out
  return misfits;
}

const FLIP = "UPDATE tickets SET status = CASE status WHEN 'new' THEN 'open' ELSE 'new' END";

describe('a list read while a ticket moves in and out of it: its page fits its total', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  /**
   * A SQLite store on a file of its own (with `readThreads` reader threads), a second connection
   * to the file that commits as fast as the machine can (the races are what is tested), and a
   * queue it made.
   */
  async function sqliteWithWriter(readThreads: number) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-list-snapshot-'));
    dirs.push(dir);
    const file = path.join(dir, 'hxdesk.db');
    const store = await openStore({ dbPath: file, READ_THREADS: readThreads });
    const writer = new Database(file);
    writer.pragma('busy_timeout = 5000');
    writer.pragma('synchronous = OFF');
    const queueId = Number(
      writer.prepare('INSERT INTO queues (name, created_at, updated_at) VALUES (?, ?, ?)').run('Snapshot', NOW, NOW)
        .lastInsertRowid,
    );
    const insert = writer.prepare(
      "INSERT INTO tickets (queue_id, subject, status, created_at, updated_at) VALUES (?, ?, 'new', ?, ?)",
    );
    return {
      store,
      writer,
      queueId,
      /** A new ticket in the queue, by the second connection: its id. */
      addTicket: (subject: string) => Number(insert.run(queueId, subject, NOW, NOW).lastInsertRowid),
      async close() {
        writer.close();
        await closeDb(store.db);
      },
    };
  }

  it('on SQLite, read by a reader thread while another connection commits', async () => {
    const { store, writer, queueId, addTicket, close } = await sqliteWithWriter(1);
    try {
      let moving = 0;
      for (let i = 0; i <= STEADY; i++) moving = addTicket(`Ticket ${i}`);
      const flip = writer.prepare(`${FLIP} WHERE id = ?`);
      const misfits = await listWhileMoving(
        store,
        queueId,
        mover(async () => {
          // A few commits, then a turn for the list's answer: the reader thread reads meanwhile.
          for (let k = 0; k < 5; k++) flip.run(moving);
          await new Promise((r) => setImmediate(r));
        }),
      );
      expect(misfits).toEqual([]);
    } finally {
      await close();
    }
  });

  it("on SQLite, what is read beside the page is the page's: its tags as they were when its rows were read (decision 105)", async () => {
    const { store, writer, queueId, addTicket, close } = await sqliteWithWriter(1);
    try {
      const id = addTicket('Tagged a');
      writer.prepare("INSERT INTO ticket_tags (ticket_id, tag, created_at) VALUES (?, 'a', ?)").run(id, NOW);
      // One commit changes the subject and the tag together: a page and its parts read in two
      // snapshots would pair one subject with the other tag.
      const swap = writer.transaction((to: 'a' | 'b') => {
        writer.prepare("UPDATE tickets SET subject = 'Tagged ' || ? WHERE id = ?").run(to, id);
        writer.prepare('UPDATE ticket_tags SET tag = ? WHERE ticket_id = ?').run(to, id);
      });
      let to: 'a' | 'b' = 'a';
      const move = mover(async () => {
        for (let k = 0; k < 5; k++) swap((to = to === 'a' ? 'b' : 'a'));
        await new Promise((r) => setImmediate(r));
      });
      const seen: string[] = [];
      move.start();
      try {
        for (let i = 0; i < LISTS; i++) {
          const r = await store.queries.listTickets(
            store.db,
            spec(queueId, { parts: { read: 'row', requesters: false } }),
          );
          seen.push(`${r.rows[0].subject}: ${r.parts?.tags.map((t) => t.body).join(',')}`);
        }
      } finally {
        expect(await move.stop()).toBeGreaterThan(0);
      }
      expect(new Set(seen)).toEqual(new Set(['Tagged a: a', 'Tagged b: b'])); // both, and never one with the other's tag
    } finally {
      await close();
    }
  });

  /** `run` as a list's answer (its subjects and total) with how many queries drizzle built for it (countingBuilds). */
  function listing(run: (more: Partial<TicketListSpec>) => Promise<{ rows: { subject: string }[]; total: number }>) {
    return {
      async list(more: Partial<TicketListSpec> = {}) {
        const { answer, builds } = await countingBuilds(() => run(more));
        return { subjects: answer.rows.map((t) => t.subject), total: answer.total, builds };
      },
    };
  }

  it('on SQLite, a plain list keeps its statements for its spec, and reads what is committed since (issue 32)', async () => {
    const { store, queueId, addTicket, close } = await sqliteWithWriter(0);
    const { list } = listing((more) =>
      store.queries.listTickets(store.db, spec(queueId, { countUpTo: 1000, ...more })),
    );
    try {
      addTicket('First');
      expect((await list()).builds).toBeGreaterThan(0); // built the first time
      expect(await list()).toEqual({ subjects: ['First'], total: 1, builds: 0 });
      addTicket('Second');
      expect(await list()).toEqual({ subjects: ['Second', 'First'], total: 2, builds: 0 });
      // Another spec is other statements; a text search holds its set afresh and is built each time.
      expect((await list({ offset: 1 })).subjects).toEqual(['First']);
      await list({ q: 'second' });
      const again = await list({ q: 'second' });
      expect(again).toMatchObject({ subjects: ['Second'], total: 1 });
      expect(again.builds).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it('on SQLite, a list narrowed by a custom value or a tag keeps its statements too; with a status, for each choice of the set that leads (issue 32)', async () => {
    const { store, writer, queueId, addTicket, close } = await sqliteWithWriter(0);
    // Neither queue nor status: the set alone narrows the list.
    const { list } = listing((more) =>
      store.queries.listTickets(store.db, {
        ...spec(queueId, { countUpTo: 1000 }),
        queue_id: undefined,
        status: undefined,
        ...more,
      }),
    );
    try {
      const fieldId = Number(
        writer
          .prepare(
            "INSERT INTO custom_fields (key, name, type, created_at, updated_at) VALUES ('severity', 'Severity', 'text', ?, ?)",
          )
          .run(NOW, NOW).lastInsertRowid,
      );
      const value = writer.prepare('INSERT INTO ticket_custom_values (ticket_id, field_id, value) VALUES (?, ?, ?)');
      const tag = writer.prepare('INSERT INTO ticket_tags (ticket_id, tag, created_at) VALUES (?, ?, ?)');
      /** A ticket with severity `high` and the tag `vip`, committed by the second connection. */
      const marked = (subject: string) => {
        const id = addTicket(subject);
        value.run(id, fieldId, 'high');
        tag.run(id, 'vip', NOW);
      };
      marked('First');
      addTicket('Unmarked');
      const byValue = { cf: [{ field_id: fieldId, value: 'high' }] };
      const byTag = { tags: ['vip'] };
      for (const lone of [byValue, byTag]) {
        expect((await list(lone)).builds).toBeGreaterThan(0); // built the first time
        expect(await list(lone)).toEqual({ subjects: ['First'], total: 1, builds: 0 });
      }
      marked('Second');
      for (const lone of [byValue, byTag])
        expect(await list(lone)).toEqual({ subjects: ['Second', 'First'], total: 2, builds: 0 });
      // With a status, which set leads depends on its size at the time (decision 108): the set is
      // counted on each run, by a count compiled once, and the statements are kept for each choice.
      const withStatus = { ...byValue, status: ['new'] as string[] };
      expect((await list(withStatus)).builds).toBeGreaterThan(0);
      expect(await list(withStatus)).toEqual({ subjects: ['Second', 'First'], total: 2, builds: 0 });
      // The value grows past SET_LEADS_UNDER (on resolved tickets): it no longer leads, and the
      // list gets the statements that probe it, once.
      writer.exec(`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${SET_LEADS_UNDER})
        INSERT INTO tickets (queue_id, subject, status, created_at, updated_at)
        SELECT ${queueId}, 'Old ' || n, 'resolved', '${NOW}', '${NOW}' FROM g;
        INSERT INTO ticket_custom_values (ticket_id, field_id, value)
        SELECT id, ${fieldId}, 'high' FROM tickets WHERE status = 'resolved'`);
      const probed = await list(withStatus);
      expect(probed).toMatchObject({ subjects: ['Second', 'First'], total: 2 });
      expect(probed.builds).toBeGreaterThan(0);
      marked('Third');
      expect(await list(withStatus)).toEqual({ subjects: ['Third', 'Second', 'First'], total: 3, builds: 0 });
    } finally {
      await close();
    }
  });

  it.skipIf(!pgAvailable())(
    'on PostgreSQL, while another session commits',
    async () => {
      const url = await createMigratedDatabase();
      const store = await openStore({ DATABASE_URL: url, dbPath: '' });
      const writer = new pg.Client({ connectionString: url });
      await writer.connect();
      try {
        const {
          rows: [{ id: queueId }],
        } = await writer.query<{ id: number }>(
          'INSERT INTO queues (name, created_at, updated_at) VALUES ($1, $2, $2) RETURNING id',
          ['Snapshot', NOW],
        );
        const { rows } = await writer.query<{ id: number }>(
          "INSERT INTO tickets (queue_id, subject, status, created_at, updated_at) SELECT $1, 'Ticket ' || g, 'new', $2, $2 FROM generate_series(0, $3::int) g RETURNING id",
          [queueId, NOW, STEADY],
        );
        const moving = Math.max(...rows.map((r) => r.id));
        const misfits = await listWhileMoving(
          store,
          queueId,
          mover(() => writer.query(`${FLIP} WHERE id = $1`, [moving])),
        );
        expect(misfits).toEqual([]);
      } finally {
        await writer.end();
        await closeDb(store.db);
        await releasePostgres();
      }
    },
    60_000,
  );
});

describe('contradicts: a page that cannot be the page of its total', () => {
  const f = { limit: 50, offset: 0 };
  const page = (n: number) => Array.from({ length: n }, (_, i) => i);
  it('an exact total says how many rows its page holds', () => {
    expect(contradicts(f, { total: 1, exact: true, page: page(0) })).toBe(true);
    expect(contradicts(f, { total: 0, exact: true, page: page(1) })).toBe(true);
    expect(contradicts(f, { total: 3, exact: true, page: page(3) })).toBe(false);
    expect(contradicts(f, { total: 120, exact: true, page: page(50) })).toBe(false);
    expect(contradicts({ limit: 50, offset: 100 }, { total: 120, exact: true, page: page(20) })).toBe(false);
    expect(contradicts({ limit: 50, offset: 100 }, { total: 120, exact: true, page: page(21) })).toBe(true);
    expect(contradicts({ limit: 50, offset: 200 }, { total: 120, exact: true, page: page(0) })).toBe(false);
  });
  it('a bounded total ("1,000+") says the page is full up to it', () => {
    expect(contradicts(f, { total: 1_000, exact: false, page: page(50) })).toBe(false);
    expect(contradicts(f, { total: 1_000, exact: false, page: page(49) })).toBe(true);
    expect(contradicts({ limit: 50, offset: 990 }, { total: 1_000, exact: false, page: page(50) })).toBe(false);
    expect(contradicts({ limit: 50, offset: 990 }, { total: 1_000, exact: false, page: page(9) })).toBe(true);
  });
});
