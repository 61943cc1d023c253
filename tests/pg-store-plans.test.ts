import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/port.js';
import type { TicketListSpec } from '../src/db/ticketListSpec.js';
import { PgDialect } from 'drizzle-orm/pg-core';
import {
  CF_IDS,
  DEFER_FROM,
  cfHolders,
  listQueries,
  listTickets,
  MANY_IDS,
  textIdsQuery,
  wordIdsQuery,
} from '../src/db/postgres/ticketList.js';
import { poolSettings } from '../src/db/postgres/store.js';
import { contradicts } from '../src/db/shared/listTotal.js';
import { PLANNED_EACH_RUN_MARK, statementNamer, withName } from '../src/db/postgres/named.js';
import { transaction } from '../src/db/port.js';
import { pgHandle } from '../src/db/postgres/handle.js';
import { type SQL, sql } from 'drizzle-orm';
import { descriptionsQuery } from '../src/db/shared/pageParts.js';
import { tickets } from '../src/db/tables.js';
import { wordPlan } from '../src/db/shared/words.js';
import { candidatesMatching, chunkMatching, olderTickets, rangeMatches } from '../src/db/postgres/newestWords.js';
import { closeDb, openStore, poolOf } from '../src/db/store.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';

// The PostgreSQL store's ticket lists (SPEC B4 filters, decision 027) are planned through
// indexes: EXPLAIN of the page and the count on a few thousand tickets shows no sequential
// scan of tickets or transactions. Run in the SQLite project with a cluster of its own (like
// pg-schema.test.ts), skipped where no PostgreSQL binaries exist.

const pgTest = describe.skipIf(!pgAvailable());

const TICKETS = 5_000;

const base: TicketListSpec = { includeComments: true, cf: [], sort: 'updated', desc: true, limit: 50, offset: 0 };
const FILTERS: Record<string, Partial<TicketListSpec>> = {
  'queue_id + status': { queue_id: 2, status: ['open'] },
  'status (one)': { status: ['new'] },
  'status (several)': { status: ['new', 'open', 'stalled'] },
  owner_id: { owner_id: 2 },
  'owner_id=none': { owner_id: 'none' },
  'team_id (owner is a member)': { owner_team_id: 1 },
  ticket_team_id: { ticket_team_id: 1 },
  requester_id: { requester_id: 103 },
  'cf.<key>': { cf: [{ field_id: 1, value: 'high' }] },
  'cf.<key>, a common value': { cf: [{ field_id: 1, value: 'low' }] },
  'cf.<key>, a common value + status': { cf: [{ field_id: 1, value: 'low' }], status: ['open'] },
  'q on a subject word': { q: 'printer' },
  'q on a body word': { q: 'toner' },
  'q, public messages only': { q: 'toner', includeComments: false },
  'a customer: own tickets': { customerId: 103 },
  'a customer: q in own tickets': { customerId: 103, q: 'toner', includeComments: false },
  'queue + owner + q + cf': { queue_id: 2, owner_id: 2, q: 'printer', cf: [{ field_id: 1, value: 'high' }] },
  'owner_id + sort by priority + offset': { owner_id: 2, sort: 'priority', offset: 10 },
  'sort by id, ascending': { sort: 'id', desc: false },
  // SPEC C4 built-in lists (decision 035): "My open tickets" and "Unassigned in my teams' queues".
  'built-in: my open tickets': { owner_id: 2, status: ['new', 'open', 'stalled'] },
  "built-in: unassigned in my teams' queues": {
    owner_id: 'none',
    status: ['new', 'open', 'stalled'],
    queue_ids: [2, 5],
  },
  // q on the requester's name or address: the people the domain found, their tickets through ticket_watchers.
  'q naming requesters': { q: 'user 103', qRequesterIds: [103, 104] },
  // SPEC D6 (decision 055): the ranked sorts read the filter's rows through its index, then sort them.
  'queue_id + status, sort by owner': {
    queue_id: 2,
    status: ['open'],
    sort: 'owner',
    ranks: { values: [3, 1, 2], nullRank: 4 },
  },
  'requester_id, sort by status': {
    requester_id: 103,
    sort: 'status',
    desc: true,
    ranks: { values: ['new', 'open', 'stalled', 'resolved', 'rejected', 'deleted'], nullRank: 0 },
  },
  'q, sort by queue': { q: 'printer', sort: 'queue', ranks: { values: [2, 1, 3], nullRank: 0 } },
  requester_domain: { requester_domain: 'example.com', status: ['open'] },
  // SPEC D2: the built-in list "Breached and due soon" (decision 070), each through its partial index.
  'sla=breached,due_soon, sort by due': {
    sla: { breached: true, dueSoon: true, now: '2026-12-01T10:00:00.000Z' },
    sort: 'due',
  },
};

