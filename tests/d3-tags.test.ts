import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { ADMIN_EMAIL, startServer, type TestServer } from './helpers/server.js';
import { until } from './helpers/wait.js';

// SPEC D3 tags (decision 074): a ticket's tags through the API (AddTag / DelTag entries with
// their scrips), the list filters `tag` (all) and `tag_any` (any), bulk changes, GET /tags with
// counts, rename with merge, delete everywhere, and the scrip condition on_tag_added and action
// add_tag — on both stores.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let rq: { id: number; email: string; token: string };
let receiver: http.Server;
let hookUrl: string;
const received: { event: string; type: string; tag: string | null; ticket: number }[] = [];

type Txn = {
  id: number;
  type: string;
  field: string | null;
  old_value: string | null;
  new_value: string | null;
  creator_id: number | null;
  scrip_results: { scrip_id: number; key: string; ok: boolean; error?: string }[];
};

const make = async (subject: string, queue_id = 1) => {
  const res = await s.api('POST', '/tickets', { body: { queue_id, subject, requester_id: rq.id } });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket.id as number;
};
const tag = (id: number, t: string, token = agent.token) =>
  s.api('POST', `/tickets/${id}/tags`, { token, body: { tag: t } });
const tagOk = async (id: number, t: string) => {
  const res = await tag(id, t);
  expect([200, 201], res.text).toContain(res.status);
  return res;
};
const untag = (id: number, t: string, token = agent.token) =>
  s.api('DELETE', `/tickets/${id}/tags/${encodeURIComponent(t)}`, { token });
const tagEntries = async (id: number) =>
  (await transactionsOf<Txn>(s, id)).filter((t) => t.type === 'AddTag' || t.type === 'DelTag');
