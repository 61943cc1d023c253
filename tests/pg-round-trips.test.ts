import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetWriteStatements, writeStatements } from '../src/db/postgres/statements.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';

// Decisions 066 and 067: the statements (round trips) one write sends on PostgreSQL, counted on
// its unit of work's connection (BEGIN and COMMIT included). Through a network each is a round
// trip, and the count is most of a write's cost; a change that adds round trips to a write fails
// here. Each write is measured with the process's configuration kept (decision 067: every kind of
// write ran once before, as in a running server). The limits are the measured figures of decision
// 067 (066: 15, 33, 19, 13, 10, 10, 26, 45, 33; before it: 20, 47, 24, 17, 17, 17, 34, 60, 38).

const LIMITS = {
  'create (API JSON)': 9,
  'create (queue with a team of 10)': 13,
  'public reply': 13,
  'internal comment': 9,
  'PATCH status': 6,
  'PATCH priority': 6,
  'PATCH owner': 12,
  'mailgate: new ticket': 19,
  'mailgate: reply': 17,
};

let s: TestServer;
let teamQueue = 0;
let ticketId = 0;
let agentId = 0;
const msg = (subject: string, id: string) =>
  [
    'From: "Mail Sender" <sender@customers.example>',
    'To: help@example.test',
    `Subject: ${subject}`,
    `Message-ID: <${id}@customers.example>`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'The printer on the second floor is out of toner again.',
    '',
  ].join('\r\n');

/** Runs one write and returns the statements of its unit of work (the one of the operation named). */
async function measured(op: string, write: () => Promise<{ status: number }>, ok = 200): Promise<number> {
  resetWriteStatements();
  const res = await write();
  expect(res.status).toBe(ok);
  const c = writeStatements()[op];
  expect(c, `${op}: ${JSON.stringify(writeStatements())}`).toBeDefined();
  expect(c.units).toBe(1);
  return c.last;
}

describe.skipIf(!pgAvailable())('round trips per write on PostgreSQL', () => {
  const counts: Record<string, number> = {};
  beforeAll(async () => {
    s = await startServer({ DATABASE_URL: await createMigratedDatabase() });
    const team = await s.api('POST', '/teams', { body: { name: 'Service desk' } });
    expect(team.status).toBe(201);
    for (let i = 0; i < 10; i++) {
      const a = await s.user('agent', `agent${i}@example.test`);
      agentId = a.id;
      expect((await s.api('POST', `/teams/${team.body.id}/members`, { body: { user_id: a.id } })).status).toBe(201);
    }
    const q = await s.api('POST', '/queues', {
      body: { name: 'Help', team_id: team.body.id, mail_alias: 'help@example.test' },
    });
    expect(q.status).toBe(201);
    teamQueue = q.body.id;
    const t = await s.api('POST', '/tickets', { body: { queue_id: teamQueue, subject: 'Printer' } });
    ticketId = t.body.ticket.id;
    // Every kind of write once, so the process keeps the configuration they read (decision 067).
    const warm = await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Warm', description: 'Up' } });
    expect(warm.status).toBe(201);
    const w = warm.body.ticket.id;
    for (const body of [{ body: 'Hello', internal: false }, { body: 'Note' }])
      expect((await s.api('POST', `/tickets/${w}/comment`, { body })).status).toBe(201);
    for (const body of [{ status: 'open' }, { owner_id: agentId }])
      expect((await s.api('PATCH', `/tickets/${w}`, { body })).status).toBe(200);
    const gate = (raw: string) =>
      s.api('POST', '/mailgate', { body: raw, headers: { 'content-type': 'message/rfc822' } });
    expect((await gate(msg('Warm', 'warm-1'))).status).toBe(201);
    expect((await gate(msg(`Re: [hxdesk #${w}] Warm`, 'warm-2'))).status).toBe(200);
  });
  afterAll(async () => {
    // The table of decision 066 (printed so a run shows the figures).
    console.log(
      Object.entries(counts)
        .map(([k, n]) => `${k}: ${n}`)
        .join('\n'),
    );
    await s?.close();
    await releasePostgres();
  });
  const check = (name: keyof typeof LIMITS, n: number) => {
    counts[name] = n;
    expect(n, name).toBeLessThanOrEqual(LIMITS[name]);
  };

  it('a create', async () => {
    check(
      'create (API JSON)',
      await measured(
        'createTicket',
        () => s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Printer', description: 'Out of toner' } }),
        201,
      ),
    );
    check(
      'create (queue with a team of 10)',
      await measured(
        'createTicket',
        () =>
          s.api('POST', '/tickets', {
            body: { queue_id: teamQueue, subject: 'VPN', description: 'It drops', owner_id: agentId, priority: 40 },
          }),
        201,
      ),
    );
  });

  it('a public reply and an internal comment', async () => {
    check(
      'public reply',
      await measured(
        'commentOnTicket',
        () => s.api('POST', `/tickets/${ticketId}/comment`, { body: { body: 'On its way', internal: false } }),
        201,
      ),
    );
    check(
      'internal comment',
      await measured(
        'commentOnTicket',
        () => s.api('POST', `/tickets/${ticketId}/comment`, { body: { body: 'Ordered toner' } }),
        201,
      ),
    );
  });

  it('a PATCH of the status, the priority, the owner', async () => {
    const patch = (body: object) => () => s.api('PATCH', `/tickets/${ticketId}`, { body });
    check('PATCH status', await measured('updateTicket', patch({ status: 'stalled' })));
    check('PATCH priority', await measured('updateTicket', patch({ priority: 70 })));
    check('PATCH owner', await measured('updateTicket', patch({ owner_id: agentId })));
  });

  it('mail through the mail gateway: a new ticket and a reply', async () => {
    const gate = (raw: string) => () =>
      s.api('POST', '/mailgate', { body: raw, headers: { 'content-type': 'message/rfc822' } });
    check('mailgate: new ticket', await measured('applyInboundMail', gate(msg('Toner', 'new-1')), 201));
    check(
      'mailgate: reply',
      await measured('applyInboundMail', gate(msg(`Re: [hxdesk #${ticketId}] Printer`, 'reply-1'))),
    );
  });
});