pgTest('PostgreSQL store: EXPLAIN of GET /tickets lists', () => {
  let db: Db;
  beforeAll(async () => {
    db = (await openStore({ DATABASE_URL: await createMigratedDatabase(), dbPath: '' })).db;
    const pool = poolOf(db);
    const now = 'to_char(now() - make_interval(mins => g), \'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\')';
    await pool.query(`INSERT INTO users (email, name, role, created_at, updated_at)
      SELECT 'u' || g || '@example.com', 'User ' || g, CASE WHEN g <= 100 THEN 'agent' ELSE 'requester' END, ${now}, ${now} FROM generate_series(1, 500) g`);
    await pool.query(
      `INSERT INTO teams (name, created_at, updated_at) SELECT 'Team ' || g, ${now}, ${now} FROM generate_series(1, 25) g`,
    );
    await pool.query(
      `INSERT INTO team_members (team_id, user_id, created_at) SELECT 1 + g % 25, g, ${now} FROM generate_series(1, 100) g`,
    );
    await pool.query(
      `INSERT INTO queues (name, created_at, updated_at) SELECT 'Queue ' || g, ${now}, ${now} FROM generate_series(1, 10) g`,
    );
    // Mostly resolved, as a helpdesk's tickets are; the rest spread over queues, 100 agents in 25
    // teams, 400 requesters: every filter value selects a few percent of the tickets at most.
    await pool.query(`INSERT INTO tickets (queue_id, subject, status, owner_id, team_id, requester_id, priority, created_at, updated_at)
      SELECT 1 + g % 10, CASE WHEN g % 97 = 0 THEN 'The printer jams ' || g ELSE 'Question number ' || g END,
        CASE WHEN g % 50 = 0 THEN 'new' WHEN g % 20 = 0 THEN 'open' WHEN g % 30 = 0 THEN 'stalled' ELSE 'resolved' END,
        CASE WHEN g % 7 = 0 THEN NULL ELSE 1 + g % 100 END, CASE WHEN g % 3 = 0 THEN 1 + g % 25 END, 101 + g % 400, g % 5, ${now}, ${now}
      FROM generate_series(1, ${TICKETS}) g`);
    await pool.query(
      `INSERT INTO ticket_watchers (ticket_id, user_id, role, created_at) SELECT id, requester_id, 'requester', created_at FROM tickets`,
    );
    await pool.query(`INSERT INTO transactions (ticket_id, type, creator_id, body, created_at)
      SELECT 1 + g % ${TICKETS}, CASE WHEN g % 4 = 0 THEN 'Comment' WHEN g <= ${TICKETS} THEN 'Create' ELSE 'Correspond' END, 1 + g % 100,
        CASE WHEN g % 3 = 0 THEN NULL WHEN g % 211 = 0 THEN 'Please send more toner, message ' || g ELSE 'Thanks for the reply, message ' || g END, ${now}
      FROM generate_series(1, ${TICKETS * 3}) g`);
    await pool.query(
      `INSERT INTO custom_fields (key, name, type, created_at, updated_at) VALUES ('severity', 'Severity', 'select', ${now.replace(/g\)/, '0)')}, ${now.replace(/g\)/, '0)')})`,
    );
    await pool.query(
      `INSERT INTO ticket_custom_values (ticket_id, field_id, value) SELECT id, 1, CASE WHEN id % 13 = 0 THEN 'high' ELSE 'low' END FROM tickets`,
    );
    // A field of many values (an account number each): planned for any value, a value of the
    // index (field_id, value, ticket_id) is then a few tickets (decision 110).
    await pool.query(
      `INSERT INTO custom_fields (key, name, type, created_at, updated_at) VALUES ('account', 'Account', 'text', ${now.replace(/g\)/, '0)')}, ${now.replace(/g\)/, '0)')})`,
    );
    await pool.query(
      `INSERT INTO ticket_custom_values (ticket_id, field_id, value) SELECT id, 2, 'A-' || id FROM tickets`,
    );
    await pool.query('VACUUM ANALYZE');
  }, 60_000);
  afterAll(async () => {
    await closeDb(db);
    await releasePostgres();
  });

  /** PostgreSQL's EXPLAIN of one query: its lines. */
  const pgExplain = async ({ sql, params }: { sql: string; params: unknown[] }) =>
    (await poolOf(db).query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN']);

  /** PostgreSQL's generic plan of one query (the plan a named statement may keep from its sixth run): its text. */
  async function genericPlan({ sql, params }: { sql: string; params: unknown[] }): Promise<string> {
    const client = await poolOf(db).connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE generic_plan AS ${sql}`);
      const values = params.map((p) => (typeof p === 'string' ? `'${p.replaceAll("'", "''")}'` : String(p)));
      const plan = (
        await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE generic_plan(${values.join(', ')})`)
      ).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      await client.query('DEALLOCATE generic_plan');
      return plan;
    } finally {
      await client.query('RESET plan_cache_mode');
      client.release();
    }
  }

  /** The plans of the page, the count and (with q) the text search that runs before them. */
  async function pgListPlan(spec: TicketListSpec): Promise<string[]> {
    const lines: string[] = [];
    let textIds: number[] | undefined;
    if (spec.q) {
      const text = new PgDialect().sqlToQuery(textIdsQuery({ ...spec, q: spec.q }));
      textIds = (await poolOf(db).query<{ ids: number[] }>(text.sql, text.params)).rows[0].ids;
      lines.push(...(await pgExplain(text)), '');
    }
    const q = listQueries(db, spec, textIds, await cfHolders(db, spec.cf));
    for (const stmt of [q.page, q.count]) lines.push(...(await pgExplain(stmt.toSQL())), '');
    return lines;
  }

  for (const [name, filter] of Object.entries(FILTERS)) {
    it(`${name}: no sequential scan of tickets or transactions`, async () => {
      const lines = await pgListPlan({ ...base, ...filter });
      expect(
        lines.filter((l) => /Seq Scan on (tickets|transactions)\b/.test(l)),
        lines.join('\n'),
      ).toEqual([]);
    });
  }

  // Decision 096: a list whose page contradicts its total is read again in one snapshot. On a store
  // nobody writes to, no list may look like one, or every such list would be read twice.
  it("with nothing written meanwhile, every list's page fits its total", async () => {
    const misfits: string[] = [];
    for (const [name, filter] of Object.entries(FILTERS))
      for (const more of [{}, { offset: 40, limit: 20 }, { countUpTo: 30 }, { countUpTo: 30, offset: 20, limit: 20 }]) {
        const spec = { ...base, ...filter, ...more };
        const r = await listTickets(db, spec);
        if (contradicts(spec, { ...r, page: r.rows }))
          misfits.push(`${name} ${JSON.stringify(more)}: ${r.total} ${r.rows.length}`);
      }
    expect(misfits).toEqual([]);
  });

  // Decision 084: a q of whole words is asked of the tsvector indexes first (the substring query
  // above is its fallback when the words find nothing).
  for (const [q, opts] of [
    ['printer', { includeComments: true }],
    ['toner', { includeComments: false }],
    ['send more ton', { includeComments: true }],
    ['toner', { includeComments: false, customerId: 103 }],
  ] as const) {
    it(`word search ${JSON.stringify(q)} ${JSON.stringify(opts)}: through the word indexes, no sequential scan`, async () => {
      const plan = new PgDialect().sqlToQuery(wordIdsQuery(wordPlan(q)!, opts));
      const lines = await pgExplain(plan);
      const text = lines.join('\n');
      expect(
        lines.filter((l) => /Seq Scan on (tickets|transactions)\b/.test(l)),
        text,
      ).toEqual([]);
      expect(text).toContain('transactions_body_words_idx');
      expect(text).toContain('tickets_subject_words_idx');
    });
  }

  // Decisions 093 and 101: a word search newest first reads the matches of the newest tickets'
  // id ranges through the ranged word indexes alone (GIN reads those ranges' postings, not the
  // whole word's: ~14 ms for one in a quarter of the tickets at 100k; no bitmap of the id's index
  // either), and tests the few older tickets that sort onto the page row by row when the word is
  // common.
  it('word search newest first: the range through the ranged indexes, older tickets row by row', async () => {
    const plan = wordPlan('toner')!;
    const range = (await pgExplain(new PgDialect().sqlToQuery(rangeMatches(plan, true, 250)))).join('\n');
    expect(range).not.toMatch(/Seq Scan on (tickets|transactions)\b|_words_idx|transactions_ticket_idx|BitmapAnd/);
    expect(range).toContain('transactions_body_ranged_idx');
    expect(range).toContain('tickets_subject_ranged_idx');
    // A rarer word's count first: up to one past MAX_OLD_CANDIDATES (256).
    const older = olderTickets(
      'updated',
      sql`${tickets.status} <> 'merged'`,
      4_000,
      { key: '2026-01-01', id: 1 },
      undefined,
      257,
    );
    const common = wordPlan('thanks')!; // most messages
    const rows = (await pgExplain(new PgDialect().sqlToQuery(candidatesMatching(older, common, true)))).join('\n');
    expect(rows).not.toMatch(/Seq Scan on (tickets|transactions)\b|_words_idx/);
    expect(rows).toContain('transactions_ticket_idx');
    // Decision 116: newest first, a chunk at a time, backwards through the sort's own index.
    for (const [sort, index] of [
      ['updated', 'tickets_updated_idx'],
      ['created', 'tickets_created_idx'],
    ] as const) {
      const chunk = olderTickets(
        sort,
        sql`${tickets.status} <> 'merged'`,
        4_000,
        { key: '2026-01-01', id: 1 },
        {
          key: '2026-02-01',
          id: 300,
        },
      );
      const walk = (await pgExplain(new PgDialect().sqlToQuery(chunkMatching(chunk, common, true)))).join('\n');
      expect(walk).not.toMatch(/Seq Scan on (tickets|transactions)\b|_words_idx/);
      expect(walk).toMatch(new RegExp(`Index (Only )?Scan Backward using ${index}`));
      expect(walk).toContain('transactions_ticket_idx');
    }
  });

  // Every sort column is NOT NULL: a NULLS clause that differs from the index's order (PostgreSQL
  // scans an ascending index backwards as DESC NULLS FIRST) made it sort every ticket instead of
  // reading the first pages off the index — 56 ms instead of 1.3 ms for the active tickets at
  // 100k. (A filter that keeps few rows may rightly be sorted: only the whole table is checked.)
  for (const [sort, desc] of [
    ['updated', true],
    ['updated', false],
    ['created', true],
    ['created', false],
    ['priority', true],
  ] as const) {
    it(`all tickets, sorted by ${sort} ${desc ? 'descending' : 'ascending'}: the page is read in index order, not sorted whole`, async () => {
      const lines = await pgListPlan({ ...base, sort, desc, offset: 100 });
      const page = lines.slice(0, lines.indexOf(''));
      expect(
        page.filter((l) => /^(->\s*)?Sort\s+\(/.test(l.trim())),
        page.join('\n'),
      ).toEqual([]);
    });
  }

  // Oldest first (decision 107): a status's, a queue's, or both, read through the index that
  // leads with them (in order once there are more than a few hundred; here, 5,000 tickets, a
  // status's 200 may be sorted), never the whole table.
  for (const [filter, index] of [
    [{ status: ['open'] }, 'tickets_status_created_idx'],
    [{ queue_id: 2 }, 'tickets_queue_created_idx'],
    [{ queue_id: 2, status: ['open'] }, 'tickets_queue_status_created_idx'],
  ] satisfies [Partial<TicketListSpec>, string][]) {
    it(`${JSON.stringify(filter)}, oldest first: the page in order from ${index}`, async () => {
      const lines = await pgListPlan({ ...base, ...filter, sort: 'created', desc: false, offset: 100 });
      const page = lines.slice(0, lines.indexOf(''));
      expect(page.join('\n')).toContain(index);
      expect(page.join('\n')).not.toMatch(/Seq Scan on tickets\b/);
    });
  }

  it('q naming requesters: their tickets through the watcher index, added to the text matches', async () => {
    const lines = await pgListPlan({ ...base, q: 'user 103', qRequesterIds: [103, 104] });
    expect(lines.join('\n')).toMatch(
      /Index (Only )?Scan using ticket_watchers_user_idx on ticket_watchers|Bitmap Index Scan on ticket_watchers_user_idx/,
    );
    const found = await listTickets(db, { ...base, q: 'user 103', qRequesterIds: [103, 104], limit: 1000 });
    expect(found.rows.every((t) => t.requester_id === 103 || t.requester_id === 104)).toBe(true);
    expect(found.total).toBe(26); // requester 103 or 104: g % 400 of 2 or 3, 13 tickets each (1 ≤ g ≤ 5000)
    expect(found.rows).toHaveLength(26);
    const queues = await listTickets(db, { ...base, owner_id: 'none', queue_ids: [2, 5], limit: 1000 });
    expect(queues.rows.every((t) => t.owner_id === null && [2, 5].includes(t.queue_id))).toBe(true);
    expect((await listTickets(db, { ...base, queue_ids: [] })).total).toBe(0);
  });

  // Decision 088: a cf value few tickets hold is read by id; a common one by walking the sort's
  // index and probing the value per ticket (a subquery the planner cannot make a hash join over
  // every ticket), its count as a semi-join that stops at the bound.
  it('cf.<key>: a rare value by its ids, a common one walking the sort index', async () => {
    const [high, low, none] = await cfHolders(db, [
      { field_id: 1, value: 'high' },
      { field_id: 1, value: 'low' },
      { field_id: 1, value: 'nobody has this' },
    ]);
    expect(high).toBe(Math.floor(TICKETS / 13));
    expect(TICKETS - Math.floor(TICKETS / 13)).toBeGreaterThan(CF_IDS);
    expect([low, none]).toEqual([CF_IDS + 1, 0]); // counted no further
    const rare = await pgListPlan({ ...base, cf: [{ field_id: 1, value: 'high' }] });
    const rarePage = rare.slice(0, rare.indexOf('')).join('\n');
    expect(rarePage).toMatch(/Index (Only )?Scan using tickets_pkey|Bitmap Index Scan on tickets_pkey/);
    expect(rarePage).toContain('InitPlan'); // the value's tickets read once, not probed per ticket
    expect(rarePage).not.toContain('SubPlan');
    const common = await pgListPlan({ ...base, cf: [{ field_id: 1, value: 'low' }], offset: 100 });
    const page = common.slice(0, common.indexOf('')).join('\n');
    expect(page).toMatch(/Index Scan Backward using tickets_updated_idx on tickets/);
    expect(page).toContain('SubPlan');
    expect(page).not.toMatch(/Hash Join|Sort \(|Incremental Sort/);
    const nothing = await listTickets(db, { ...base, cf: [{ field_id: 1, value: 'nobody has this' }] });
    expect(nothing).toEqual({ rows: [], total: 0, exact: true });
  });

  // Decision 110: a common value's count is planned with its values each run. Planned for any
  // value, PostgreSQL prices the value at a few tickets and drives the count from its index,
  // probing the ticket of each of its holders (all but a thirteenth of the tickets here).
  it("cf.<key>, a common value with an owner: the count is planned each run, never the generic plan's walk of every holder", async () => {
    const spec: TicketListSpec = { ...base, owner_id: 2, cf: [{ field_id: 1, value: 'low' }] };
    const q = listQueries(db, spec, undefined, await cfHolders(db, spec.cf));
    const count = q.count.toSQL();
    expect(count.sql).toContain(PLANNED_EACH_RUN_MARK);
    expect(statementNamer()(count.sql)).toBeUndefined();
    // Alone, the value's count stops at the bound whichever way it starts: named and kept.
    const alone = listQueries(db, { ...base, cf: spec.cf }, undefined, await cfHolders(db, spec.cf)).count.toSQL();
    expect(alone.sql).not.toContain(PLANNED_EACH_RUN_MARK);
    const generic = await genericPlan(count);
    const outerFromValues = /Nested Loop[^\n]*\n\s*->\s+Index Only Scan using ticket_custom_values_lookup_idx/;
    expect(generic).toMatch(outerFromValues);
    const own = (await pgExplain(count)).join('\n');
    expect(own).not.toMatch(outerFromValues);
    // The owner's tickets and their count, as the data says.
    const truth = await poolOf(db).query<{ n: number }>(
      "SELECT count(*)::int AS n FROM tickets t JOIN ticket_custom_values v ON v.ticket_id = t.id AND v.field_id = 1 AND v.value = 'low' WHERE t.owner_id = 2",
    );
    expect((await listTickets(db, spec)).total).toBe(truth.rows[0].n);
  });

  // Decision 112: the type written out, not a parameter. A generic plan then reads one entry a
  // ticket from the partial index of the Create transactions; with the type as a parameter it read
  // every transaction of each ticket through transactions_ticket_idx.
  it("a page's descriptions, in the generic plan too, through the partial index of the Create transactions", async () => {
    const ids = Array.from({ length: 50 }, (_, i) => i + 1);
    const q = descriptionsQuery(db, { inIds: (column) => sql`${column as SQL} = ANY(${`{${ids.join(',')}}`}::int[])` });
    const plan = await genericPlan(q.toSQL());
    expect(plan).toMatch(/Index Scan (using|on) transactions_create_idx\b/);
    expect(plan).not.toMatch(/transactions_ticket_idx/);
    const truth = await poolOf(db).query<{ id: number }>(
      "SELECT ticket_id AS id FROM transactions WHERE type = 'Create' AND ticket_id <= 50 ORDER BY 1",
    );
    expect(truth.rows.length).toBeGreaterThan(10);
    expect((await q).map((r) => r.ticket_id).sort((a, b) => a - b)).toEqual(truth.rows.map((r) => r.id));
  });

  // Decision 088: the sort indexes end with the id (SQLite's hold the rowid), so a page deep in a
  // sort with many equal values is read in order, not sorted in groups.
  // From DEFER_FROM on, the page's ids come from the index alone (it holds the status the merged
  // tickets are left out by), and only the page's own rows are read and put in order.
  it('sort by priority with a deep offset: ids read in (priority, id) order from the index alone', async () => {
    expect(2000).toBeGreaterThanOrEqual(DEFER_FROM);
    const lines = await pgListPlan({ ...base, sort: 'priority', desc: true, offset: 2000 });
    const page = lines.slice(0, lines.indexOf('')).join('\n');
    expect(page).toMatch(/Index Only Scan Backward using tickets_priority_idx on tickets/);
    expect(page).not.toMatch(/Incremental Sort/);
    const shallow = await pgListPlan({ ...base, sort: 'priority', desc: true, offset: 100 });
    expect(shallow.slice(0, shallow.indexOf('')).join('\n')).toMatch(/Index Scan Backward using tickets_priority_idx/);
    // The same tickets either way.
    const deep = await listTickets(db, { ...base, sort: 'priority', desc: true, offset: DEFER_FROM - 10, limit: 20 });
    const all = await listTickets(db, { ...base, sort: 'priority', desc: true, offset: 0, limit: DEFER_FROM + 10 });
    expect(deep.rows.map((t) => t.id)).toEqual(all.rows.slice(DEFER_FROM - 10).map((t) => t.id));
    const deeper = await listTickets(db, { ...base, sort: 'priority', desc: true, offset: DEFER_FROM, limit: 10 });
    expect(deeper.rows.map((t) => t.id)).toEqual(all.rows.slice(DEFER_FROM).map((t) => t.id));
  });

  // Decision 088: no JIT and no parallel workers on the pool's connections, whatever the URL says.
  it("the pool's sessions run without JIT and parallel workers, after the URL's own options", async () => {
    const pool = poolOf(db);
    const { rows } = await pool.query<{ jit: string; workers: string }>(
      "SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers",
    );
    expect(rows[0]).toEqual({ jit: 'off', workers: '0' });
    const given = poolSettings('postgres://u@h:5/db?options=-c%20statement_timeout%3D5000&sslmode=disable');
    expect(given.options).toBe('-c statement_timeout=5000 -c jit=off -c max_parallel_workers_per_gather=0');
    expect(given.connectionString).toBe('postgres://u@h:5/db?sslmode=disable');
  });

  // Decision 088: drizzle's statements go by a name their text gives, parsed once per connection.
  it('a connection parses each statement text once, under the name its text gives', async () => {
    const names = await transaction(db, async (tx) => {
      for (const id of [13, 26, 39])
        await tx.select({ id: tickets.id }).from(tickets).where(sql`${tickets.id} = ${id}`);
      // The unit of work's own connection: the names live on each connection.
      const found = await pgHandle(tx).execute<{ name: string; statement: string }>(
        sql`SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'hxq_%'`,
      );
      return found.rows;
    });
    const mine = names.filter((n) => n.statement.includes('"tickets"."id" = $1'));
    expect(mine).toHaveLength(1);
    const nameOf = statementNamer(2);
    expect(nameOf('a')).toBe(nameOf('a'));
    expect(nameOf('b')).not.toBe(nameOf('a'));
    expect(nameOf('c')).toBeUndefined(); // past the cap: sent unnamed
    // Decision 093: a pattern's statement is planned with its value each run (never a generic plan).
    for (const text of ['SELECT 1 FROM users WHERE name ILIKE $1', "SELECT to_tsquery('hx_words', $1)", 'x LIKE $1'])
      expect(statementNamer()(text), text).toBeUndefined();
    // Decision 102: so is a list's statement holding more than MANY_IDS ids; a page's few stay named.
    const pageText = (n: number) =>
      new PgDialect().sqlToQuery(
        listQueries(
          db,
          { ...base, q: 'x' },
          Array.from({ length: n }, (_, i) => i + 1),
        ).page.getSQL(),
      ).sql;
    expect(statementNamer()(pageText(MANY_IDS + 1))).toBeUndefined();
    expect(statementNamer()(pageText(MANY_IDS))).toMatch(/^hxq_/);
    expect(pageText(MANY_IDS + 1)).toContain(PLANNED_EACH_RUN_MARK);
    const cursor = { text: 'a', submit() {} };
    expect(withName([cursor], nameOf)[0]).toBe(cursor);
    expect(withName(['a', []], nameOf)).toEqual(['a', []]);
    expect(withName([{ text: 'a', name: 'hx_1' }], nameOf)).toEqual([{ text: 'a', name: 'hx_1' }]);
    expect(withName([{ text: 'a' }, [1]], nameOf)).toEqual([{ text: 'a', name: nameOf('a') }, [1]]);
  });

  it('the lists find what they should (page and total agree with the data)', async () => {
    const printer = await listTickets(db, { ...base, q: 'PRINTER' });
    expect(printer.total).toBe(Math.floor(TICKETS / 97));
    expect(printer.rows.every((t) => t.subject.includes('printer'))).toBe(true);
    const none = await listTickets(db, { ...base, owner_id: 'none', limit: 1000 });
    expect(none.total).toBe(Math.floor(TICKETS / 7));
    expect(none.rows.every((t) => t.owner_id === null)).toBe(true);
    const mine = await listTickets(db, { ...base, customerId: 103 });
    expect(mine.rows.every((t) => t.requester_id === 103)).toBe(true);
    expect(mine.total).toBe(mine.rows.length);
    const high = await listTickets(db, { ...base, cf: [{ field_id: 1, value: 'high' }], limit: 1000 });
    expect(high.total).toBe(Math.floor(TICKETS / 13));
    expect(high.rows.map((t) => t.id)).toEqual(Array.from({ length: high.total }, (_, i) => 13 * (i + 1))); // the newest first: ticket g was updated g minutes ago
    // A common value (more than CF_IDS tickets): the same answer by walking the sort's index.
    const low = await listTickets(db, { ...base, cf: [{ field_id: 1, value: 'low' }], offset: 100, limit: 60 });
    const lows = Array.from({ length: TICKETS }, (_, i) => i + 1).filter((id) => id % 13 !== 0);
    expect(low.total).toBe(lows.length);
    expect(low.rows.map((t) => t.id)).toEqual(lows.slice(100, 160));
    const both = await listTickets(db, { ...base, cf: [{ field_id: 1, value: 'low' }], status: ['open'], limit: 1000 });
    expect(both.rows.map((t) => t.id)).toEqual(lows.filter((id) => id % 50 !== 0 && id % 20 === 0));
  });
});
