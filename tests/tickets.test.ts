import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { startServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/expect.js';
import { TICKET_KEYS } from './helpers/reads.js';

// Tickets over real HTTP (SPEC B3 ticket/status/transaction/comment, B5 errors).

let s: TestServer;
let adminId: number;
let agent1: { id: number; token: string };
let agent2: { id: number; token: string };
let requester1: { id: number; token: string };
let requester2: { id: number; token: string };
let disabledAgentId: number;
let teamA: number;
let teamB: number;
let queueA: number; // team_id = teamA
let queueB: number; // no team

const TRANSACTION_KEYS = [
  'attachments',
  'body',
  'created_at',
  'creator_id',
  'field',
  'id',
  'merged_from',
  'message_id',
  'new_value',
  'old_value',
  'outside_sender',
  'scrip_results',
  'ticket_id',
  'type',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STATUSES = ['new', 'open', 'stalled', 'resolved', 'rejected', 'deleted'];

/** Asserts a SPEC B5 error: status, code, and (when given) exactly these detail paths. */

async function create(body: Record<string, unknown>, token?: string) {
  const res = await s.api('POST', '/tickets', { body, token });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket as Record<string, any>;
}

async function transactions(id: number, token?: string) {
  const res = await s.api('GET', `/tickets/${id}/transactions`, { token });
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.body)).toEqual(['transactions']);
  return res.body.transactions as Record<string, any>[];
}

async function patch(id: number, body: Record<string, unknown>, token?: string) {
  const res = await s.api('PATCH', `/tickets/${id}`, { body, token });
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['scrip_results', 'ticket']);
  return res.body.ticket as Record<string, any>;
}

/** The server's time, moved by the tests (a later change gets a later stamp without waiting). */
const clock = testClock();
const clockIso = () => new Date(clock.now()).toISOString();

beforeAll(async () => {
  s = await startServer({}, { clock });
  adminId = (await s.api('GET', '/me')).body.id;
  agent1 = await s.user('agent');
  agent2 = await s.user('agent');
  requester1 = await s.user('requester');
  requester2 = await s.user('requester');
  const disabled = await s.user('agent');
  disabledAgentId = disabled.id;
  expect((await s.api('PATCH', `/users/${disabledAgentId}`, { body: { disabled: true } })).status).toBe(200);
  teamA = (await s.api('POST', '/teams', { body: { name: 'Team A' } })).body.id;
  teamB = (await s.api('POST', '/teams', { body: { name: 'Team B' } })).body.id;
  // Requesters open requests where the admin let them (SPEC D6, decision 050).
  const qa = await s.api('POST', '/queues', { body: { name: 'Queue A', team_id: teamA, portal_create: true } });
  expect(qa.status, qa.text).toBe(201);
  queueA = qa.body.id;
  queueB = (await s.api('POST', '/queues', { body: { name: 'Queue B' } })).body.id;
  const cf = await s.api('POST', '/custom-fields', { body: { key: 'ticket_ref', name: 'Reference', type: 'text' } });
  expect(cf.status, cf.text).toBe(201);
});
afterAll(async () => {
  await s?.close();
});

