import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { is, sql, SQL } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, openDb, type Db, sqliteOf } from '../src/db/store.js';
import { idsIn } from '../src/db/port.js';
import { loadEnv } from '../src/env.js';
import { loadSettings } from '../src/settings.js';
import type { Actor } from '../src/domain/actor.js';
import { createCustomField } from '../src/domain/customFields.js';
import { createQueue } from '../src/domain/queues.js';
import { staffQuery } from '../src/domain/lookups.js';
import { seedIfEmpty } from '../src/domain/seed.js';
import { threadIdsQuery } from '../src/scrips/thread.js';
import { addMember, createTeam } from '../src/domain/teams.js';
import { listSpec } from '../src/domain/tickets/list.js';
import { customValuesQuery, readsQuery } from '../src/db/shared/pageParts.js';
import { partsDialect } from '../src/domain/tickets/serialize.js';
import { sqliteHandle } from '../src/db/sqlite/client.js';
import { listQueries as sqliteListQueries } from '../src/db/sqlite/ticketList.js';
import { shouldWalk, WALK_PROOF_MAX, walkOrSort, walkOrSortPlain } from '../src/db/sqlite/walk.js';
import { olderTickets } from '../src/db/sqlite/newestWords.js';
import { NOT_MERGED } from '../src/db/shared/listFilters.js';
import type { TicketFilter } from '../src/domain/tickets/query.js';

/** The statements the SQLite store runs for a list filter. */
const listQueries = async (conn: Db, actor: Actor, f: TicketFilter) =>
  sqliteListQueries(sqliteHandle(conn), await listSpec(conn, actor, f));
import { nestFilterParams, TicketFilterSchema } from '../src/domain/tickets/query.js';
import { commentOnTicket } from '../src/domain/tickets/comment.js';
import { createTicket } from '../src/domain/tickets/write.js';
import { addTag } from '../src/domain/tags/ticketTags.js';
import { createUser } from '../src/domain/users.js';

// Issue 6: every GET /tickets filter must be answered through an index, never by scanning the
// tickets or transactions table — checked deterministically with EXPLAIN QUERY PLAN on the
// exact statements the list runs (the sets' fills, the page and the count), not by timing.