const said = (e: Txn) => `${e.type} ${e.type === 'AddTag' ? e.new_value : e.old_value}`;
const ids = async (query: string) => {
  const res = await s.api('GET', `/tickets?${query}&sort=id&limit=500`, { token: agent.token });
  expect(res.status, res.text).toBe(200);
  return (res.body.tickets as { id: number }[]).map((t) => t.id);
};

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const p = JSON.parse(body);
      received.push({
        event: p.event,
        type: p.transaction.type,
        tag: p.transaction.new_value ?? null,
        ticket: p.ticket.id,
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  s = await startServer({ OUTBOX_POLL_MS: '50' });
  agent = await s.user('agent', 'tags-agent@example.com');
  rq = await s.user('requester', 'tags-requester@example.com');
});
afterAll(async () => {
  await s?.close();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

describe('a ticket’s tags', () => {
  it('POST adds a normalized tag with an AddTag entry (201); the same tag again changes nothing (200)', async () => {
    const id = await make('Tag me');
    expect((await ticketOf(s, id)).tags).toEqual([]);
    const first = await tag(id, '  VIP ');
    expect(first.status, first.text).toBe(201);
    expect(first.body.ticket.tags).toEqual(['vip']);
    expect(first.body.scrip_results).toEqual(expect.any(Array));
    const entries = await tagEntries(id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      type: 'AddTag',
      field: 'tag',
      new_value: 'vip',
      old_value: null,
      creator_id: agent.id,
    });
    // Live updates carry it: what changed since the Create, in JSON, and the page's Tags box out of band.
    const created = (await transactionsOf<Txn>(s, id))[0].id;
    const live = await s.api('GET', `/tickets/${id}/live?after=${created}`, { token: agent.token });
    expect(live.status, live.text).toBe(200);
    expect(live.body.transactions.map(said)).toEqual(['AddTag vip']);
    expect(live.body.ticket.tags).toEqual(['vip']);
    const fragment = await s.api('GET', `/tickets/${id}/live?after=${created}`, {
      token: agent.token,
      headers: { 'hx-request': 'true' },
    });
    expect(fragment.text).toMatch(/<section id="tags"[^>]*hx-swap-oob="true"/);
    expect(fragment.text).toContain('Tag vip added by');
    const before = (await transactionsOf<Txn>(s, id)).length;
    for (const again of ['vip', 'VIP', ' Vip ']) {
      const res = await tag(id, again);
      expect(res.status, res.text).toBe(200);
      expect(res.body.ticket.tags).toEqual(['vip']);
      expect(res.body.scrip_results).toEqual([]);
    }
    expect((await transactionsOf<Txn>(s, id)).length).toBe(before);
    // Sorted, whatever the order they came in; Unicode letters and the punctuation the rule names.
    for (const t of ['billing', 'a/b:c', 'Café', 'x_1.2-3', 'ОШИБКА']) expect((await tag(id, t)).status).toBe(201);
    const tags = ['a/b:c', 'billing', 'café', 'vip', 'x_1.2-3', 'ошибка'];
    expect((await ticketOf(s, id)).tags).toEqual(tags);
    // A list's tickets carry them too (read for the page at once).
    const listed = await s.api('GET', `/tickets?tag=vip&sort=id`, { token: agent.token });
    expect(listed.body.tickets.find((t: { id: number }) => t.id === id).tags).toEqual(tags);
  });

  it('refuses a tag that breaks the rule, naming the field `tag`, and changes nothing', async () => {
    const id = await make('Bad tags');
    const rule = 'Tag must be 1–40 letters, digits or - _ . / : (no spaces)';
    for (const bad of ['', '   ', 'two words', 'semi;colon', 'comma,tag', 'x'.repeat(41), '#hash']) {
      const res = await tag(id, bad);
      expect(res.status, bad).toBe(422);
      expect(res.body.error.details, bad).toEqual([{ path: 'tag', message: rule }]);
    }
    const missing = await s.api('POST', `/tickets/${id}/tags`, { token: agent.token, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([{ path: 'tag', message: 'Tag is required' }]);
    expect((await tag(id, 'y'.repeat(40))).status).toBe(201);
    expect(await tagEntries(id)).toHaveLength(1);
    // A missing ticket.
    const nope = await tag(999_999, 'vip');
    expect(nope.status).toBe(404);
    expect(nope.body.error.message).toBe('Ticket 999999 not found');
  });

  it('DELETE takes a tag off with a DelTag entry; a tag the ticket has not is 404', async () => {
    const id = await make('Untag me');
    await tagOk(id, 'keep');
    await tagOk(id, 'go');
    await tagOk(id, 'x/y:z');
    const res = await untag(id, 'GO');
    expect(res.status, res.text).toBe(200);
    expect(res.body.ticket.tags).toEqual(['keep', 'x/y:z']);
    // A tag with a slash and a colon, percent-encoded in the path.
    expect((await untag(id, 'x/y:z')).status).toBe(200);
    expect((await ticketOf(s, id)).tags).toEqual(['keep']);
    expect((await tagEntries(id)).map(said)).toEqual([
      'AddTag keep',
      'AddTag go',
      'AddTag x/y:z',
      'DelTag go',
      'DelTag x/y:z',
    ]);
    const again = await untag(id, 'go');
    expect(again.status).toBe(404);
    expect(again.body.error.message).toBe(`Ticket ${id} has no tag "go"`);
    const bad = await untag(id, 'no good');
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].path).toBe('tag');
    expect((await tagEntries(id)).length).toBe(5);
  });

  it('tags are staff’s: a requester can neither see, change nor filter by them', async () => {
    const id = await make('Customer’s own');
    await tagOk(id, 'angry');
    const seen = await s.api('GET', `/tickets/${id}`, { token: rq.token });
    expect(seen.status).toBe(200);
    expect(seen.body).not.toHaveProperty('tags');
    const listed = await s.api('GET', '/tickets', { token: rq.token });
    expect(listed.body.tickets.find((t: { id: number }) => t.id === id)).not.toHaveProperty('tags');
    const add = await tag(id, 'happy', rq.token);
    expect(add.status).toBe(403);
    expect(add.body.error.message).toBe('Tags are for staff: requesters cannot see or change them');
    expect((await untag(id, 'angry', rq.token)).status).toBe(403);
    expect((await s.api('GET', '/tickets?tag=angry', { token: rq.token })).status).toBe(403);
    expect((await s.api('GET', '/tickets?tag_any=angry', { token: rq.token })).status).toBe(403);
    expect((await s.api('GET', '/tags', { token: rq.token })).status).toBe(403);
    // Nor does their history show the entries.
    const history = await s.api('GET', `/tickets/${id}/transactions`, { token: rq.token });
    expect(history.body.transactions.map((t: Txn) => t.type)).not.toContain('AddTag');
    expect((await ticketOf(s, id)).tags).toEqual(['angry']);
  });
});

describe('GET /tickets?tag= (all) and tag_any= (any)', () => {
  it('tag=a&tag=b: tickets with both; tag_any=a,b: with either; in saved views too', async () => {
    const both = await make('Both');
    const onlyA = await make('Only A');
    const onlyB = await make('Only B');
    const none = await make('None');
    await tagOk(both, 'flt-a');
    await tagOk(both, 'flt-b');
    await tagOk(onlyA, 'flt-a');
    await tagOk(onlyB, 'flt-b');
    await tagOk(none, 'flt-c');
    expect(await ids('tag=flt-a')).toEqual([both, onlyA]);
    expect(await ids('tag=flt-a&tag=flt-b')).toEqual([both]);
    expect(await ids('tag=flt-a,flt-b')).toEqual([both]);
    expect(await ids('tag=FLT-A&tag=%20flt-b')).toEqual([both]);
    expect(await ids('tag_any=flt-a,flt-b')).toEqual([both, onlyA, onlyB]);
    expect(await ids('tag_any=flt-a&tag_any=flt-b')).toEqual([both, onlyA, onlyB]);
    expect(await ids('tag_any=flt-b,flt-c&tag=flt-a')).toEqual([both]);
    expect(await ids('tag=flt-a&tag=flt-nope')).toEqual([]);
    expect(await ids('tag_any=flt-nope')).toEqual([]);
    // With the other filters and the total.
    const res = await s.api('GET', `/tickets?tag_any=flt-a,flt-b,flt-c&status=new&limit=2&sort=id`, {
      token: agent.token,
    });
    expect(res.body.total).toBe(4);
    expect(res.body.tickets.map((t: { id: number }) => t.id)).toEqual([both, onlyA]);
    // A bad tag is a 422 naming the parameter, not an empty list.
    const bad = await s.api('GET', '/tickets?tag=two%20words', { token: agent.token });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].path).toMatch(/^tag/);
    // A saved view keeps the filter, as a link does.
    const view = await s.api('POST', '/saved-views', {
      token: agent.token,
      body: { name: 'Tagged A and B', filters: { tag: ['flt-a', 'flt-b'] } },
    });
    expect(view.status, view.text).toBe(201);
    expect(await ids(`view_id=${view.body.id}`)).toEqual([both]);
    const anyView = await s.api('POST', '/saved-views', {
      token: agent.token,
      body: { name: 'Tagged A or B', filters: { tag_any: 'flt-a,flt-b' } },
    });
    expect(anyView.status, anyView.text).toBe(201);
    expect(await ids(`view_id=${anyView.body.id}`)).toEqual([both, onlyA, onlyB]);
  });
});