describe('POST /tickets', () => {
  it('creates a ticket: 201 { ticket, scrip_results } with the full ticket shape', async () => {
    const res = await s.api('POST', '/tickets', {
      body: {
        queue_id: queueA,
        subject: '  Printer on fire  ',
        description: 'Smoke everywhere',
        priority: 5,
        owner_id: agent1.id,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['scrip_results', 'ticket']);
    // The default scrips: no autoreply to a staff member who opened the ticket for themselves
    // (SPEC C2); the owner, a staff watcher, hears of the new ticket.
    expect(res.body.scrip_results).toEqual([
      {
        scrip_id: expect.any(Number),
        key: 'autoreply_on_create',
        action: 'autoreply_requester',
        ok: true,
        notifications: 0,
      },
      {
        scrip_id: expect.any(Number),
        key: 'notify_staff_on_create',
        action: 'notify_staff_watchers',
        ok: true,
        notifications: 1,
      },
    ]);
    const t = res.body.ticket;
    expect(Object.keys(t).sort()).toEqual(TICKET_KEYS);
    expect(t).toMatchObject({
      queue_id: queueA,
      subject: 'Printer on fire',
      description: 'Smoke everywhere',
      status: 'new',
      owner_id: agent1.id,
      team_id: teamA,
      requester_id: adminId,
      priority: 5,
      custom_fields: {},
      resolved_at: null,
      requesters: [adminId],
      cc: [],
      admin_cc: [],
      time_worked_minutes: 0,
      csat: null,
    });
    expect(Number.isInteger(t.id) && t.id > 0).toBe(true);
    expect(t.created_at).toMatch(ISO);
    expect(t.updated_at).toMatch(ISO);

    const got = await s.api('GET', `/tickets/${t.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(t);
  });

  it('defaults: status new, priority 0, no owner, empty description, requester = creator', async () => {
    const t = await create({ queue_id: queueB, subject: 'Defaults' }, agent1.token);
    expect(t).toMatchObject({
      status: 'new',
      priority: 0,
      owner_id: null,
      team_id: null,
      description: '',
      requester_id: agent1.id,
    });
  });

  it('accepts an explicit requester and rejects an unknown one', async () => {
    const t = await create({ queue_id: queueB, subject: 'For requester', requester_id: requester1.id });
    expect(t.requester_id).toBe(requester1.id);
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueB, subject: 'x', requester_id: 999_999 } }),
      422,
      'validation_failed',
      ['requester_id'],
    );
  });

  it('requires queue_id and subject', async () => {
    expectError(await s.api('POST', '/tickets', { body: { subject: 'No queue' } }), 422, 'validation_failed', [
      'queue_id',
    ]);
    expectError(await s.api('POST', '/tickets', { body: { queue_id: queueA } }), 422, 'validation_failed', ['subject']);
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueA, subject: '   ' } }),
      422,
      'validation_failed',
      ['subject'],
    );
    const both = await s.api('POST', '/tickets', { body: {} });
    expectError(both, 422, 'validation_failed');
    expect(both.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['queue_id', 'subject']);
  });

  it('rejects an unknown queue, a non-id queue and unknown body keys', async () => {
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: 999_999, subject: 'x' } }),
      422,
      'validation_failed',
      ['queue_id'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: 'abc', subject: 'x' } }),
      422,
      'validation_failed',
      ['queue_id'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueA, subject: 'x', colour: 'red' } }),
      422,
      'validation_failed',
      ['colour'],
    );
  });

  it('rejects a body that is not JSON', async () => {
    expectError(
      await s.api('POST', '/tickets', { body: '{"queue_id":', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_json',
    );
  });

  it('team_id defaults to the queue team; explicit null stays null; explicit team overrides', async () => {
    expect((await create({ queue_id: queueA, subject: 'Default team' })).team_id).toBe(teamA);
    expect((await create({ queue_id: queueA, subject: 'No team', team_id: null })).team_id).toBeNull();
    expect((await create({ queue_id: queueA, subject: 'Other team', team_id: teamB })).team_id).toBe(teamB);
    expect((await create({ queue_id: queueB, subject: 'Queue without team' })).team_id).toBeNull();
    expect((await create({ queue_id: queueB, subject: 'Team on teamless queue', team_id: teamA })).team_id).toBe(teamA);
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueA, subject: 'x', team_id: 999_999 } }),
      422,
      'validation_failed',
      ['team_id'],
    );
  });

  it('owner_id is optional and nullable; unknown, requester-role or disabled owners are 422', async () => {
    expect((await create({ queue_id: queueB, subject: 'Null owner', owner_id: null })).owner_id).toBeNull();
    expect((await create({ queue_id: queueB, subject: 'Admin owner', owner_id: adminId })).owner_id).toBe(adminId);
    const before = (await s.api('GET', '/tickets?limit=500')).body.total;
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueB, subject: 'x', owner_id: 999_999 } }),
      422,
      'validation_failed',
      ['owner_id'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueB, subject: 'x', owner_id: requester1.id } }),
      422,
      'validation_failed',
      ['owner_id'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueB, subject: 'x', owner_id: disabledAgentId } }),
      422,
      'validation_failed',
      ['owner_id'],
    );
    // nothing was created by the failed attempts
    expect((await s.api('GET', '/tickets?limit=500')).body.total).toBe(before);
  });

  it('priority is 0-100', async () => {
    expect((await create({ queue_id: queueB, subject: 'P0', priority: 0 })).priority).toBe(0);
    expect((await create({ queue_id: queueB, subject: 'P100', priority: 100 })).priority).toBe(100);
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueB, subject: 'x', priority: 101 } }),
      422,
      'validation_failed',
      ['priority'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueB, subject: 'x', priority: -1 } }),
      422,
      'validation_failed',
      ['priority'],
    );
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueB, subject: 'x', priority: 2.5 } }),
      422,
      'validation_failed',
      ['priority'],
    );
  });

  it('status: an unknown value is 422; creating resolved sets resolved_at', async () => {
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queueB, subject: 'x', status: 'closed' } }),
      422,
      'validation_failed',
      ['status'],
    );
    const open = await create({ queue_id: queueB, subject: 'Open at once', status: 'open' });
    expect(open).toMatchObject({ status: 'open', resolved_at: null });
    const resolved = await create({ queue_id: queueB, subject: 'Resolved at once', status: 'resolved' });
    expect(resolved.status).toBe('resolved');
    expect(resolved.resolved_at).toMatch(ISO);
  });

  it('records a Create transaction carrying the description as body', async () => {
    const t = await create({ queue_id: queueA, subject: 'With history', description: 'The first words' }, agent2.token);
    const txs = await transactions(t.id);
    expect(txs).toHaveLength(1);
    expect(Object.keys(txs[0]).sort()).toEqual(TRANSACTION_KEYS);
    expect(txs[0]).toMatchObject({
      ticket_id: t.id,
      type: 'Create',
      creator_id: agent2.id,
      body: 'The first words',
      field: null,
      old_value: null,
      new_value: null,
      message_id: null,
      attachments: [],
      // An agent opening a ticket for themselves gets no autoreply; nobody else watches queue A's new tickets here.
      scrip_results: [
        {
          scrip_id: expect.any(Number),
          key: 'autoreply_on_create',
          action: 'autoreply_requester',
          ok: true,
          notifications: 0,
        },
        {
          scrip_id: expect.any(Number),
          key: 'notify_staff_on_create',
          action: 'notify_staff_watchers',
          ok: true,
          notifications: 0,
        },
      ],
    });
    expect(txs[0].created_at).toMatch(ISO);
  });

  it('accepts a form body validated by the same schema', async () => {
    const res = await s.api('POST', '/tickets', {
      form: { queue_id: String(queueA), subject: 'From a form', priority: '7', owner_id: '' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.ticket).toMatchObject({
      queue_id: queueA,
      subject: 'From a form',
      priority: 7,
      owner_id: null,
      team_id: teamA,
    });
    expectError(
      await s.api('POST', '/tickets', { form: { queue_id: String(queueA), subject: 'x', priority: '101' } }),
      422,
      'validation_failed',
      ['priority'],
    );
  });
});

describe('GET /tickets/:id', () => {
  it('returns the ticket, 404 for unknown and non-numeric ids', async () => {
    const t = await create({ queue_id: queueB, subject: 'Findable' });
    const res = await s.api('GET', `/tickets/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(t);
    expectError(await s.api('GET', '/tickets/999999'), 404, 'not_found');
    expectError(await s.api('GET', '/tickets/abc'), 404, 'not_found');
    expectError(await s.api('GET', '/tickets/0'), 404, 'not_found');
    expectError(await s.api('GET', '/tickets/999999/transactions'), 404, 'not_found');
  });
});

describe('PATCH /tickets/:id', () => {
  it('creates exactly one transaction per changed field, with type, field, old and new value', async () => {
    const t = await create({ queue_id: queueA, subject: 'Before', priority: 1 });
    clock.advance(1000);
    const res = await s.api('PATCH', `/tickets/${t.id}`, {
      token: agent1.token,
      body: {
        status: 'open',
        owner_id: agent2.id,
        team_id: teamB,
        queue_id: queueB,
        subject: 'After',
        priority: 42,
        custom_fields: { ticket_ref: 'R-1' },
      },
    });
    expect(res.status, res.text).toBe(200);
    // The default scrips that match: the new owner is told (team B has no members to tell).
    expect(res.body.scrip_results).toEqual([
      {
        scrip_id: expect.any(Number),
        key: 'notify_owner_on_owner_change',
        action: 'notify_owner',
        ok: true,
        notifications: 1,
      },
      {
        scrip_id: expect.any(Number),
        key: 'notify_team_on_team_change',
        action: 'notify_team',
        ok: true,
        notifications: 0,
      },
    ]);
    expect(res.body.ticket).toMatchObject({
      id: t.id,
      status: 'open',
      owner_id: agent2.id,
      team_id: teamB,
      queue_id: queueB,
      subject: 'After',
      priority: 42,
      custom_fields: { ticket_ref: 'R-1' },
      created_at: t.created_at,
      resolved_at: null,
    });
    expect(res.body.ticket.updated_at).toBe(clockIso());
    expect(res.body.ticket.updated_at > t.updated_at).toBe(true);

    const txs = await transactions(t.id);
    expect(txs[0].type).toBe('Create');
    const changes = txs.slice(1).map((x) => ({
      type: x.type,
      field: x.field,
      old_value: x.old_value,
      new_value: x.new_value,
      creator_id: x.creator_id,
    }));
    const byType = (a: { type: string }, b: { type: string }) => a.type.localeCompare(b.type);
    expect(changes.sort(byType)).toEqual(
      [
        { type: 'Status', field: 'status', old_value: 'new', new_value: 'open' },
        { type: 'SetOwner', field: 'owner_id', old_value: null, new_value: String(agent2.id) },
        { type: 'SetTeam', field: 'team_id', old_value: String(teamA), new_value: String(teamB) },
        { type: 'SetQueue', field: 'queue_id', old_value: String(queueA), new_value: String(queueB) },
        { type: 'SetSubject', field: 'subject', old_value: 'Before', new_value: 'After' },
        { type: 'SetPriority', field: 'priority', old_value: '1', new_value: '42' },
        { type: 'CustomField', field: 'ticket_ref', old_value: null, new_value: 'R-1' },
      ]
        .map((c) => ({ ...c, creator_id: agent1.id }))
        .sort(byType),
    );

    expect((await s.api('GET', `/tickets/${t.id}`)).body).toEqual(res.body.ticket);
  });

  it('a PATCH with the same values creates no transaction and leaves updated_at alone', async () => {
    const t = await create({
      queue_id: queueA,
      subject: 'Stable',
      owner_id: agent1.id,
      priority: 3,
      custom_fields: { ticket_ref: 'X' },
    });
    clock.advance(1000);
    const res = await s.api('PATCH', `/tickets/${t.id}`, {
      body: {
        status: 'new',
        owner_id: agent1.id,
        team_id: teamA,
        queue_id: queueA,
        subject: 'Stable',
        priority: 3,
        custom_fields: { ticket_ref: 'X' },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ticket: t, scrip_results: [] });
    const empty = await s.api('PATCH', `/tickets/${t.id}`, { body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ ticket: t, scrip_results: [] });
    expect((await transactions(t.id)).map((x) => x.type)).toEqual(['Create']);
  });

  it('a team change creates a SetTeam transaction, also to and from null', async () => {
    const t = await create({ queue_id: queueA, subject: 'Team moves' });
    expect(t.team_id).toBe(teamA);
    expect((await patch(t.id, { team_id: teamB })).team_id).toBe(teamB);
    expect((await patch(t.id, { team_id: null })).team_id).toBeNull();
    expect((await patch(t.id, { team_id: teamA })).team_id).toBe(teamA);
    const txs = (await transactions(t.id)).slice(1).map((x) => [x.type, x.field, x.old_value, x.new_value]);
    expect(txs).toEqual([
      ['SetTeam', 'team_id', String(teamA), String(teamB)],
      ['SetTeam', 'team_id', String(teamB), null],
      ['SetTeam', 'team_id', null, String(teamA)],
    ]);
    expectError(await s.api('PATCH', `/tickets/${t.id}`, { body: { team_id: 999_999 } }), 422, 'validation_failed', [
      'team_id',
    ]);
  });

  it('unassigning creates a SetOwner to null; invalid owners are 422', async () => {
    const t = await create({ queue_id: queueB, subject: 'Owner moves', owner_id: agent1.id });
    expect((await patch(t.id, { owner_id: null })).owner_id).toBeNull();
    const last = (await transactions(t.id)).at(-1)!;
    expect(last).toMatchObject({ type: 'SetOwner', field: 'owner_id', old_value: String(agent1.id), new_value: null });
    expectError(
      await s.api('PATCH', `/tickets/${t.id}`, { body: { owner_id: requester1.id } }),
      422,
      'validation_failed',
      ['owner_id'],
    );
    expectError(await s.api('PATCH', `/tickets/${t.id}`, { body: { owner_id: 999_999 } }), 422, 'validation_failed', [
      'owner_id',
    ]);
    expectError(await s.api('PATCH', `/tickets/${t.id}`, { body: { queue_id: 999_999 } }), 422, 'validation_failed', [
      'queue_id',
    ]);
    expectError(await s.api('PATCH', `/tickets/${t.id}`, { body: { priority: 101 } }), 422, 'validation_failed', [
      'priority',
    ]);
    expectError(await s.api('PATCH', `/tickets/${t.id}`, { body: { subject: '' } }), 422, 'validation_failed', [
      'subject',
    ]);
    expectError(
      await s.api('PATCH', `/tickets/${t.id}`, { body: { description: 'not updatable' } }),
      422,
      'validation_failed',
      ['description'],
    );
    expect((await transactions(t.id)).length).toBe(2);
  });

  it('re-sending the current owner after they were disabled is not an error; assigning them anew is', async () => {
    const leaver = await s.user('agent');
    const t = await create({ queue_id: queueB, subject: 'Owned by a leaver', owner_id: leaver.id });
    expect((await s.api('PATCH', `/users/${leaver.id}`, { body: { disabled: true } })).status).toBe(200);
    const res = await s.api('PATCH', `/tickets/${t.id}`, { body: { owner_id: leaver.id, status: 'open' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.ticket).toMatchObject({ owner_id: leaver.id, status: 'open' });
    expect((await transactions(t.id)).map((x) => x.type)).toEqual(['Create', 'Status']);
    const other = await create({ queue_id: queueB, subject: 'Not for a leaver' });
    expectError(
      await s.api('PATCH', `/tickets/${other.id}`, { body: { owner_id: leaver.id } }),
      422,
      'validation_failed',
      ['owner_id'],
    );
  });

  it('status: any status moves to any other; resolving sets resolved_at, reopening clears it', async () => {
    const t = await create({ queue_id: queueB, subject: 'Lifecycle' });
    let current = 'new';
    let expectedTx = 1;
    for (const from of STATUSES) {
      for (const to of STATUSES) {
        if (from === to) continue;
        if (current !== from) {
          await patch(t.id, { status: from });
          expectedTx++;
          current = from;
        }
        const after = await patch(t.id, { status: to });
        expectedTx++;
        current = to;
        expect(after.status).toBe(to);
        if (to === 'resolved') expect(after.resolved_at, `${from} -> ${to}`).toMatch(ISO);
        if (['new', 'open', 'stalled'].includes(to)) expect(after.resolved_at, `${from} -> ${to}`).toBeNull();
      }
    }
    const txs = await transactions(t.id);
    expect(txs).toHaveLength(expectedTx);
    expect(txs.slice(1).every((x) => x.type === 'Status' && x.field === 'status')).toBe(true);
  });

  it('resolve then reopen: resolved_at is set, then cleared, with Status transactions', async () => {
    const t = await create({ queue_id: queueB, subject: 'Resolve me', status: 'open' });
    const resolved = await patch(t.id, { status: 'resolved' });
    expect(resolved.resolved_at).toMatch(ISO);
    expect(resolved.resolved_at).toBe(resolved.updated_at);
    const reopened = await patch(t.id, { status: 'open' });
    expect(reopened.resolved_at).toBeNull();
    const txs = (await transactions(t.id)).slice(1).map((x) => [x.type, x.old_value, x.new_value]);
    expect(txs).toEqual([
      ['Status', 'open', 'resolved'],
      ['Status', 'resolved', 'open'],
    ]);
  });

  it('a renamed ticket is found by its new subject only', async () => {
    const t = await create({ queue_id: queueB, subject: 'Quokka widget' });
    const found = async (q: string) =>
      (await s.api('GET', `/tickets?q=${encodeURIComponent(q)}`)).body.tickets.map((x: { id: number }) => x.id);
    expect(await found('quokka')).toEqual([t.id]);
    await patch(t.id, { subject: 'Wombat gadget' });
    expect(await found('wombat')).toEqual([t.id]);
    expect(await found('quokka')).toEqual([]);
    expect(await found('Wo')).toContain(t.id);
  });

  it('an unknown status is 422 and changes nothing', async () => {
    const t = await create({ queue_id: queueB, subject: 'Bad status' });
    expectError(await s.api('PATCH', `/tickets/${t.id}`, { body: { status: 'closed' } }), 422, 'validation_failed', [
      'status',
    ]);
    expectError(await s.api('PATCH', `/tickets/${t.id}`, { body: { status: 'Open' } }), 422, 'validation_failed', [
      'status',
    ]);
    expect((await s.api('GET', `/tickets/${t.id}`)).body.status).toBe('new');
    expect((await transactions(t.id)).length).toBe(1);
  });

  it('unknown tickets are 404', async () => {
    expectError(await s.api('PATCH', '/tickets/999999', { body: { status: 'open' } }), 404, 'not_found');
    expectError(await s.api('PATCH', '/tickets/abc', { body: { status: 'open' } }), 404, 'not_found');
  });

  it('accepts a form body', async () => {
    const t = await create({ queue_id: queueA, subject: 'Form patch', owner_id: agent1.id });
    const res = await s.api('PATCH', `/tickets/${t.id}`, { form: { status: 'stalled', priority: '9', owner_id: '' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.ticket).toMatchObject({ status: 'stalled', priority: 9, owner_id: null });
    expect((await transactions(t.id)).map((x) => x.type).sort()).toEqual([
      'Create',
      'SetOwner',
      'SetPriority',
      'Status',
    ]);
  });
});

describe('POST /tickets/:id/comment', () => {
  let ticketId: number;
  beforeAll(async () => {
    ticketId = (await create({ queue_id: queueA, subject: 'Discussion', requester_id: requester1.id })).id;
  });

  it('internal omitted → Comment; response 201 { transaction, scrip_results }', async () => {
    const before = (await s.api('GET', `/tickets/${ticketId}`)).body;
    clock.advance(1000);
    const res = await s.api('POST', `/tickets/${ticketId}/comment`, {
      token: agent1.token,
      body: { body: 'Internal note' },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['scrip_results', 'transaction']);
    // SPEC C2: a note goes to the owner and AdminCc only; the author is never told of their own note.
    expect(res.body.scrip_results).toEqual([
      expect.objectContaining({ key: 'notify_staff_on_comment', action: 'notify_owner_and_admin_cc', ok: true }),
    ]);
    expect(Object.keys(res.body.transaction).sort()).toEqual(TRANSACTION_KEYS);
    expect(res.body.transaction).toMatchObject({
      ticket_id: ticketId,
      type: 'Comment',
      body: 'Internal note',
      creator_id: agent1.id,
      field: null,
      old_value: null,
      new_value: null,
    });
    expect(res.body.transaction.created_at).toBe(clockIso());
    const after = (await s.api('GET', `/tickets/${ticketId}`)).body;
    expect(after.updated_at).toBe(clockIso());
    expect(after.updated_at > before.updated_at).toBe(true);
  });

  it('internal:false → Correspond, internal:true → Comment', async () => {
    const pub = await s.api('POST', `/tickets/${ticketId}/comment`, {
      body: { body: 'Public reply', internal: false },
    });
    expect(pub.status, pub.text).toBe(201);
    expect(pub.body.transaction).toMatchObject({ type: 'Correspond', body: 'Public reply', creator_id: adminId });
    const note = await s.api('POST', `/tickets/${ticketId}/comment`, {
      body: { body: 'Another note', internal: true },
    });
    expect(note.status).toBe(201);
    expect(note.body.transaction.type).toBe('Comment');
  });

  it('form bodies: internal=false → Correspond, internal omitted → Comment', async () => {
    const pub = await s.api('POST', `/tickets/${ticketId}/comment`, {
      form: { body: 'Form reply', internal: 'false' },
    });
    expect(pub.status, pub.text).toBe(201);
    expect(pub.body.transaction).toMatchObject({ type: 'Correspond', body: 'Form reply' });
    const note = await s.api('POST', `/tickets/${ticketId}/comment`, { form: { body: 'Form note' } });
    expect(note.status).toBe(201);
    expect(note.body.transaction.type).toBe('Comment');
    expectError(
      await s.api('POST', `/tickets/${ticketId}/comment`, { form: { body: 'x', internal: 'maybe' } }),
      422,
      'validation_failed',
      ['internal'],
    );
  });

  it('an empty or missing body is 422 path body', async () => {
    const count = (await transactions(ticketId)).length;
    expectError(await s.api('POST', `/tickets/${ticketId}/comment`, { body: { body: '' } }), 422, 'validation_failed', [
      'body',
    ]);
    expectError(
      await s.api('POST', `/tickets/${ticketId}/comment`, { body: { body: '   \n ' } }),
      422,
      'validation_failed',
      ['body'],
    );
    expectError(
      await s.api('POST', `/tickets/${ticketId}/comment`, { body: { internal: false } }),
      422,
      'validation_failed',
      ['body'],
    );
    expectError(await s.api('POST', `/tickets/${ticketId}/comment`, { form: { body: '' } }), 422, 'validation_failed', [
      'body',
    ]);
    expect((await transactions(ticketId)).length).toBe(count);
  });

  it('creator_id: defaults to the caller; agents may not set another user; admins may; unknown is 422', async () => {
    const self = await s.api('POST', `/tickets/${ticketId}/comment`, {
      token: agent1.token,
      body: { body: 'As myself', creator_id: agent1.id },
    });
    expect(self.status, self.text).toBe(201);
    expect(self.body.transaction.creator_id).toBe(agent1.id);

    expectError(
      await s.api('POST', `/tickets/${ticketId}/comment`, {
        token: agent1.token,
        body: { body: 'Impersonate', creator_id: agent2.id },
      }),
      403,
      'forbidden',
    );

    const onBehalf = await s.api('POST', `/tickets/${ticketId}/comment`, {
      body: { body: 'Phoned in', internal: false, creator_id: requester1.id },
    });
    expect(onBehalf.status, onBehalf.text).toBe(201);
    expect(onBehalf.body.transaction).toMatchObject({ type: 'Correspond', creator_id: requester1.id });

    expectError(
      await s.api('POST', `/tickets/${ticketId}/comment`, { body: { body: 'Ghost', creator_id: 999_999 } }),
      422,
      'validation_failed',
      ['creator_id'],
    );
    expectError(
      await s.api('POST', `/tickets/${ticketId}/comment`, { body: { body: 'Bad', creator_id: 'abc' } }),
      422,
      'validation_failed',
      ['creator_id'],
    );
  });

  it('commenting on an unknown ticket is 404', async () => {
    expectError(await s.api('POST', '/tickets/999999/comment', { body: { body: 'Hello' } }), 404, 'not_found');
    expectError(await s.api('POST', '/tickets/abc/comment', { body: { body: 'Hello' } }), 404, 'not_found');
  });
});

describe('GET /tickets/:id/transactions', () => {
  it('returns the history in order', async () => {
    const t = await create({ queue_id: queueA, subject: 'History', description: 'Start' });
    await patch(t.id, { status: 'open' });
    await s.api('POST', `/tickets/${t.id}/comment`, { body: { body: 'note' } });
    await s.api('POST', `/tickets/${t.id}/comment`, { body: { body: 'reply', internal: false } });
    await patch(t.id, { owner_id: agent1.id });
    await patch(t.id, { status: 'resolved' });
    const txs = await transactions(t.id);
    expect(txs.map((x) => [x.type, x.body])).toEqual([
      ['Create', 'Start'],
      ['Status', null],
      ['Comment', 'note'],
      ['Correspond', 'reply'],
      ['SetOwner', null],
      ['Status', null],
    ]);
    const ids = txs.map((x) => x.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(txs.every((x) => x.ticket_id === t.id)).toBe(true);
  });
});

describe('requester role', () => {
  let own: number; // requester1 created it
  let assigned: number; // admin created it for requester1
  let others: number; // requester2's
  let staffOnly: number; // admin's own

  beforeAll(async () => {
    const res = await s.api('POST', '/tickets', {
      token: requester1.token,
      body: { queue_id: queueA, subject: 'My problem', description: 'Help me' },
    });
    expect(res.status, res.text).toBe(201);
    own = res.body.ticket.id;
    // Their own answer has no staff fields (decision 050); the ticket itself got the queue's team.
    expect(res.body.ticket).toMatchObject({ requester_id: requester1.id, status: 'new' });
    expect(res.body.ticket).not.toHaveProperty('owner_id');
    expect(res.body).not.toHaveProperty('scrip_results');
    expect((await s.api('GET', `/tickets/${res.body.ticket.id}`)).body).toMatchObject({
      owner_id: null,
      team_id: teamA,
    });
    assigned = (await create({ queue_id: queueB, subject: 'Filed for r1', requester_id: requester1.id })).id;
    others = (await create({ queue_id: queueB, subject: 'Filed for r2', requester_id: requester2.id })).id;
    staffOnly = (await create({ queue_id: queueB, subject: 'Staff only' })).id;
  });

  it('lists only tickets where they are the requester', async () => {
    const res = await s.api('GET', '/tickets?sort=id', { token: requester1.token });
    expect(res.status).toBe(200);
    const ids = res.body.tickets.map((t: { id: number }) => t.id);
    expect(res.body.tickets.every((t: { requester_id: number }) => t.requester_id === requester1.id)).toBe(true);
    expect(ids).toContain(own);
    expect(ids).toContain(assigned);
    expect(ids).not.toContain(others);
    expect(ids).not.toContain(staffOnly);
    expect(res.body.total).toBe(ids.length);
    // filters cannot widen what a requester sees
    const widened = await s.api('GET', `/tickets?requester_id=${requester2.id}`, { token: requester1.token });
    expect(widened.status).toBe(200);
    expect(widened.body).toMatchObject({ tickets: [], total: 0 });
    const r2 = await s.api('GET', '/tickets', { token: requester2.token });
    expect(r2.body.tickets.map((t: { id: number }) => t.id)).toEqual([others]);
  });

  it("GET of someone else's ticket is 404, own is 200", async () => {
    expect((await s.api('GET', `/tickets/${own}`, { token: requester1.token })).status).toBe(200);
    expect((await s.api('GET', `/tickets/${assigned}`, { token: requester1.token })).status).toBe(200);
    expectError(await s.api('GET', `/tickets/${others}`, { token: requester1.token }), 404, 'not_found');
    expectError(await s.api('GET', `/tickets/${staffOnly}`, { token: requester1.token }), 404, 'not_found');
    expectError(await s.api('GET', `/tickets/${others}/transactions`, { token: requester1.token }), 404, 'not_found');
    expectError(
      await s.api('POST', `/tickets/${others}/comment`, { token: requester1.token, body: { body: 'hi' } }),
      404,
      'not_found',
    );
  });

  it('cannot PATCH (403 on own, 404 on others)', async () => {
    expectError(
      await s.api('PATCH', `/tickets/${own}`, { token: requester1.token, body: { subject: 'Mine now' } }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('PATCH', `/tickets/${own}`, { token: requester1.token, body: { status: 'resolved' } }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('PATCH', `/tickets/${others}`, { token: requester1.token, body: { subject: 'x' } }),
      404,
      'not_found',
    );
    expect((await s.api('GET', `/tickets/${own}`)).body.subject).toBe('My problem');
  });

  it('cannot set staff fields on create', async () => {
    expectError(
      await s.api('POST', '/tickets', {
        token: requester1.token,
        body: { queue_id: queueA, subject: 'x', owner_id: agent1.id },
      }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('POST', '/tickets', {
        token: requester1.token,
        body: { queue_id: queueA, subject: 'x', requester_id: requester2.id },
      }),
      403,
      'forbidden',
    );
  });

  it('does not see internal Comment transactions', async () => {
    await s.api('POST', `/tickets/${own}/comment`, { body: { body: 'Staff-only remark' } });
    await s.api('POST', `/tickets/${own}/comment`, { body: { body: 'Dear customer', internal: false } });
    const staffView = await transactions(own);
    // The staff reply took the new ticket up: new → open (SPEC D6), an entry by nobody.
    expect(staffView.map((x) => x.type)).toEqual(['Create', 'Comment', 'Correspond', 'Status']);
    const mine = await transactions(own, requester1.token);
    expect(mine.map((x) => [x.type, x.body])).toEqual([
      ['Create', 'Help me'],
      ['Correspond', 'Dear customer'],
    ]);
  });

  it('their comment is a Correspond; internal:true is 403; creator_id of another user is 403', async () => {
    const res = await s.api('POST', `/tickets/${own}/comment`, {
      token: requester1.token,
      body: { body: 'Any news?' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.transaction).toMatchObject({ type: 'Correspond', creator_id: requester1.id, body: 'Any news?' });
    const explicit = await s.api('POST', `/tickets/${own}/comment`, {
      token: requester1.token,
      body: { body: 'Still broken', internal: false },
    });
    expect(explicit.status).toBe(201);
    expect(explicit.body.transaction.type).toBe('Correspond');
    expectError(
      await s.api('POST', `/tickets/${own}/comment`, {
        token: requester1.token,
        body: { body: 'Sneaky', internal: true },
      }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('POST', `/tickets/${own}/comment`, {
        token: requester1.token,
        body: { body: 'As agent', creator_id: agent1.id },
      }),
      403,
      'forbidden',
    );
    const types = (await transactions(own)).map((x) => x.type);
    expect(types).toEqual(['Create', 'Comment', 'Correspond', 'Status', 'Correspond', 'Correspond']);
  });
});

describe('unauthenticated', () => {
  it('every ticket route is 401', async () => {
    const t = await create({ queue_id: queueB, subject: 'Private' });
    const calls: [string, string, unknown?][] = [
      ['GET', '/tickets'],
      ['POST', '/tickets', { queue_id: queueB, subject: 'x' }],
      ['GET', `/tickets/${t.id}`],
      ['PATCH', `/tickets/${t.id}`, { status: 'open' }],
      ['GET', `/tickets/${t.id}/transactions`],
      ['POST', `/tickets/${t.id}/comment`, { body: 'hi' }],
    ];
    for (const [method, path, body] of calls) {
      expectError(await s.api(method, path, { token: null, body }), 401, 'unauthenticated');
      expectError(await s.api(method, path, { token: 'not-a-real-token', body }), 401, 'unauthenticated');
    }
    expect((await s.api('GET', `/tickets/${t.id}`)).body.status).toBe('new');
    expect((await transactions(t.id)).length).toBe(1);
  });
});
