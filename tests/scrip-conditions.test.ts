import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC B6 conditions, each shown firing on the transactions it names and on no other: one
// notify_webhook scrip per condition, a ticket taken through every kind of transaction, and
// for each transaction the scrips that matched — in the API answer, in the stored history, in
// the outbox, and as webhook deliveries received by a real HTTP server. (Issue 12 §4: five of
// the eleven conditions had no test that fails when the condition never fires.)

const CONDITIONS = [
  'on_create',
  'on_transaction',
  'on_correspond',
  'on_comment',
  'on_status_change',
  'on_resolve',
  'on_reopen',
  'on_owner_change',
  'on_team_change',
  'on_queue_change',
  'on_priority_change',
] as const;
type Condition = (typeof CONDITIONS)[number];

let s: TestServer;
let receiver: http.Server;
let hookUrl: string;
const received: { event: string; transaction_id: number; type: string }[] = [];
const scripKey = (c: Condition) => `cond_${c}`;
let scripIds: Record<string, Condition>;
let queueA: number;
let queueB: number;
let teamId: number;
let agentId: number;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const p = JSON.parse(body) as { event: string; transaction: { id: number; type: string } };
      received.push({ event: p.event, transaction_id: p.transaction.id, type: p.transaction.type });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  s = await startServer({ OUTBOX_POLL_MS: '50' });
  queueA = (await s.api('POST', '/queues', { body: { name: 'Queue A' } })).body.id;
  queueB = (await s.api('POST', '/queues', { body: { name: 'Queue B' } })).body.id;
  teamId = (await s.api('POST', '/teams', { body: { name: 'Conditions team' } })).body.id;
  agentId = (await s.user('agent')).id;
  // The default open_on_staff_reply (SPEC D6) would add a Status entry to the reply below, and open
  // the ticket before the status steps: this walk is about the conditions alone (that scrip's own
  // test: open-on-staff-reply.test.ts).
  const opener = (await s.api('GET', '/scrips')).body.scrips.find(
    (x: { key: string }) => x.key === 'open_on_staff_reply',
  );
  expect((await s.api('PATCH', `/scrips/${opener.id}`, { body: { enabled: false } })).status).toBe(200);
  scripIds = {};
  for (const condition of CONDITIONS) {
    const res = await s.api('POST', '/scrips', {
      body: {
        key: scripKey(condition),
        condition,
        action: 'notify_webhook',
        config: { url: hookUrl },
        sort_order: 100,
      },
    });
    expect(res.status, res.text).toBe(201);
    scripIds[res.body.id] = condition;
  }
});
afterAll(async () => {
  await s?.close();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

/** The conditions (of our scrips) among scrip results, sorted. */
const fired = (results: { scrip_id: number; ok: boolean }[]) => {
  for (const r of results) if (scripIds[r.scrip_id]) expect(r.ok, JSON.stringify(r)).toBe(true);
  return results
    .map((r) => scripIds[r.scrip_id])
    .filter(Boolean)
    .sort();
};
const set = (...c: Condition[]) => [...c].sort();

type Tx = {
  id: number;
  type: string;
  old_value: string | null;
  new_value: string | null;
  scrip_results: { scrip_id: number; ok: boolean }[];
};

describe('every condition fires on its own transactions and on no other', () => {
  it("through a ticket's whole life, one transaction at a time", async () => {
    /** Expected conditions per transaction id, filled in as the ticket changes. */
    const expected = new Map<number, Condition[]>();
    let known = 0;
    const ticketId = { id: 0 };
    /** Records what the newest transactions must have fired; checks the API answer when it is one transaction. */
    const step = async (
      answer: { scrip_results: { scrip_id: number; ok: boolean }[] },
      ...perTransaction: Condition[][]
    ) => {
      const txs = await transactionsOf<Tx>(s, ticketId.id);
      const fresh = txs.slice(known);
      known = txs.length;
      expect(
        fresh.map((t) => t.type),
        'one transaction per change',
      ).toHaveLength(perTransaction.length);
      fresh.forEach((t, i) => {
        expected.set(t.id, set(...perTransaction[i]));
      });
      if (perTransaction.length === 1) expect(fired(answer.scrip_results)).toEqual(set(...perTransaction[0]));
      for (const t of fresh)
        expect(fired(t.scrip_results), `${t.type} ${t.old_value} -> ${t.new_value}`).toEqual(expected.get(t.id));
      return fresh;
    };
    const patch = async (body: Record<string, unknown>) => {
      const res = await s.api('PATCH', `/tickets/${ticketId.id}`, { body });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const comment = async (body: string, internal: boolean) => {
      const res = await s.api('POST', `/tickets/${ticketId.id}/comment`, { body: { body, internal } });
      expect(res.status, res.text).toBe(201);
      return res.body;
    };

    const created = await s.api('POST', '/tickets', {
      body: { queue_id: queueA, subject: 'Conditions', description: 'First message' },
    });
    expect(created.status, created.text).toBe(201);
    ticketId.id = created.body.ticket.id;
    await step(created.body, ['on_create', 'on_transaction']);

    await step(await patch({ priority: 40 }), ['on_priority_change', 'on_transaction']);
    await step(await patch({ queue_id: queueB }), ['on_queue_change', 'on_transaction']);
    await step(await comment('An internal note', true), ['on_comment', 'on_transaction']);
    await step(await comment('A public reply', false), ['on_correspond', 'on_transaction']);
    await step(await patch({ subject: 'Conditions, renamed' }), ['on_transaction']);
    await step(await patch({ owner_id: agentId }), ['on_owner_change', 'on_transaction']);
    await step(await patch({ team_id: teamId }), ['on_team_change', 'on_transaction']);
    // Status moves: a reopen is inactive -> active only.
    await step(await patch({ status: 'open' }), ['on_status_change', 'on_transaction']); // new -> open
    await step(await patch({ status: 'stalled' }), ['on_status_change', 'on_transaction']); // open -> stalled
    await step(await patch({ status: 'resolved' }), ['on_status_change', 'on_resolve', 'on_transaction']);
    await step(await patch({ status: 'open' }), ['on_status_change', 'on_reopen', 'on_transaction']); // resolved -> open
    await step(await patch({ status: 'rejected' }), ['on_status_change', 'on_transaction']);
    await step(await patch({ status: 'deleted' }), ['on_status_change', 'on_transaction']); // inactive -> inactive
    await step(await patch({ status: 'new' }), ['on_status_change', 'on_reopen', 'on_transaction']); // deleted -> new
    await step(await patch({ status: 'rejected' }), ['on_status_change', 'on_transaction']);
    await step(await patch({ status: 'stalled' }), ['on_status_change', 'on_reopen', 'on_transaction']); // rejected -> stalled
    // A priority back to 0 is a change too; setting the same priority again is no transaction at all.
    await step(await patch({ priority: 0 }), ['on_priority_change', 'on_transaction']);
    await step(await patch({ priority: 0 }));
    // Several fields at once: one transaction each, each with its own conditions.
    await step(
      await patch({ priority: 90, queue_id: queueA, status: 'resolved' }),
      ...(await (async () => {
        const txs = await transactionsOf<Tx>(s, ticketId.id);
        const order = txs.slice(known).map((t) => t.type);
        const by: Record<string, Condition[]> = {
          SetPriority: ['on_priority_change', 'on_transaction'],
          SetQueue: ['on_queue_change', 'on_transaction'],
          Status: ['on_status_change', 'on_resolve', 'on_transaction'],
        };
        expect([...order].sort()).toEqual(['SetPriority', 'SetQueue', 'Status']);
        return order.map((type) => by[type]);
      })()),
    );
    // A reply on the resolved ticket: the default open_inactive scrip reopens it — a scrip's own
    // change, which runs no scrips, so on_reopen does not fire for it.
    await step(await comment('Still broken', false), ['on_correspond', 'on_transaction'], []);
    const last = (await transactionsOf<Tx>(s, ticketId.id)).at(-1)!;
    expect([last.type, last.old_value, last.new_value]).toEqual(['Status', 'resolved', 'open']);

    // The outbox holds one webhook per (transaction, scrip) that fired, and nothing else of ours.
    const outbox = await s.api('GET', `/outbox?ticket_id=${ticketId.id}&limit=500`);
    expect(outbox.status, outbox.text).toBe(200);
    const queued = (outbox.body.outbox as { kind: string; transaction_id: number; scrip_id: number }[])
      .filter((o) => o.kind === 'webhook' && scripIds[o.scrip_id])
      .map((o) => `${o.transaction_id}:${scripIds[o.scrip_id]}`)
      .sort();
    const wanted = [...expected].flatMap(([tx, conds]) => conds.map((c) => `${tx}:${c}`)).sort();
    expect(queued).toEqual(wanted);
    for (const c of ['on_reopen', 'on_queue_change', 'on_comment', 'on_transaction', 'on_priority_change'] as const) {
      expect(wanted.filter((w) => w.endsWith(`:${c}`)).length, c).toBeGreaterThan(0);
    }

    // And each was delivered to the receiver, naming its condition and transaction.
    await expect
      .poll(() => received.map((r) => `${r.transaction_id}:${r.event}`).sort(), { timeout: 20_000, interval: 50 })
      .toEqual(wanted);
  }, 60_000);
});