describe('bulk changes', () => {
  it('add_tags and remove_tags: each ticket its own entries, none for a tag that does not change', async () => {
    const a = await make('Bulk tags A');
    const b = await make('Bulk tags B');
    await tagOk(a, 'bulk-old');
    await tagOk(b, 'bulk-new');
    const res = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [a, b, 999_999], changes: { add_tags: ['Bulk-New', 'bulk-two'], remove_tags: ['bulk-old'] } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: { id: number; ok: boolean }) => [r.id, r.ok])).toEqual([
      [a, true],
      [b, true],
      [999_999, false],
    ]);
    expect((await ticketOf(s, a)).tags).toEqual(['bulk-new', 'bulk-two']);
    expect((await ticketOf(s, b)).tags).toEqual(['bulk-new', 'bulk-two']);
    expect((await tagEntries(a)).map(said)).toEqual([
      'AddTag bulk-old',
      'DelTag bulk-old',
      'AddTag bulk-new',
      'AddTag bulk-two',
    ]);
    expect((await tagEntries(b)).map(said)).toEqual(['AddTag bulk-new', 'AddTag bulk-two']);
    // With a field change in the same request, as a form sends it (comma-separated).
    const form = await s.api('PATCH', '/tickets', {
      token: agent.token,
      form: { ids: [String(a)], 'changes.priority': '9', 'changes.add_tags': 'bulk-three, bulk-four' },
    });
    expect(form.status, form.text).toBe(200);
    const t = await ticketOf(s, a);
    expect([t.priority, t.tags]).toEqual([9, ['bulk-four', 'bulk-new', 'bulk-three', 'bulk-two']]);
    // A bad tag refuses the whole request, naming it.
    const bad = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [a], changes: { add_tags: ['ok', 'not ok'] } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].path).toBe('changes.add_tags.1');
    const empty = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [a], changes: { add_tags: [] } },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.error.message).toBe('Choose at least one change (status, owner, queue, team, priority or tags)');
  });
});

