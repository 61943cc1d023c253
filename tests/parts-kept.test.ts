import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepParts, keptOn, keptParts, MAX_BYTES } from '../src/db/sqlite/partsKept.js';
import type { Db } from '../src/db/sqlite/handle.js';
import { sqliteOf } from '../src/db/store.js';
import { countingRuns } from './helpers/builds.js';
import { startServer, type TestServer } from './helpers/server.js';
import { uniq } from './helpers/unique.js';

// Decision 113: the SQLite store keeps a list page's parts (descriptions, tags, custom values,
// watchers, links) in memory by ticket, valid while the ticket's parts version (moved by migration
// 0039's triggers) and the configuration's are the ones they were read under. Every change below
// is written by another connection with plain SQL, past hxdesk's code: the triggers alone must
// tell the list. What the list says of each ticket is then compared with GET /tickets/:id, which
// reads the ticket afresh.

let s: TestServer;
let writer: Database.Database;
const tag = uniq('kept').toLowerCase();
const ids: number[] = [];

beforeAll(async () => {
  s = await startServer();
  writer = new Database(path.join(s.dir, 'hxdesk.db'));
  writer.pragma('busy_timeout = 5000');
  const ok = async (method: string, p: string, body: unknown, status = 201) => {
    const res = await s.api(method, p, { body });
    expect(res.status, `${method} ${p}: ${res.text}`).toBe(status);
    return (res.body.ticket ?? res.body) as { id: number };
  };
  await ok('POST', '/custom-fields', { key: 'plan', name: 'Plan', type: 'text' });
  const cc = await s.user('agent', `${uniq('cc')}@example.test`);
  for (let i = 0; i < 4; i++) {
    const t = await ok('POST', '/tickets', {
      queue_id: 1,
      subject: uniq(`Kept ${i}`),
      description: `First words of ticket ${i}`,
      custom_fields: { plan: `gold-${i}` },
      ...(i === 0 ? { cc: [cc.email] } : {}),
    });
    ids.push(t.id);
    await ok('POST', `/tickets/${t.id}/tags`, { tag });
  }
  await ok('POST', `/tickets/${ids[0]}/links`, { type: 'depends_on', ticket_id: ids[1] });
});
afterAll(async () => {
  writer?.close();
  await s?.close();
});

/** The list's tickets, each checked against the ticket read alone; returned for more checks. */
async function listAgrees(): Promise<Record<string, any>[]> {
  const list = await s.api('GET', `/tickets?tag=${encodeURIComponent(tag)}&sort=id`);
  expect(list.status, list.text).toBe(200);
  const listed = (list.body as { tickets: Record<string, any>[] }).tickets;
  expect(listed.map((t) => t.id)).toEqual(ids);
  for (const t of listed) {
    const { unread: _, requester: __, ...rest } = t;
    expect(rest).toEqual((await s.api('GET', `/tickets/${t.id}`)).body);
  }
  return listed;
}