let dir: string;
let db: Db;
let admin: Actor;
let requester: Actor;
let agentActor: Actor;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-plans-'));
  db = openDb(path.join(dir, 'hxdesk.db'));
  await seedIfEmpty(db, { adminEmail: 'admin@example.com', adminPassword: 'admin-password-123' });
  admin = { id: 1, email: 'admin@example.com', name: 'Admin', role: 'admin' };
  const { notify } = await loadSettings(db, loadEnv({ NODE_ENV: 'test', DATA_DIR: dir }));
  const agent = await createUser(db, admin, { email: 'agent@example.com', name: 'Agent', role: 'agent' });
  const req = await createUser(db, admin, { email: 'req@example.com', name: 'Req', role: 'requester' });
  requester = { id: req.id, email: req.email, name: req.name, role: 'requester' };
  agentActor = { id: agent.id, email: agent.email, name: agent.name, role: 'agent' };
  const team = await createTeam(db, admin, { name: 'Support' });
  await addMember(db, admin, team.id, agent.id);
  const queue = await createQueue(db, admin, { name: 'IT', team_id: team.id }, notify);
  await createCustomField(db, admin, { key: 'severity', name: 'Severity', type: 'select', options: ['low', 'high'] });
  for (let i = 0; i < 30; i++) {
    const t = await createTicket(
      db,
      admin,
      {
        queue_id: i % 2 ? queue.id : 1,
        subject: `Printer ${i}`,
        description: `Body ${i}`,
        owner_id: i % 3 ? agent.id : null,
        requester_id: req.id,
        custom_fields: { severity: i % 2 ? 'high' : 'low' },
      },
      notify,
    );
    await commentOnTicket(db, admin, t.ticket.id, { body: `A reply about toner ${i}`, internal: false }, { notify });
    if (i % 3 !== 1) await addTag(db, admin, t.ticket.id, 'billing', notify);
    if (i % 5 === 0) await addTag(db, admin, t.ticket.id, 'vip', notify);
  }
});
afterAll(async () => {
  await closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

type Explainable = { toSQL(): { sql: string; params: unknown[] } } | SQL;
/** SQLite's EXPLAIN QUERY PLAN of each statement: the detail lines, one statement after another. */
function sqliteExplain(stmts: (Explainable | undefined)[]): string[] {
  const lines: string[] = [];
  const dialect = new SQLiteSyncDialect();
  for (const stmt of stmts.flatMap((s) => (!s ? [] : is(s, SQL) ? [dialect.sqlToQuery(s)] : [s.toSQL()]))) {
    const rows = sqliteHandle(db)
      .$client.prepare(`EXPLAIN QUERY PLAN ${stmt.sql}`)
      .all(...(stmt.params as unknown[])) as { detail: string }[];
    lines.push(...rows.map((r) => r.detail));
  }
  return lines;
}

/** A list's bounded count as walkOrSort asks it: `holding(size)` says whether it holds `n`, and notes each `n` in `asked`. */
function askedCounts() {
  const asked: number[] = [];
  const holding = (size: number) => ({
    atLeast: (n: number) => {
      asked.push(n);
      return size >= n;
    },
  });
  return { asked, holding };
}

/** The plan of a ticket list (its fill, page and count queries) for these filter parameters, as `actor` asks it. */
async function sqliteListPlan(params: Record<string, string>, actor = admin): Promise<string[]> {
  const q = await listQueries(db, actor, TicketFilterSchema.parse(nestFilterParams(params)));
  return sqliteExplain([q.fill, q.page, q.count, q.merged]);
}

/** A line that reads the whole tickets or transactions table (an index walk in full counts too). */
const fullScan = (line: string) => /^SCAN (tickets|transactions)\b/.test(line);

const FILTERS: Record<string, Record<string, string>> = {
  'queue_id + status': { queue_id: '2', status: 'open' },
  'status (one)': { status: 'new' },
  'status (several)': { status: 'new,open,stalled' },
  owner_id: { owner_id: '2' },
  'owner_id=none': { owner_id: 'none' },
  'team_id (owner is a member)': { team_id: '1' },
  ticket_team_id: { ticket_team_id: '1' },
  requester_id: { requester_id: '3' },
  'cf.<key>': { 'cf.severity': 'high' },
  'q on a subject word': { q: 'printer' },
  'q on a body word': { q: 'toner' },
  'q on a word in many messages of a ticket': { q: 'reply' },
  'queue + owner + q + cf': { queue_id: '2', owner_id: '2', q: 'printer', 'cf.severity': 'high' },
  'owner_id + sort by priority + offset': { owner_id: '2', sort: '-priority', offset: '10' },
  // SPEC D6 (decision 055): the ranked sorts read the filter's rows through its index, then sort them.
  'queue_id + status, sort by owner': { queue_id: '2', status: 'open', sort: 'owner' },
  'requester_id, sort by status': { requester_id: '3', sort: '-status' },
  'q, sort by queue': { q: 'printer', sort: 'queue' },
  'cf.<key>, sort by owner': { 'cf.severity': 'high', sort: '-owner' },
  // SPEC D3 tags, read as a cf value is (issue 32): alone, two of them, with a queue and status.
  tag: { tag: 'billing' },
  'two tags': { tag: 'billing,vip' },
  'queue_id + status + tag': { queue_id: '2', status: 'open', tag: 'billing' },
  'queue_id + status + cf': { queue_id: '2', status: 'open', 'cf.severity': 'high' },
  'a tag and a custom value': { tag: 'billing', 'cf.severity': 'high' },
  // Any of several tags, one set (decision 108); a ticket with both is one ticket.
  tag_any: { tag_any: 'billing,vip' },
  'tag_any + status': { tag_any: 'billing,vip', status: 'open' },
  'tag + tag_any': { tag: 'billing', tag_any: 'vip,nothing-has-this' },
  requester_domain: { requester_domain: 'example.com' },
  // SPEC D2: the built-in list "Breached and due soon" (decision 070), each through its partial index.
  'sla=breached,due_soon, sort by due': { sla: 'breached,due_soon', sort: 'due' },
  'sla=due_soon, status': { sla: 'due_soon', status: 'new,open' },
};

describe('EXPLAIN QUERY PLAN of GET /tickets', () => {
  for (const [name, params] of Object.entries(FILTERS)) {
    it(`${name}: no scan of tickets or transactions`, async () => {
      const lines = await sqliteListPlan(params);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter(fullScan), lines.join('\n')).toEqual([]);
      expect(
        lines.some((l) => /^SEARCH (tickets|ticket_custom_values|team_members)\b|VIRTUAL TABLE/.test(l)),
        lines.join('\n'),
      ).toBe(true);
    });
  }

  // An owner, no owner, a team's members or a ticket team with a status is counted in an index
  // alone (decision 031): no ticket row is read for the total.
  for (const [name, params] of Object.entries({
    'owner_id + status': { owner_id: '2', status: 'new,open,stalled' },
    'owner_id=none + status': { owner_id: 'none', status: 'new' },
    'team_id + status': { team_id: '1', status: 'open' },
    'ticket_team_id + status': { ticket_team_id: '1', status: 'open' },
  })) {
    it(`${name}: the total is counted in a covering index`, async () => {
      const q = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams(params)));
      const lines = sqliteExplain([q.count]);
      const reads = lines.filter((l) => /^(SCAN|SEARCH) tickets\b/.test(l));
      expect(reads.length, lines.join('\n')).toBeGreaterThan(0);
      expect(
        reads.every((l) => /USING COVERING INDEX tickets_(owner|team)_status_updated_idx/.test(l)),
        lines.join('\n'),
      ).toBe(true);
    });
  }

  // Oldest first (decision 107): a status's, a queue's, or both, read in order from the index
  // that leads with them, never the created index filtered ticket by ticket nor a sort.
  for (const [params, index] of [
    [{ status: 'open', sort: 'created' }, 'tickets_status_created_idx'],
    [{ queue_id: '2', sort: 'created' }, 'tickets_queue_created_idx'],
    [{ queue_id: '2', status: 'open', sort: 'created', offset: '100' }, 'tickets_queue_status_created_idx'],
    [{ queue_id: '2', status: 'new', sort: '-created' }, 'tickets_queue_status_created_idx'],
  ] as const) {
    it(`${JSON.stringify(params)}: the page in order from ${index}`, async () => {
      const q = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams(params)));
      const lines = sqliteExplain([q.page]);
      expect(lines.join('\n')).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      expect(
        lines.filter((l) => /^(SCAN|SEARCH) tickets\b/.test(l)),
        lines.join('\n'),
      ).toEqual([expect.stringContaining(`USING INDEX ${index} (`)]);
    });
  }

  // A dense q / cf set is paged by walking a sort index and probing the set, stopping after the
  // page (listByFilter chooses it only when that reads at most WALK_BUDGET entries on average).
  // (A ranked sort — status, owner, queue — has no index to walk: decision 055, checked below.)
  const ranked = (p: Record<string, string>) => /^-?(status|owner|queue)$/.test(p.sort ?? '');
  for (const [name, params] of Object.entries(FILTERS).filter(
    ([, p]) => (p.q || p.tag || p.tag_any || Object.keys(p).some((k) => k.startsWith('cf.'))) && !ranked(p),
  )) {
    it(`${name}: the walk reads tickets in sort order and only probes the set`, async () => {
      const q = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams(params)));
      expect(q.walk).toBeDefined();
      const lines = sqliteExplain([q.walk!]);
      expect(lines.join('\n')).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      expect(lines.filter((l) => /^SCAN transactions\b/.test(l))).toEqual([]);
      // Tickets are read through a sort (or filter) index in order — never the table itself.
      const ticketReads = lines.filter((l) => /^(SCAN|SEARCH) tickets\b/.test(l));
      expect(ticketReads.length, lines.join('\n')).toBe(1);
      expect(ticketReads[0], lines.join('\n')).toMatch(/USING (COVERING )?INDEX tickets_\w+_idx/);
      // A cf set is not read whole for the walk: each ticket read is one probe naming the
      // ticket, one seek in the covering lookup index with all of its columns (decision 108: the
      // primary key (ticket_id, field_id) left the value in the row, a second read per probe).
      // No Bloom filter: SQLite 3.53 builds one over every entry of the value for a bare EXISTS,
      // on each run (3.4 ms a page at 100k); the probe's `LIMIT 1` keeps it a probe.
      expect(lines.join('\n')).not.toMatch(/BLOOM FILTER/);
      if (Object.keys(params).some((k) => k.startsWith('cf.'))) {
        const probe =
          /SEARCH ticket_custom_values USING COVERING INDEX ticket_custom_values_lookup_idx \(field_id=\? AND value=\? AND ticket_id=\?\)/;
        expect(lines.join('\n')).toMatch(probe);
        expect(
          lines.filter((l) => /ticket_custom_values/.test(l)).every((l) => probe.test(l)),
          lines.join('\n'),
        ).toBe(true);
      }
      if (params.tag || params.tag_any) {
        const probe =
          /SEARCH ticket_tags USING COVERING INDEX sqlite_autoindex_ticket_tags_1 \(ticket_id=\? AND tag=\?\)/;
        expect(lines.join('\n')).toMatch(probe);
        expect(
          lines.filter((l) => /ticket_tags/.test(l)).every((l) => probe.test(l)),
          lines.join('\n'),
        ).toBe(true);
      }
    });

    it(`${name}: the walk and the sorted set give the same page, in the same order`, async () => {
      for (const extra of [{}, { sort: '-priority' }, { sort: 'created', offset: '3' }, { limit: '2' }]) {
        const q = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams({ ...params, ...extra })));
        const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
        expect(ids(q.walk!.all()), JSON.stringify(extra)).toEqual(ids(q.page.all()));
        expect(q.page.all().length).toBeGreaterThan(0);
      }
      // The total (counted from the set alone when it is the only filter) is every matching ticket once.
      const all = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams({ ...params, limit: '500' })));
      expect(all.total()).toBe(all.page.all().length);
    });
  }

  it('walks only when the set is dense enough for the page to be near the start of the index', () => {
    expect(shouldWalk(16_000, 100_000, 50)).toBe(true); // a frequent value: ~300 entries
    expect(shouldWalk(368, 100_000, 50)).toBe(false); // a rare word: ~13,600 entries, sort it
    expect(shouldWalk(16_000, 100_000, 5_050)).toBe(false); // deep in the list
    expect(shouldWalk(0, 100_000, 50)).toBe(false);
    expect(shouldWalk(100, 100, 500)).toBe(true);
  });

  it('a count that stopped at its bound ("1,000+") is asked up to what a walk needs before the set is sorted', () => {
    // A set that is counted to the end is judged by its size, and nothing more is asked.
    const { asked, holding } = askedCounts();
    expect(walkOrSort(holding(368), { counted: 368, merged: 0, exact: true }, 100_000, 50)).toBe(false);
    expect(asked).toEqual([]);
    // 1M tickets, a tag on 100,000 of them counted "1,000+": a walk reads ~500 entries; it needs 5,000.
    expect(walkOrSort(holding(100_000), { counted: 1_000, merged: 0, exact: false }, 1_000_000, 50)).toBe(true);
    expect(asked).toEqual([5_000]);
    // Just past the bound (1,200 tickets): sorting them is cheaper than walking ~42,000 entries.
    expect(walkOrSort(holding(1_200), { counted: 1_000, merged: 0, exact: false }, 1_000_000, 50)).toBe(false);
    // The merged tickets the count holds are asked for on top; deep pages ask at most WALK_PROOF_MAX.
    asked.length = 0;
    expect(walkOrSort(holding(60_000), { counted: 1_003, merged: 3, exact: false }, 1_000_000, 50)).toBe(true);
    expect(walkOrSort(holding(60_000), { counted: 4_003, merged: 3, exact: false }, 1_000_000, 3_850)).toBe(true);
    expect(asked).toEqual([5_003, WALK_PROOF_MAX + 3]);
    // Dense by the bound alone: walked without asking.
    asked.length = 0;
    expect(walkOrSort(holding(50_000), { counted: 1_000, merged: 0, exact: false }, 100_000, 50)).toBe(true);
    expect(asked).toEqual([]);
    // A list with no bounded count (its size known) is never asked.
    expect(walkOrSort({ atLeast: () => undefined }, { counted: 1_000, merged: 0, exact: false }, 1_000_000, 50)).toBe(
      false,
    );
  });

  it('a list by priority is walked along the priority index when it holds more than √(end·count) tickets (decision 108)', () => {
    const { asked, holding } = askedCounts();
    // 100k tickets, a page of 50: the walk reads ~end·count/total rows, the sort all of them; even at √5,000,000 ≈ 2,237.
    expect(walkOrSortPlain(holding(25_000), { counted: 1_000, merged: 0, exact: false }, 100_000, 50)).toBe(true);
    expect(walkOrSortPlain(holding(1_640), { counted: 1_000, merged: 0, exact: false }, 100_000, 50)).toBe(false);
    expect(asked).toEqual([2_237, 2_237]);
    asked.length = 0;
    expect(walkOrSortPlain(holding(900), { counted: 900, merged: 0, exact: true }, 100_000, 50)).toBe(false);
    expect(walkOrSortPlain(holding(3_000), { counted: 3_002, merged: 2, exact: true }, 100_000, 50)).toBe(true);
    expect(asked).toEqual([]);
    // Deeper pages need more: offset 2,000 of 100k asks for 14,318.
    expect(walkOrSortPlain(holding(25_000), { counted: 3_000, merged: 0, exact: false }, 100_000, 2_050)).toBe(true);
    expect(asked).toEqual([14_318]);
  });

  it('a list by priority with a status or an owner has a walk along the priority index; a month of tickets or an id order has none (decision 108)', async () => {
    for (const params of [
      { status: 'open', sort: '-priority' },
      { owner_id: '2', sort: 'priority' },
    ]) {
      const q = await listQueries(db, admin, TicketFilterSchema.parse(params));
      expect(sqliteExplain([q.page]).join('\n')).toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      expect(q.walk, JSON.stringify(params)).toBeDefined();
      expect(q.plainWalk).toBe(true);
      const walk = sqliteExplain([q.walk!]).join('\n');
      expect(walk).toMatch(
        /^SEARCH tickets USING INDEX tickets_priority_idx|^SCAN tickets USING INDEX tickets_priority_idx/m,
      );
      expect(walk).not.toMatch(/TEMP B-TREE/);
      const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
      expect(ids(q.walk!.all())).toEqual(ids(q.page.all()));
      expect(q.page.all().length).toBeGreaterThan(0);
    }
    for (const params of [
      { status: 'open', sort: '-id' },
      { status: 'open', sort: '-priority', created_from: '2020-01-01T00:00:00Z' },
      { requester_id: '3', sort: '-priority' },
    ]) {
      const q = await listQueries(db, admin, TicketFilterSchema.parse(params));
      expect(q.walk, JSON.stringify(params)).toBeUndefined();
    }
  });

  it('a ranked sort (status, owner, queue) has no walk form: the set is read and sorted (decision 055)', async () => {
    for (const sort of ['status', '-owner', 'queue']) {
      const q = await listQueries(db, admin, TicketFilterSchema.parse({ q: 'printer', sort }));
      try {
        expect(q.walk, sort).toBeUndefined();
        expect(sqliteExplain([q.page]).join('\n')).toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      } finally {
        q.release();
      }
    }
  });

  // SPEC D3 (decision 076): a list with no status filter leaves merged tickets out; it counts as
  // before merges and takes away the merged tickets among them, read through their partial index.
  for (const [name, params] of Object.entries({
    'q alone': { q: 'printer' },
    'cf alone': { 'cf.severity': 'high' },
    'owner_id=none': { owner_id: 'none' },
  })) {
    it(`${name}, no status: merged tickets are counted away through their partial index`, async () => {
      const q = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams(params)));
      try {
        expect(q.merged).toBeDefined();
        const merged = sqliteExplain([q.merged]);
        const reads = merged.filter((l) => /^(SCAN|SEARCH) tickets\b/.test(l));
        expect(reads, merged.join('\n')).toHaveLength(1);
        expect(reads[0]).toMatch(/^SEARCH tickets USING (COVERING )?INDEX tickets_merged_into_idx/);
        // The count itself is what it was before merges: the set, or an index without `status`.
        expect(sqliteExplain([q.count]).join('\n')).not.toMatch(/status/);
      } finally {
        q.release();
      }
    });
  }

  // Decision 108: sets alone are counted in their indexes (the smallest set's entries, each probed
  // in the others'), and the list led by the smallest reads only the tickets in all of them.
  for (const [name, params] of Object.entries({
    'two tags': { tag: 'billing,vip' },
    'a tag and a custom value': { tag: 'billing', 'cf.severity': 'high' },
  })) {
    it(`${name}, nothing else: counted without reading a ticket; the page reads the tickets in both`, async () => {
      const q = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams(params)));
      try {
        const count = sqliteExplain([q.count]);
        expect(
          count.filter((l) => /^(SCAN|SEARCH) tickets\b/.test(l)),
          count.join('\n'),
        ).toEqual([]);
        expect(count.join('\n')).toMatch(
          /^SEARCH lead_set USING COVERING INDEX (ticket_tags_tag_idx|ticket_custom_values_lookup_idx)/m,
        );
        const page = sqliteExplain([q.page]).join('\n');
        // The tickets' ids come from the lead's index, each probed in the other set's, before a ticket is read.
        expect(page).toMatch(/LIST SUBQUERY \d+\n\s*SEARCH lead_set USING COVERING INDEX/);
        expect(page).toMatch(/SEARCH (ticket_tags|ticket_custom_values) USING COVERING INDEX/);
        expect(page).toMatch(/^SEARCH tickets USING INTEGER PRIMARY KEY \(rowid=\?\)/m);
      } finally {
        q.release();
      }
    });
  }

  it('a list without q or cf has no walk form', async () => {
    expect(
      (await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams({ status: 'open' })))).walk,
    ).toBeUndefined();
  });

  it("a requester's list is narrowed by the requester index, whatever else is asked", async () => {
    const lines = await sqliteListPlan({ status: 'open' }, requester);
    expect(lines.filter(fullScan), lines.join('\n')).toEqual([]);
  });

  // Decision 017: a requester's search costs what their own tickets hold, never everyone's text.
  it("a requester's q reads their own tickets through the requester or watcher index, never the text index or all messages", async () => {
    for (const q of ['pr', 'printer', 'banana', 'x'.repeat(200)]) {
      const lines = await sqliteListPlan({ q }, requester);
      const text = lines.join('\n');
      expect(lines.filter(fullScan), text).toEqual([]);
      expect(text, q).not.toMatch(/message_search|message_words|search_pending/);
      // Their own tickets: those they are the first requester of, or a requester or Cc of (decision 019).
      expect(text, q).toMatch(
        /^SEARCH (t|tickets) USING (COVERING )?INDEX tickets_requester_updated_idx \(requester_id=\?\)|^SEARCH ticket_watchers USING (COVERING )?INDEX ticket_watchers_user_idx \(user_id=\? AND role=\?\)/m,
      );
      expect(text, q).toMatch(/SEARCH transactions USING INDEX transactions_ticket_idx \(ticket_id=\?\)/);
    }
  });

  it('a queue, an owner or a team without a status walks its own index in the default order (no sort of all its tickets)', async () => {
    for (const params of [{ queue_id: '2' }, { owner_id: '2' }, { ticket_team_id: '1' }] as Record<string, string>[]) {
      const page = (await sqliteListPlan(params)).join('\n');
      expect(page, JSON.stringify(params)).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      expect(page, JSON.stringify(params)).toMatch(/tickets_(queue|owner|team)_updated_idx/);
    }
  });

  it('sorting without a filter walks a sort index instead of sorting the table', async () => {
    for (const sort of ['-updated', 'created', '-priority', 'id']) {
      const lines = await sqliteListPlan({ sort, offset: '20' });
      const page = lines.join('\n');
      expect(page).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
      expect(page).toMatch(/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/);
    }
  });
});

