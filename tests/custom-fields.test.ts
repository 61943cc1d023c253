import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/expect.js';
import { transactionsOf } from './helpers/reads.js';

// Custom fields over real HTTP: definitions (admin CRUD) and ticket values (SPEC B3).

let s: TestServer;
let agent: { id: number; token: string };
let requester: { id: number; token: string };
let queue1: number;
let queue2: number;

const FIELD_KEYS = [
  'created_at',
  'id',
  'key',
  'name',
  'options',
  'pattern',
  'queue_ids',
  'required',
  'type',
  'updated_at',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function createField(body: Record<string, unknown>) {
  const res = await s.api('POST', '/custom-fields', { body });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  requester = await s.user('requester');
  queue1 = (await s.api('POST', '/queues', { body: { name: 'Queue One' } })).body.id;
  queue2 = (await s.api('POST', '/queues', { body: { name: 'Queue Two' } })).body.id;
});
afterAll(async () => {
  await s?.close();
});

describe('custom field definitions', () => {
  it('POST → 201 with the full shape and defaults', async () => {
    const res = await s.api('POST', '/custom-fields', { body: { key: 'account', name: 'Account', type: 'text' } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(FIELD_KEYS);
    expect(res.body).toMatchObject({
      key: 'account',
      name: 'Account',
      type: 'text',
      options: [],
      pattern: null,
      required: false,
      queue_ids: [],
    });
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);

    const full = await createField({
      key: 'severity_2',
      name: 'Severity',
      type: 'select',
      options: ['low', 'high'],
      pattern: '^[a-z]+$',
      required: true,
      queue_ids: [queue2, queue1],
    });
    expect(full).toMatchObject({
      key: 'severity_2',
      name: 'Severity',
      type: 'select',
      options: ['low', 'high'],
      pattern: '^[a-z]+$',
      required: true,
      queue_ids: [queue1, queue2].sort((a, b) => a - b),
    });
    const got = await s.api('GET', `/custom-fields/${full.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(full);
    const list = await s.api('GET', '/custom-fields');
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(['custom_fields']);
    expect(list.body.custom_fields.map((f: { key: string }) => f.key).sort()).toEqual(['account', 'severity_2']);
    expect((await s.api('DELETE', `/custom-fields/${full.id}`)).status).toBe(204);
    expect((await s.api('DELETE', `/custom-fields/${res.body.id}`)).status).toBe(204);
  });

  it('accepts a form body (options comma-separated, required checkbox)', async () => {
    const res = await s.api('POST', '/custom-fields', {
      form: { key: 'colour', name: 'Colour', type: 'select', options: 'red, green', required: 'on' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ key: 'colour', options: ['red', 'green'], required: true });
    expect((await s.api('DELETE', `/custom-fields/${res.body.id}`)).status).toBe(204);
  });

  it('key must match ^[a-z][a-z0-9_]*$', async () => {
    for (const key of ['Account', '1abc', '_abc', 'a-b', 'a b', 'ünit', 'a.b']) {
      expectError(
        await s.api('POST', '/custom-fields', { body: { key, name: 'X', type: 'text' } }),
        422,
        'validation_failed',
        ['key'],
      );
    }
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: '', name: 'X', type: 'text' } }),
      422,
      'validation_failed',
      ['key'],
    );
    const ok = await createField({ key: 'a1_b2', name: 'Fine', type: 'text' });
    expect(ok.key).toBe('a1_b2');
    expect((await s.api('DELETE', `/custom-fields/${ok.id}`)).status).toBe(204);
  });

  it('name and type are required; type must be known', async () => {
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'k1', type: 'text' } }),
      422,
      'validation_failed',
      ['name'],
    );
    expectError(await s.api('POST', '/custom-fields', { body: { key: 'k1', name: 'K' } }), 422, 'validation_failed', [
      'type',
    ]);
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'k1', name: 'K', type: 'boolean' } }),
      422,
      'validation_failed',
      ['type'],
    );
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'k1', name: 'K', type: 'text', colour: 'red' } }),
      422,
      'validation_failed',
      ['colour'],
    );
  });

  it('a duplicate key is 409', async () => {
    const f = await createField({ key: 'dup', name: 'Dup', type: 'text' });
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'dup', name: 'Other', type: 'number' } }),
      409,
      'conflict',
    );
    const other = await createField({ key: 'dup2', name: 'Dup 2', type: 'text' });
    expectError(await s.api('PATCH', `/custom-fields/${other.id}`, { body: { key: 'dup' } }), 409, 'conflict');
    expect((await s.api('GET', `/custom-fields/${other.id}`)).body.key).toBe('dup2');
    for (const id of [f.id, other.id]) expect((await s.api('DELETE', `/custom-fields/${id}`)).status).toBe(204);
  });

  it('select needs options', async () => {
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'sel', name: 'Sel', type: 'select' } }),
      422,
      'validation_failed',
      ['options'],
    );
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'sel', name: 'Sel', type: 'select', options: [] } }),
      422,
      'validation_failed',
      ['options'],
    );
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'sel', name: 'Sel', type: 'select', options: ['a', 'a'] } }),
      422,
      'validation_failed',
      ['options'],
    );
  });

  it('an invalid regular expression pattern is 422 path pattern', async () => {
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'pat', name: 'Pat', type: 'text', pattern: '([a-z' } }),
      422,
      'validation_failed',
      ['pattern'],
    );
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'pat', name: 'Pat', type: 'text', pattern: '*abc' } }),
      422,
      'validation_failed',
      ['pattern'],
    );
  });

  it('an unknown queue in queue_ids is 422', async () => {
    expectError(
      await s.api('POST', '/custom-fields', {
        body: { key: 'qq', name: 'Q', type: 'text', queue_ids: [queue1, 999_999] },
      }),
      422,
      'validation_failed',
      ['queue_ids.1'],
    );
    expectError(
      await s.api('POST', '/custom-fields', { body: { key: 'qq', name: 'Q', type: 'text', queue_ids: ['abc'] } }),
      422,
      'validation_failed',
      ['queue_ids.0'],
    );
    expect((await s.api('GET', '/custom-fields')).body.custom_fields.map((f: { key: string }) => f.key)).not.toContain(
      'qq',
    );
  });

  it('agents: 403 on writes, 200 on reads; requesters: 403 on reads', async () => {
    const f = await createField({ key: 'roles', name: 'Roles', type: 'text' });
    expectError(
      await s.api('POST', '/custom-fields', { token: agent.token, body: { key: 'by_agent', name: 'X', type: 'text' } }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('PATCH', `/custom-fields/${f.id}`, { token: agent.token, body: { name: 'Hacked' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('DELETE', `/custom-fields/${f.id}`, { token: agent.token }), 403, 'forbidden');
    const list = await s.api('GET', '/custom-fields', { token: agent.token });
    expect(list.status).toBe(200);
    expect(list.body.custom_fields.map((x: { key: string }) => x.key)).toContain('roles');
    const one = await s.api('GET', `/custom-fields/${f.id}`, { token: agent.token });
    expect(one.status).toBe(200);
    expect(one.body.name).toBe('Roles');
    expectError(await s.api('GET', '/custom-fields', { token: requester.token }), 403, 'forbidden');
    expectError(
      await s.api('POST', '/custom-fields', {
        token: requester.token,
        body: { key: 'by_req', name: 'X', type: 'text' },
      }),
      403,
      'forbidden',
    );
    expectError(await s.api('GET', '/custom-fields', { token: null }), 401, 'unauthenticated');
    expect((await s.api('DELETE', `/custom-fields/${f.id}`)).status).toBe(204);
  });

  it('GET /custom-fields?queue_id= returns the fields that apply to that queue', async () => {
    const global = await createField({ key: 'everywhere', name: 'Everywhere', type: 'text' });
    const only1 = await createField({ key: 'only_one', name: 'Only one', type: 'text', queue_ids: [queue1] });
    const only2 = await createField({ key: 'only_two', name: 'Only two', type: 'text', queue_ids: [queue2] });
    const both = await createField({ key: 'both', name: 'Both', type: 'text', queue_ids: [queue1, queue2] });
    const keys = async (qs: string) => {
      const res = await s.api('GET', `/custom-fields${qs}`);
      expect(res.status, res.text).toBe(200);
      return res.body.custom_fields.map((f: { key: string }) => f.key).sort();
    };
    expect(await keys(`?queue_id=${queue1}`)).toEqual(['both', 'everywhere', 'only_one']);
    expect(await keys(`?queue_id=${queue2}`)).toEqual(['both', 'everywhere', 'only_two']);
    expect(await keys('?queue_id=1')).toEqual(['everywhere']);
    expect(await keys('')).toEqual(['both', 'everywhere', 'only_one', 'only_two']);
    expectError(await s.api('GET', '/custom-fields?queue_id=abc'), 422, 'validation_failed', ['queue_id']);
    expectError(await s.api('GET', '/custom-fields?colour=red'), 422, 'validation_failed', ['colour']);
    for (const f of [global, only1, only2, both])
      expect((await s.api('DELETE', `/custom-fields/${f.id}`)).status).toBe(204);
  });

  it('PATCH updates the given attributes and validates the result', async () => {
    const f = await createField({ key: 'editable', name: 'Editable', type: 'text', queue_ids: [queue1] });
    const res = await s.api('PATCH', `/custom-fields/${f.id}`, {
      body: { name: 'Edited', required: true, pattern: '^\\d+$' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: f.id,
      key: 'editable',
      name: 'Edited',
      type: 'text',
      required: true,
      pattern: '^\\d+$',
      queue_ids: [queue1],
    });
    expect(res.body.created_at).toBe(f.created_at);

    const moved = await s.api('PATCH', `/custom-fields/${f.id}`, {
      body: { queue_ids: [queue2], pattern: null, required: false },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ queue_ids: [queue2], pattern: null, required: false });
    const global = await s.api('PATCH', `/custom-fields/${f.id}`, { body: { queue_ids: [] } });
    expect(global.body.queue_ids).toEqual([]);

    expectError(
      await s.api('PATCH', `/custom-fields/${f.id}`, { body: { type: 'select' } }),
      422,
      'validation_failed',
      ['options'],
    );
    expectError(
      await s.api('PATCH', `/custom-fields/${f.id}`, { body: { key: 'Bad Key' } }),
      422,
      'validation_failed',
      ['key'],
    );
    expectError(await s.api('PATCH', `/custom-fields/${f.id}`, { body: { pattern: '(' } }), 422, 'validation_failed', [
      'pattern',
    ]);
    expectError(
      await s.api('PATCH', `/custom-fields/${f.id}`, { body: { queue_ids: [999_999] } }),
      422,
      'validation_failed',
      ['queue_ids.0'],
    );
    const renamed = await s.api('PATCH', `/custom-fields/${f.id}`, { body: { key: 'renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.key).toBe('renamed');
    expect((await s.api('GET', `/custom-fields/${f.id}`)).body).toEqual(renamed.body);
    expect((await s.api('DELETE', `/custom-fields/${f.id}`)).status).toBe(204);
  });

  it('DELETE → 204 with an empty body; unknown ids are 404', async () => {
    const f = await createField({ key: 'doomed', name: 'Doomed', type: 'text' });
    const del = await s.api('DELETE', `/custom-fields/${f.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectError(await s.api('GET', `/custom-fields/${f.id}`), 404, 'not_found');
    expectError(await s.api('DELETE', `/custom-fields/${f.id}`), 404, 'not_found');
    expectError(await s.api('PATCH', `/custom-fields/${f.id}`, { body: { name: 'X' } }), 404, 'not_found');
    expectError(await s.api('GET', '/custom-fields/abc'), 404, 'not_found');
    expectError(await s.api('PATCH', '/custom-fields/abc', { body: { name: 'X' } }), 404, 'not_found');
    expectError(await s.api('DELETE', '/custom-fields/abc'), 404, 'not_found');
  });
});

describe('custom field values on tickets', () => {
  // queue1: account (required, queue1 only), q2_only (queue2 only); everywhere: hours, due, severity, code.
  beforeAll(async () => {
    await createField({ key: 'account', name: 'Account', type: 'text', required: true, queue_ids: [queue1] });
    await createField({ key: 'q2_only', name: 'Queue two only', type: 'text', queue_ids: [queue2] });
    await createField({ key: 'hours', name: 'Hours', type: 'number' });
    await createField({ key: 'due', name: 'Due date', type: 'date' });
    await createField({ key: 'severity', name: 'Severity', type: 'select', options: ['low', 'high'] });
    await createField({ key: 'code', name: 'Code', type: 'text', pattern: '^[A-Z]{3}-\\d+$' });
  });

  const post = (custom_fields: Record<string, unknown> | undefined, queue_id = queue1) =>
    s.api('POST', '/tickets', {
      body: { queue_id, subject: 'CF ticket', ...(custom_fields ? { custom_fields } : {}) },
    });

  it('a required field missing on create is 422 custom_fields.<key>', async () => {
    expectError(await post(undefined), 422, 'validation_failed', ['custom_fields.account']);
    expectError(await post({ hours: 1 }), 422, 'validation_failed', ['custom_fields.account']);
    expectError(await post({ account: '' }), 422, 'validation_failed', ['custom_fields.account']);
    expectError(await post({ account: null }), 422, 'validation_failed', ['custom_fields.account']);
    expectError(await post({ account: '   ' }), 422, 'validation_failed', ['custom_fields.account']);
    // not required where it does not apply
    const other = await post(undefined, queue2);
    expect(other.status, other.text).toBe(201);
    expect(other.body.ticket.custom_fields).toEqual({});
  });

  it('values failing type, options or pattern are 422 naming the field', async () => {
    expectError(await post({ account: 'A', hours: 'abc' }), 422, 'validation_failed', ['custom_fields.hours']);
    expectError(await post({ account: 'A', hours: 'Infinity' }), 422, 'validation_failed', ['custom_fields.hours']);
    expectError(await post({ account: 'A', due: '2024-02-30' }), 422, 'validation_failed', ['custom_fields.due']);
    expectError(await post({ account: 'A', due: '2023-02-29' }), 422, 'validation_failed', ['custom_fields.due']);
    expectError(await post({ account: 'A', due: '2024-2-3' }), 422, 'validation_failed', ['custom_fields.due']);
    expectError(await post({ account: 'A', due: 'tomorrow' }), 422, 'validation_failed', ['custom_fields.due']);
    expectError(await post({ account: 'A', severity: 'medium' }), 422, 'validation_failed', ['custom_fields.severity']);
    expectError(await post({ account: 'A', severity: 'HIGH' }), 422, 'validation_failed', ['custom_fields.severity']);
    expectError(await post({ account: 'A', code: 'abc-1' }), 422, 'validation_failed', ['custom_fields.code']);
    expectError(await post({ account: 'A', code: 'ABC-12x' }), 422, 'validation_failed', ['custom_fields.code']);
    expectError(await post({ account: 'A', code: ['ABC-1'] }), 422, 'validation_failed', ['custom_fields.code']);
    expectError(await post({ account: { nested: true } }), 422, 'validation_failed', ['custom_fields.account']);
  });

  it('an unknown key, or a field limited to another queue, is 422', async () => {
    expectError(await post({ account: 'A', nope: 'x' }), 422, 'validation_failed', ['custom_fields.nope']);
    expectError(await post({ account: 'A', q2_only: 'x' }), 422, 'validation_failed', ['custom_fields.q2_only']);
    expectError(
      await s.api('POST', '/tickets', { body: { queue_id: queue1, subject: 'x', custom_fields: 'not an object' } }),
      422,
      'validation_failed',
      ['custom_fields'],
    );
    const ok = await post({ q2_only: 'fine here' }, queue2);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.ticket.custom_fields).toEqual({ q2_only: 'fine here' });
  });

  it('valid values come back typed in ticket.custom_fields', async () => {
    const res = await post({ account: ' ACME ', hours: '7.50', due: '2024-02-29', severity: 'high', code: 'ABC-12' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.ticket.custom_fields).toEqual({
      account: 'ACME',
      hours: 7.5,
      due: '2024-02-29',
      severity: 'high',
      code: 'ABC-12',
    });
    const got = await s.api('GET', `/tickets/${res.body.ticket.id}`);
    expect(got.body).toEqual(res.body.ticket); // the create's answer is the ticket as stored, description included
    expect(Object.keys(got.body.custom_fields)).toEqual(Object.keys(res.body.ticket.custom_fields)); // and in the same order
    const listed = await s.api('GET', `/tickets?queue_id=${queue1}`);
    expect(listed.body.tickets.find((t: { id: number }) => t.id === res.body.ticket.id).custom_fields).toEqual(
      res.body.ticket.custom_fields,
    );

    const numeric = await post({ account: 'B', hours: 3 });
    expect(numeric.status).toBe(201);
    expect(numeric.body.ticket.custom_fields).toEqual({ account: 'B', hours: 3 });
  });

  it('values sent through a form body are checked the same way', async () => {
    const bad = await s.api('POST', '/tickets', {
      form: {
        queue_id: String(queue1),
        subject: 'Form CF',
        'custom_fields.account': 'Z',
        'custom_fields.hours': 'abc',
      },
    });
    expectError(bad, 422, 'validation_failed', ['custom_fields.hours']);
    const res = await s.api('POST', '/tickets', {
      form: { queue_id: String(queue1), subject: 'Form CF', 'custom_fields.account': 'Z', 'custom_fields.hours': '2' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.ticket.custom_fields).toEqual({ account: 'Z', hours: 2 });
  });

  it('PATCH changing a value creates a CustomField transaction with old and new', async () => {
    const created = await post({ account: 'ACME', hours: 7.5 });
    expect(created.status).toBe(201);
    const id = created.body.ticket.id;

    const same = await s.api('PATCH', `/tickets/${id}`, {
      body: { custom_fields: { hours: '7.50', account: 'ACME' } },
    });
    expect(same.status, same.text).toBe(200);
    expect((await transactionsOf(s, id)).map((x) => x.type)).toEqual(['Create']);

    const res = await s.api('PATCH', `/tickets/${id}`, { body: { custom_fields: { hours: 8, severity: 'low' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.ticket.custom_fields).toEqual({ account: 'ACME', hours: 8, severity: 'low' });
    const changes = (await transactionsOf(s, id)).slice(1).map((x) => [x.type, x.field, x.old_value, x.new_value]);
    expect(changes.sort()).toEqual([
      ['CustomField', 'hours', '7.5', '8'],
      ['CustomField', 'severity', null, 'low'],
    ]);

    const cleared = await s.api('PATCH', `/tickets/${id}`, { body: { custom_fields: { severity: null } } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.ticket.custom_fields).toEqual({ account: 'ACME', hours: 8 });
    expect((await transactionsOf(s, id)).at(-1)).toMatchObject({
      type: 'CustomField',
      field: 'severity',
      old_value: 'low',
      new_value: null,
    });

    expectError(
      await s.api('PATCH', `/tickets/${id}`, { body: { custom_fields: { account: '' } } }),
      422,
      'validation_failed',
      ['custom_fields.account'],
    );
    expectError(
      await s.api('PATCH', `/tickets/${id}`, { body: { custom_fields: { hours: 'lots' } } }),
      422,
      'validation_failed',
      ['custom_fields.hours'],
    );
    expectError(
      await s.api('PATCH', `/tickets/${id}`, { body: { custom_fields: { q2_only: 'x' } } }),
      422,
      'validation_failed',
      ['custom_fields.q2_only'],
    );
    expectError(
      await s.api('PATCH', `/tickets/${id}`, { body: { custom_fields: { nope: 'x' } } }),
      422,
      'validation_failed',
      ['custom_fields.nope'],
    );
    expect((await transactionsOf(s, id)).length).toBe(4);
    expect((await s.api('GET', `/tickets/${id}`)).body.custom_fields).toEqual({ account: 'ACME', hours: 8 });
  });

  it('deleting a field removes its values from tickets', async () => {
    const f = await createField({ key: 'temporary', name: 'Temporary', type: 'text' });
    const t = await post({ account: 'A', temporary: 'soon gone' });
    expect(t.body.ticket.custom_fields).toEqual({ account: 'A', temporary: 'soon gone' });
    expect((await s.api('DELETE', `/custom-fields/${f.id}`)).status).toBe(204);
    expect((await s.api('GET', `/tickets/${t.body.ticket.id}`)).body.custom_fields).toEqual({ account: 'A' });
  });
});