describe('GET /tags, PATCH /tags/:tag, DELETE /tags/:tag', () => {
  it('lists the tags in use with their counts, by name; q is a prefix', async () => {
    const a = await make('Counted A');
    const b = await make('Counted B');
    await tagOk(a, 'cnt-one');
    await tagOk(b, 'cnt-one');
    await tagOk(b, 'cnt-two');
    await tagOk(b, 'other-cnt');
    const res = await s.api('GET', '/tags?q=CNT-', { token: agent.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      tags: [
        { name: 'cnt-one', count: 2 },
        { name: 'cnt-two', count: 1 },
      ],
    });
    const all = await s.api('GET', '/tags', { token: agent.token });
    expect(all.body.tags).toEqual(expect.arrayContaining([{ name: 'other-cnt', count: 1 }]));
    const names = all.body.tags.map((t: { name: string }) => t.name);
    expect(names).toEqual([...names].sort());
    expect((await s.api('GET', '/tags?q=%25', { token: agent.token })).body.tags).toEqual([]);
    expect((await s.api('GET', '/tags?nope=1', { token: agent.token })).status).toBe(422);
  });

  it('a rename merges into an existing tag: each ticket a DelTag and (unless it had it) an AddTag', async () => {
    const hadBoth = await make('Had both');
    const hadOld = await make('Had old');
    await tagOk(hadBoth, 'ren-old');
    await tagOk(hadBoth, 'ren-new');
    await tagOk(hadOld, 'ren-old');
    // Agents may not; a bad name says so.
    expect((await s.api('PATCH', '/tags/ren-old', { token: agent.token, body: { name: 'x' } })).status).toBe(403);
    const bad = await s.api('PATCH', '/tags/ren-old', { body: { name: 'no good' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([
      { path: 'name', message: 'Name must be 1–40 letters, digits or - _ . / : (no spaces)' },
    ]);
    const res = await s.api('PATCH', '/tags/REN-OLD', { body: { name: ' Ren-New ' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ tag: { name: 'ren-new', count: 2 }, tickets: 2 });
    expect((await ticketOf(s, hadBoth)).tags).toEqual(['ren-new']);
    expect((await ticketOf(s, hadOld)).tags).toEqual(['ren-new']);
    expect((await tagEntries(hadBoth)).map(said)).toEqual(['AddTag ren-old', 'AddTag ren-new', 'DelTag ren-old']);
    expect((await tagEntries(hadOld)).map(said)).toEqual(['AddTag ren-old', 'DelTag ren-old', 'AddTag ren-new']);
    const admin = (await s.api('GET', '/users?limit=500')).body.users.find(
      (u: { email: string }) => u.email === ADMIN_EMAIL,
    ).id;
    expect((await tagEntries(hadOld)).slice(1).map((e) => e.creator_id)).toEqual([admin, admin]);
    const gone = await s.api('PATCH', '/tags/ren-old', { body: { name: 'ren-newer' } });
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toBe('No ticket has the tag "ren-old"');
    // A plain rename to a name not in use.
    const plain = await s.api('PATCH', '/tags/ren-new', { body: { name: 'ren-newest' } });
    expect(plain.body).toEqual({ tag: { name: 'ren-newest', count: 2 }, tickets: 2 });
  });

  it('DELETE removes the tag from every ticket, each with a DelTag entry (admins)', async () => {
    const a = await make('Delete A');
    const b = await make('Delete B');
    await tagOk(a, 'del-me');
    await tagOk(b, 'del-me');
    await tagOk(b, 'del-keep');
    expect((await s.api('DELETE', '/tags/del-me', { token: agent.token })).status).toBe(403);
    const res = await s.api('DELETE', '/tags/DEL-ME');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ tickets: 2 });
    expect((await ticketOf(s, a)).tags).toEqual([]);
    expect((await ticketOf(s, b)).tags).toEqual(['del-keep']);
    expect((await tagEntries(a)).map(said)).toEqual(['AddTag del-me', 'DelTag del-me']);
    expect((await tagEntries(b)).map(said)).toEqual(['AddTag del-me', 'AddTag del-keep', 'DelTag del-me']);
    expect((await s.api('GET', '/tags?q=del-')).body.tags).toEqual([{ name: 'del-keep', count: 1 }]);
    const again = await s.api('DELETE', '/tags/del-me');
    expect(again.status).toBe(404);
    expect(again.body.error.message).toBe('No ticket has the tag "del-me"');
  });
});

describe('scrips: on_tag_added and add_tag', () => {
  // The General queue's: these tests come last, and their scrips are deleted at their end.
  const queue = 1;

  it('checks and normalizes the config: if_tag and tag are tags', async () => {
    const bad = await s.api('POST', '/scrips', {
      body: { key: 'tag_bad', condition: 'on_create', action: 'add_tag', queue_id: queue, config: {} },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([{ path: 'config.tag', message: 'The add_tag action needs a tag' }]);
    const badTag = await s.api('POST', '/scrips', {
      body: { key: 'tag_bad', condition: 'on_create', action: 'add_tag', queue_id: queue, config: { tag: 'a b' } },
    });
    expect(badTag.body.error.details).toEqual([
      { path: 'config.tag', message: 'Tag must be 1–40 letters, digits or - _ . / : (no spaces)' },
    ]);
    const badIf = await s.api('POST', '/scrips', {
      body: {
        key: 'tag_bad',
        condition: 'on_tag_added',
        action: 'open_new',
        queue_id: queue,
        config: { if_tag: 'a;b' },
      },
    });
    expect(badIf.status).toBe(422);
    expect(badIf.body.error.details[0].path).toBe('config.if_tag');
  });

  it('on_tag_added (narrowed by if_tag) adds a tag through add_tag, seen by a webhook; no loop', async () => {
    const mk = async (key: string, condition: string, action: string, config: Record<string, unknown>) => {
      const res = await s.api('POST', '/scrips', {
        body: { key, condition, action, queue_id: queue, config, sort_order: 100 },
      });
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    const escalate = await mk('tag_vip_escalates', 'on_tag_added', 'add_tag', { if_tag: ' VIP ', tag: 'Escalated' });
    expect(escalate.config).toEqual({ if_tag: 'vip', tag: 'escalated' });
    // Fires on every AddTag, its own too: adding a tag the ticket has is no change, so it ends.
    const seen = await mk('tag_any_seen', 'on_tag_added', 'add_tag', { tag: 'seen' });
    const hook = await mk('tag_hook', 'on_tag_added', 'notify_webhook', { url: hookUrl });

    const id = await make('Scripted tags', queue);
    const res = await tag(id, 'vip');
    expect(res.status, res.text).toBe(201);
    expect(res.body.ticket.tags).toEqual(['escalated', 'seen', 'vip']);
    const entries = await tagEntries(id);
    // In the scrips' order (escalate was made first): each added tag an entry of its own.
    expect(entries.map(said)).toEqual(['AddTag vip', 'AddTag escalated', 'AddTag seen']);
    // The agent's entry fired all three; the scrips' entries are by nobody and ran the scrips in turn.
    const keys = (e: Txn) => e.scrip_results.map((r) => r.key).sort();
    expect(entries.map((e) => [e.creator_id, keys(e)])).toEqual([
      [agent.id, ['tag_any_seen', 'tag_hook', 'tag_vip_escalates']],
      [null, ['tag_any_seen', 'tag_hook']],
      [null, ['tag_any_seen', 'tag_hook']],
    ]);
    for (const e of entries) for (const r of e.scrip_results) expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(res.body.scrip_results.map((r: { key: string }) => r.key).sort()).toEqual(
      [...keys(entries[0]), ...keys(entries[1]), ...keys(entries[2])].sort(),
    );
    // Another tag: if_tag keeps escalate quiet; the rest find nothing new to add.
    const other = await tag(id, 'other');
    expect(other.body.ticket.tags).toEqual(['escalated', 'other', 'seen', 'vip']);
    expect((await tagEntries(id)).map(said).slice(3)).toEqual(['AddTag other']);
    // The webhook got each AddTag, with the tag.
    await until('four webhook deliveries', async () => received.filter((r) => r.ticket === id).length >= 4);
    expect(
      received
        .filter((r) => r.ticket === id)
        .map((r) => [r.event, r.type, r.tag])
        .sort(),
    ).toEqual(
      [
        ['on_tag_added', 'AddTag', 'vip'],
        ['on_tag_added', 'AddTag', 'seen'],
        ['on_tag_added', 'AddTag', 'escalated'],
        ['on_tag_added', 'AddTag', 'other'],
      ].sort(),
    );
    // A DelTag is no AddTag.
    await untag(id, 'other');
    expect((await tagEntries(id)).at(-1)!.scrip_results).toEqual([]);
    // A scrip's add_tag on a new ticket: the answer carries the tag.
    const addOnCreate = await mk('tag_on_create', 'on_create', 'add_tag', { tag: 'new-here' });
    const created = await s.api('POST', '/tickets', {
      body: { queue_id: queue, subject: 'Born tagged', requester_id: rq.id },
    });
    expect(created.status).toBe(201);
    expect(created.body.ticket.tags).toEqual(['new-here', 'seen']);
    expect((await ticketOf(s, created.body.ticket.id)).tags).toEqual(['new-here', 'seen']);
    for (const x of [escalate, seen, hook, addOnCreate])
      expect((await s.api('DELETE', `/scrips/${x.id}`)).status).toBe(204);
  });
});