describe("a list page's parts kept by ticket (SQLite)", () => {
  it('a list read again reads no part of a ticket whose version did not move', async () => {
    await listAgrees();
    const { runs } = await countingRuns(sqliteOf(s.db), /"transactions"\."type" = 'Create'/, () =>
      s.api('GET', `/tickets?tag=${encodeURIComponent(tag)}&sort=id`),
    );
    expect(runs).toBe(0);
    // One ticket changed: its parts alone are read again.
    writer.prepare('INSERT INTO ticket_tags (ticket_id, tag, created_at) VALUES (?, ?, ?)').run(ids[2], 'fresh', 'x');
    const { answer, runs: after } = await countingRuns(sqliteOf(s.db), /"transactions"\."type" = 'Create'/, () =>
      s.api('GET', `/tickets?tag=${encodeURIComponent(tag)}&sort=id`),
    );
    expect(after).toBe(1);
    expect((answer.body.tickets as { tags: string[] }[])[2].tags).toContain('fresh');
  });

  it('sees every kind of part written past hxdesk: description, tags, values, watchers, links', async () => {
    await listAgrees();
    const run = (sql: string, ...p: unknown[]) => writer.prepare(sql).run(...p);
    run("UPDATE transactions SET body = 'Changed words' WHERE ticket_id = ? AND type = 'Create'", ids[0]);
    run('DELETE FROM ticket_tags WHERE ticket_id = ? AND tag = ?', ids[2], 'fresh');
    run("UPDATE ticket_custom_values SET value = 'silver' WHERE ticket_id = ?", ids[1]);
    run('DELETE FROM ticket_custom_values WHERE ticket_id = ?', ids[3]);
    run("DELETE FROM ticket_watchers WHERE ticket_id = ? AND role = 'cc'", ids[0]);
    run(
      "INSERT INTO ticket_watchers (ticket_id, role, user_id, created_at, position) SELECT ?, 'cc', user_id, created_at, 9 FROM ticket_watchers WHERE ticket_id = ? AND role = 'requester'",
      ids[3],
      ids[3],
    );
    run('DELETE FROM ticket_links WHERE base_id = ?', ids[0]);
    run(
      "INSERT INTO ticket_links (base_id, type, target_id, created_at) VALUES (?, 'refers_to', ?, 'x')",
      ids[3],
      ids[2],
    );
    const [t0, t1, t2, t3] = await listAgrees();
    expect(t0.description).toBe('Changed words');
    expect(t0.cc).toEqual([]);
    expect(t0.links.depends_on).toEqual([]);
    expect(t1.links.depended_on_by).toEqual([]);
    expect(t1.custom_fields).toEqual({ plan: 'silver' });
    expect(t2.tags).toEqual([tag]);
    expect(t2.links.referred_to_by).toEqual([ids[3]]);
    expect(t3.custom_fields).toEqual({});
    expect(t3.cc).toHaveLength(1);
    expect(t3.links.refers_to).toEqual([ids[2]]);
  });

  it("a custom field's new key is seen (the configuration's version)", async () => {
    await listAgrees();
    const fields = (await s.api('GET', '/custom-fields')).body.custom_fields as { id: number; key: string }[];
    const plan = fields.find((f) => f.key === 'plan')!;
    const res = await s.api('PATCH', `/custom-fields/${plan.id}`, { body: { key: 'tier' } });
    expect(res.status, res.text).toBe(200);
    const [t0] = await listAgrees();
    expect(t0.custom_fields).toEqual({ tier: 'gold-0' });
  });
});

describe('what a connection keeps', () => {
  it('nothing on a connection that can write; up to MAX_BYTES on a read-only one, the least recently used out first', () => {
    const file = path.join(s.dir, 'hxdesk.db');
    const rw = new Database(file);
    const ro = new Database(file, { readonly: true });
    try {
      expect(keptOn(drizzle(rw) as unknown as Db)).toBeUndefined();
      const k = keptOn(drizzle(ro) as unknown as Db)!;
      const big = 'x'.repeat(64 * 1024);
      const parts = (id: number) => ({
        version: 1,
        config: 1,
        descriptions: [{ part: 0, ticket_id: id, body: big }],
        tags: [],
        values: [],
        watchers: [],
        links: [],
      });
      // Each ~64 KB: 63 fit in MAX_BYTES. Ticket 1 is used again before the 61st comes.
      for (let id = 1; id <= 60; id++) keepParts(k, id, parts(id));
      expect(keptParts(k, 1, 1, 1)).toBeDefined();
      for (let id = 61; id <= 70; id++) keepParts(k, id, parts(id));
      expect(k.bytes).toBeLessThanOrEqual(MAX_BYTES);
      expect(k.tickets.size).toBe(63);
      expect(keptParts(k, 1, 1, 1)).toBeDefined();
      expect(keptParts(k, 2, 1, 1)).toBeUndefined();
      expect(keptParts(k, 9, 1, 1)).toBeDefined();
      expect(keptParts(k, 70, 2, 1)).toBeUndefined(); // another version: dropped
      expect(keptParts(k, 70, 1, 1)).toBeUndefined();
      expect(keptParts(k, 69, 1, 2)).toBeUndefined(); // another configuration: dropped
      expect(() => {
        (keptParts(k, 60, 1, 1)!.descriptions as { body: string }[])[0].body = 'changed';
      }).toThrow(TypeError);
    } finally {
      rw.close();
      ro.close();
    }
  });
});