describe('EXPLAIN QUERY PLAN of what every notification reads', () => {
  it("a ticket's thread (its Message-IDs in and out) is read through the ticket's transactions and outbox rows, not the Message-ID index", () => {
    const { sql: text } = threadIdsQuery(db).toSQL();
    const lines = (sqliteOf(db).prepare(`EXPLAIN QUERY PLAN ${text}`).all(1, 1, 'email') as { detail: string }[]).map(
      (r) => r.detail,
    );
    expect(lines.join('\n')).toMatch(/SEARCH transactions USING INDEX transactions_ticket_idx \(ticket_id=\?\)/);
    expect(lines.join('\n')).toMatch(/SEARCH outbox USING INDEX \w*ticket\w* \(ticket_id=\?/);
    expect(lines.join('\n')).not.toMatch(/message_id_idx/);
  });

  it('the Message-ID index holds mail only, and finds a message by its id', () => {
    const lines = sqliteExplain([sql`SELECT id FROM transactions WHERE message_id = ${'<x@example.com>'}`]);
    expect(lines.join('\n')).toMatch(/USING (COVERING )?INDEX transactions_message_id_idx \(message_id=\?\)/);
    const index = sqliteOf(db)
      .prepare("SELECT sql FROM sqlite_master WHERE name = 'transactions_message_id_idx'")
      .get() as { sql: string };
    expect(index.sql).toMatch(/WHERE message_id IS NOT NULL$/);
  });
});

describe('EXPLAIN QUERY PLAN of what every page reads', () => {
  it('staff for pickers and names are found through the role index, not by reading every user (requesters included)', () => {
    const lines = sqliteExplain([staffQuery(db)]);
    expect(lines.join('\n')).toMatch(/^SEARCH users USING INDEX users_role_idx \(role=\?\)/);
    expect(lines.filter((l) => /^SCAN users\b/.test(l))).toEqual([]);
  });
});

/**
 * A plan with its batch of ids (one JSON parameter read by json_each, issue 32) checked and taken
 * out: the lines of the table reads remain, each probing an index once per id.
 */
function withoutBatch(lines: string[]): string[] {
  const batch = lines.filter((l) => /^LIST SUBQUERY \d+$|^SCAN json_each VIRTUAL TABLE/.test(l));
  expect(batch.length, lines.join('\n')).toBe(2);
  return lines.filter((l) => !batch.includes(l));
}

describe('EXPLAIN QUERY PLAN of what every ticket list reads besides the list', () => {
  // The custom values of a page of tickets. The lookup index (field_id, value, ticket_id) covers
  // this query; read through it, the values of every ticket are read for each field (30 ms a page
  // at 100k tickets). A database migrated to that index still has statistics for the primary key
  // only until it is analysed again — the situation in which SQLite chose the covering index.
  // On the writer: the connection the statistics are changed (and reloaded) on below.
  const valuesPlan = () => {
    const q = customValuesQuery(
      db,
      partsDialect(db, (column) =>
        idsIn(
          db,
          column,
          Array.from({ length: 50 }, (_, i) => i + 1),
        ),
      ),
    ).toSQL();
    return withoutBatch(
      (
        sqliteOf(db)
          .prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
          .all(...(q.params as unknown[])) as { detail: string }[]
      ).map((r) => r.detail),
    );
  };
  // By the primary key (ticket_id, field_id), whichever table SQLite reads first (the fields are few).
  const byTicket =
    /^(SCAN custom_fields\n)?SEARCH ticket_custom_values USING INDEX sqlite_autoindex_ticket_custom_values_1 \(ticket_id=\?( AND field_id=\?)?\)(\nSEARCH custom_fields USING INTEGER PRIMARY KEY \(rowid=\?\))?$/;

  it('custom values of a page of tickets are read by ticket through the primary key, not the lookup index (no statistics)', () => {
    expect(valuesPlan().join('\n')).toMatch(byTicket);
  });

  it('… and with the statistics of an install analysed before the lookup index existed (none for it)', () => {
    const raw = sqliteOf(db);
    raw.exec('ANALYZE');
    raw.prepare("DELETE FROM sqlite_stat1 WHERE idx = 'ticket_custom_values_lookup_idx'").run();
    raw.prepare("DELETE FROM sqlite_stat4 WHERE idx = 'ticket_custom_values_lookup_idx'").run();
    raw
      .prepare("UPDATE sqlite_stat1 SET stat = '150007 2 1' WHERE idx = 'sqlite_autoindex_ticket_custom_values_1'")
      .run();
    raw.exec('ANALYZE sqlite_schema'); // loads the statistics as written
    try {
      expect(valuesPlan().join('\n')).toMatch(byTicket);
    } finally {
      raw.exec('DELETE FROM sqlite_stat1; DELETE FROM sqlite_stat4; ANALYZE sqlite_schema');
    }
  });

  it("the reader's unread marks (SPEC D6): their read rows of the page's tickets by the primary key", () => {
    const q = readsQuery(db, admin.id, {
      inIds: (column) =>
        idsIn(
          db,
          column,
          Array.from({ length: 50 }, (_, i) => i + 1),
        ),
    }).toSQL();
    const lines = withoutBatch(
      (
        sqliteOf(db)
          .prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
          .all(...(q.params as unknown[])) as { detail: string }[]
      ).map((r) => r.detail),
    );
    expect(lines.join('\n')).toMatch(
      /^SEARCH ticket_reads USING INDEX sqlite_autoindex_ticket_reads_1 \(user_id=\? AND ticket_id=\?\)$/,
    );
  });
});

// SPEC C4 (decision 035): the built-in lists and q on the requester's name or address stay indexed.
describe('EXPLAIN QUERY PLAN of the built-in lists and of q on requesters', () => {
  const active = 'new,open,stalled';
  for (const [name, params] of Object.entries({
    'My open tickets': { owner_id: 'me', status: active },
    "Unassigned in my teams' queues": { owner_id: 'none', status: active, my_teams: 'true' },
  })) {
    it(`${name}: no scan of tickets; read through an index`, async () => {
      const spec = await listSpec(db, agentActor, TicketFilterSchema.parse(nestFilterParams(params)));
      if (params.my_teams) expect(spec.queue_ids!.length).toBeGreaterThan(0);
      const q = await listQueries(db, agentActor, TicketFilterSchema.parse(nestFilterParams(params)));
      const lines = sqliteExplain([q.fill, q.page, q.count]);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter(fullScan), lines.join('\n')).toEqual([]);
      expect(
        lines.some((l) =>
          /^SEARCH tickets USING (COVERING )?INDEX tickets_(owner|queue)_status_(updated|created)_idx/.test(l),
        ),
        lines.join('\n'),
      ).toBe(true);
    });
  }

  // Decision 084: whole words from the word index; text inside words (no word starts with it) and
  // what is not words from the trigram index, as before.
  it('a q of whole words fills its set from the word index, other text from the trigram index', async () => {
    for (const [q, index] of [
      ['printer', 'message_words'],
      ['toner 12', 'message_words'],
      ['rinte', 'message_search'],
      ['toner-1', 'message_search'],
    ]) {
      const qs = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams({ q })));
      try {
        const text = sqliteExplain([qs.fill]).join('\n');
        expect(text, q).toMatch(new RegExp(`SCAN ${index} VIRTUAL TABLE`));
        expect(text, q).not.toMatch(
          new RegExp(`SCAN ${index === 'message_words' ? 'message_search' : 'message_words'}\\b`),
        );
      } finally {
        qs.release();
      }
    }
  });

  // Decision 092: the older tickets that could sort onto a word search's page (held newest first)
  // are read through the sort's own index from the page's end, never by the ids below the held ones;
  // decision 114: newest first, a chunk at a time from the last one read, in the index's order.
  it("a word search's older tickets that sort onto its page are read through the sort index", () => {
    const end = { key: '2026-01-01T00:00:00.000Z', id: 900 };
    for (const [sort, index] of [
      ['updated', 'tickets_updated_idx'],
      ['created', 'tickets_created_idx'],
    ] as const) {
      for (const plain of [[NOT_MERGED], [sql`"tickets"."status" IN ('new', 'open')`, sql`"tickets"."queue_id" = 1`]]) {
        const first = sqliteExplain([olderTickets(sort, plain, 500, end)]).join('\n');
        expect(first, sort).toMatch(new RegExp(`SEARCH tickets USING INDEX ${index} \\(\\w+>\\?\\)`));
        const next = sqliteExplain([
          olderTickets(sort, plain, 500, end, { key: '2026-02-01T00:00:00.000Z', id: 400 }),
        ]).join('\n');
        expect(next, sort).toMatch(new RegExp(`SEARCH tickets USING INDEX ${index} \\(\\w+>\\? AND \\w+<\\?\\)`));
        expect(`${first}\n${next}`, sort).not.toMatch(/TEMP B-TREE/);
      }
    }
  });

  it('q naming a requester: their tickets through ticket_watchers_user_idx, the people through the e-mail index', async () => {
    for (const q of ['req@example', 'Req']) {
      const spec = await listSpec(db, admin, TicketFilterSchema.parse(nestFilterParams({ q })));
      expect(spec.qRequesterIds, q).toEqual([requester.id]);
      const qs = await listQueries(db, admin, TicketFilterSchema.parse(nestFilterParams({ q })));
      try {
        const lines = sqliteExplain([qs.fill, qs.fillRequesters, qs.page, qs.count]);
        const text = lines.join('\n');
        expect(lines.filter(fullScan), text).toEqual([]);
        expect(text, q).toMatch(
          /SEARCH ticket_watchers USING (COVERING )?INDEX ticket_watchers_user_idx \(user_id=\? AND role=\?\)/,
        );
      } finally {
        qs.release();
      }
    }
  });
});
