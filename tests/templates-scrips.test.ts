import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/expect.js';
import { uniq } from './helpers/unique.js';

// Templates and scrips over real HTTP (SPEC B2 admin-only, B3 template/scrip, B5 errors, B6).

let s: TestServer;
let agent: { id: number; token: string };
let queueId: number;
let generalId: number;
let correspondenceId: number;

const TEMPLATE_KEYS = ['body', 'created_at', 'description', 'id', 'name', 'queue_id', 'subject', 'updated_at'];
const SCRIP_KEYS = [
  'action',
  'condition',
  'config',
  'created_at',
  'description',
  'enabled',
  'id',
  'key',
  'queue_id',
  'sort_order',
  'template_id',
  'updated_at',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Asserts a SPEC B5 error: status, code, and (when given) exactly these detail paths. */

async function createTemplate(body: Record<string, unknown>) {
  const res = await s.api('POST', '/templates', { body: { name: uniq('tpl'), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}

async function createScrip(body: Record<string, unknown>) {
  const res = await s.api('POST', '/scrips', { body: { key: uniq('scrip_'), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  const q = await s.api('POST', '/queues', { body: { name: 'Hardware' } });
  expect(q.status, q.text).toBe(201);
  queueId = q.body.id;
  const queues = await s.api('GET', '/queues');
  generalId = queues.body.queues.find((x: { name: string }) => x.name === 'General').id;
  const cf = await s.api('POST', '/custom-fields', { body: { key: 'asset_tag', name: 'Asset tag', type: 'text' } });
  expect(cf.status, cf.text).toBe(201);
  const list = await s.api('GET', '/templates');
  correspondenceId = list.body.templates.find((t: { name: string }) => t.name === 'Correspondence').id;
});
afterAll(async () => {
  await s?.close();
});

describe('admin only (SPEC B2)', () => {
  it('answers 403 forbidden to an agent on every template and scrip route, GET included', async () => {
    const tpl = await createTemplate({ subject: 'x', body: 'y' });
    const scrip = await createScrip({ condition: 'on_create', action: 'open_inactive' });
    const calls: [string, string, unknown?][] = [
      ['GET', '/templates'],
      ['POST', '/templates', { name: 'agent template', subject: 's', body: 'b' }],
      ['POST', '/templates/preview', { subject: 's', body: 'b' }],
      ['GET', `/templates/${tpl.id}`],
      ['PATCH', `/templates/${tpl.id}`, { description: 'by agent' }],
      ['DELETE', `/templates/${tpl.id}`],
      ['GET', `/templates/999999`],
      ['GET', '/scrips'],
      ['POST', '/scrips', { key: 'agent_scrip', condition: 'on_create', action: 'open_inactive' }],
      ['GET', `/scrips/${scrip.id}`],
      ['PATCH', `/scrips/${scrip.id}`, { enabled: false }],
      ['DELETE', `/scrips/${scrip.id}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await s.api(method, path, { token: agent.token, body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    // Nothing the agent tried took effect.
    expect((await s.api('GET', `/templates/${tpl.id}`)).body.description).toBe('');
    expect((await s.api('GET', `/scrips/${scrip.id}`)).body.enabled).toBe(true);
    const names = (await s.api('GET', '/templates')).body.templates.map((t: { name: string }) => t.name);
    expect(names).not.toContain('agent template');
    const keys = (await s.api('GET', '/scrips')).body.scrips.map((x: { key: string }) => x.key);
    expect(keys).not.toContain('agent_scrip');
  });

  it('answers 401 without credentials', async () => {
    expectError(await s.api('GET', '/templates', { token: null }), 401, 'unauthenticated');
    expectError(await s.api('GET', '/scrips', { token: null }), 401, 'unauthenticated');
  });
});

describe('templates', () => {
  it('GET /templates lists the seeded defaults', async () => {
    const res = await s.api('GET', '/templates');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['templates']);
    const names = res.body.templates.map((t: { name: string }) => t.name);
    for (const n of ['Autoreply', 'Correspondence', 'Owner notice', 'Team notice', 'Resolved'])
      expect(names).toContain(n);
    for (const t of res.body.templates) {
      expect(Object.keys(t).sort()).toEqual(TEMPLATE_KEYS);
      expect(t.subject.length).toBeGreaterThan(0);
      expect(t.body.length).toBeGreaterThan(0);
    }
  });

  it('POST creates a template: 201 with the stored shape', async () => {
    const res = await s.api('POST', '/templates', {
      body: {
        name: 'Hardware reply',
        description: 'For hardware',
        subject: 'Re: {{ ticket.subject }}',
        body: 'Hi {{ ticket.requester.name }}',
        queue_id: queueId,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(TEMPLATE_KEYS);
    expect(res.body).toMatchObject({
      name: 'Hardware reply',
      description: 'For hardware',
      subject: 'Re: {{ ticket.subject }}',
      body: 'Hi {{ ticket.requester.name }}',
      queue_id: queueId,
    });
    expect(res.body.id).toEqual(expect.any(Number));
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);
    const got = await s.api('GET', `/templates/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);

    const minimal = await s.api('POST', '/templates', { body: { name: 'Minimal' } });
    expect(minimal.status, minimal.text).toBe(201);
    expect(minimal.body).toMatchObject({ name: 'Minimal', description: '', subject: '', body: '', queue_id: null });
  });

  it('POST with a name already taken is 409 conflict', async () => {
    expectError(
      await s.api('POST', '/templates', { body: { name: 'Autoreply', subject: 'x', body: 'y' } }),
      409,
      'conflict',
    );
  });

  it('POST validates the body (422 naming the field)', async () => {
    expectError(await s.api('POST', '/templates', { body: { subject: 'x' } }), 422, 'validation_failed', ['name']);
    expectError(
      await s.api('POST', '/templates', { body: { name: uniq('t'), queue_id: 999999 } }),
      422,
      'validation_failed',
      ['queue_id'],
    );
    expectError(await s.api('POST', '/templates', { body: { name: uniq('t'), bogus: 1 } }), 422, 'validation_failed');
  });

  describe('Liquid is checked when the template is saved', () => {
    const cases: [string, 'subject' | 'body', string, RegExp][] = [
      ['an unclosed output', 'subject', '{{ ticket.subject ', /not closed/],
      ['an if without a condition', 'body', '{% if %}yes{% endif %}', /invalid value expression/],
      ['an unclosed tag', 'body', '{% if ticket.subject %}yes', /not closed/],
      ['a misspelt variable', 'body', 'Hello {{ tiket.subject }}', /undefined variable: tiket/],
      ['a misspelt nested variable', 'subject', '{{ ticket.requester.nmae }}', /undefined variable/],
      ['an unknown filter', 'body', '{{ ticket.subject | nosuchfilter }}', /undefined filter: nosuchfilter/],
    ];
    for (const [what, field, source, error] of cases) {
      it(`rejects ${what} in the ${field} with 422 and the Liquid error`, async () => {
        const res = await s.api('POST', '/templates', {
          body: { name: uniq('bad'), subject: 'ok', body: 'ok', [field]: source },
        });
        expectError(res, 422, 'validation_failed', [field]);
        expect(res.body.error.details[0].message).toMatch(/Liquid/);
        expect(res.body.error.details[0].message).toMatch(error);
      });
    }

    it('reports both fields when both are broken', async () => {
      const res = await s.api('POST', '/templates', {
        body: { name: uniq('bad'), subject: '{{ tiket.id }}', body: '{% if %}' },
      });
      expectError(res, 422, 'validation_failed', ['subject', 'body']);
    });

    it('accepts every documented variable (ticket with owner/team/requester/queue/url/custom_fields, transaction.creator, scrip)', async () => {
      const body = [
        '{{ ticket.id }} {{ ticket.subject }} {{ ticket.status }} {{ ticket.priority }} {{ ticket.url }}',
        '{{ ticket.owner.name }} {{ ticket.owner.email }} {{ ticket.team.name }} {{ ticket.queue.name }}',
        '{{ ticket.requester.name }} {{ ticket.requester.email }} {{ ticket.custom_fields.asset_tag }}',
        '{{ transaction.creator.email }} {{ transaction.body }} {{ transaction.type }} {{ scrip.key }}',
        '{% if ticket.owner %}{{ ticket.owner.name | upcase }}{% endif %} {{ ticket.subject | default: "x" }}',
      ].join('\n');
      const res = await s.api('POST', '/templates', {
        body: { name: uniq('good'), subject: '{{ ticket.owner.name }}: {{ ticket.subject }}', body },
      });
      expect(res.status, res.text).toBe(201);
    });

    it('rejects a custom field key that does not exist', async () => {
      const res = await s.api('POST', '/templates', {
        body: { name: uniq('bad'), body: '{{ ticket.custom_fields.no_such_field }}' },
      });
      expectError(res, 422, 'validation_failed', ['body']);
    });

    it('rejects prototype access', async () => {
      const res = await s.api('POST', '/templates', { body: { name: uniq('bad'), body: '{{ ticket.constructor }}' } });
      expectError(res, 422, 'validation_failed', ['body']);
    });

    it('include/render/layout cannot read files', async () => {
      for (const source of [
        "{% include 'x' %}",
        "{% render '/etc/passwd' %}",
        "{% include '/etc/passwd' %}",
        "{% layout '/etc/passwd' %}",
        "{% include '../../package.json' %}",
        "{% render 'package.json' %}",
      ]) {
        const res = await s.api('POST', '/templates', { body: { name: uniq('files'), body: source } });
        expect(res.text).not.toMatch(/root:|"name": "hxdesk"|hxdesk-test/);
        if (res.status === 201) {
          // Saved: then it must render nothing from the file system.
          const preview = await s.api('POST', '/templates/preview', { body: { subject: '', body: source } });
          expect(preview.text).not.toMatch(/root:|"name": "hxdesk"/);
        } else {
          expectError(res, 422, 'validation_failed', ['body']);
        }
        const preview = await s.api('POST', '/templates/preview', { body: { subject: '', body: source } });
        expect(preview.text).not.toMatch(/root:|"name": "hxdesk"/);
      }
    });

    it('PATCH checks Liquid too', async () => {
      const tpl = await createTemplate({ subject: 'ok', body: 'ok' });
      expectError(
        await s.api('PATCH', `/templates/${tpl.id}`, { body: { body: '{{ tiket.subject }}' } }),
        422,
        'validation_failed',
        ['body'],
      );
      expectError(
        await s.api('PATCH', `/templates/${tpl.id}`, { body: { subject: '{{ ticket.subject ' } }),
        422,
        'validation_failed',
        ['subject'],
      );
      expect((await s.api('GET', `/templates/${tpl.id}`)).body.body).toBe('ok');
    });
  });

  it('PATCH updates the given fields; GET returns the change', async () => {
    const tpl = await createTemplate({ subject: 'old subject', body: 'old body', description: 'd' });
    const res = await s.api('PATCH', `/templates/${tpl.id}`, {
      body: { subject: 'New: {{ ticket.subject }}', queue_id: queueId },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: tpl.id,
      name: tpl.name,
      description: 'd',
      subject: 'New: {{ ticket.subject }}',
      body: 'old body',
      queue_id: queueId,
    });
    expect((await s.api('GET', `/templates/${tpl.id}`)).body).toEqual(res.body);
    // Renaming to its own name is fine; to another template's name is 409.
    expect((await s.api('PATCH', `/templates/${tpl.id}`, { body: { name: tpl.name } })).status).toBe(200);
    expectError(await s.api('PATCH', `/templates/${tpl.id}`, { body: { name: 'Resolved' } }), 409, 'conflict');
    expectError(
      await s.api('PATCH', `/templates/${tpl.id}`, { body: { queue_id: 999999 } }),
      422,
      'validation_failed',
      ['queue_id'],
    );
  });

  it('unknown ids are 404 on GET, PATCH and DELETE', async () => {
    expectError(await s.api('GET', '/templates/999999'), 404, 'not_found');
    expectError(await s.api('PATCH', '/templates/999999', { body: { description: 'x' } }), 404, 'not_found');
    expectError(await s.api('DELETE', '/templates/999999'), 404, 'not_found');
    expectError(await s.api('GET', '/templates/abc'), 404, 'not_found');
  });

  it('DELETE is 204, then the template is gone', async () => {
    const tpl = await createTemplate({ subject: 's', body: 'b' });
    const res = await s.api('DELETE', `/templates/${tpl.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await s.api('GET', `/templates/${tpl.id}`), 404, 'not_found');
  });

  it('DELETE of a template a scrip uses is 409 naming the scrip', async () => {
    const seeded = await s.api('DELETE', `/templates/${correspondenceId}`);
    expectError(seeded, 409, 'conflict');
    expect(seeded.body.error.message).toContain('notify_requester_on_correspond');

    const tpl = await createTemplate({ subject: 's', body: 'b' });
    const scrip = await createScrip({
      key: 'uses_my_template',
      condition: 'on_comment',
      action: 'notify_owner',
      template_id: tpl.id,
    });
    const res = await s.api('DELETE', `/templates/${tpl.id}`);
    expectError(res, 409, 'conflict');
    expect(res.body.error.message).toContain('uses_my_template');
    expect((await s.api('GET', `/templates/${tpl.id}`)).status).toBe(200);
    // Once the scrip is gone the template can go.
    expect((await s.api('DELETE', `/scrips/${scrip.id}`)).status).toBe(204);
    expect((await s.api('DELETE', `/templates/${tpl.id}`)).status).toBe(204);
  });

  describe('POST /templates/preview', () => {
    it('renders against a real ticket', async () => {
      const requester = await s.user('requester');
      const owner = await s.user('agent');
      const t = await s.api('POST', '/tickets', {
        body: {
          queue_id: queueId,
          subject: 'Laptop will not boot',
          requester_id: requester.id,
          owner_id: owner.id,
          custom_fields: { asset_tag: 'AT-42' },
        },
      });
      expect(t.status, t.text).toBe(201);
      const id = t.body.ticket.id;
      const res = await s.api('POST', '/templates/preview', {
        body: {
          subject: 'Re: {{ ticket.subject }}',
          body: '#{{ ticket.id }} for {{ ticket.requester.email }} owned by {{ ticket.owner.email }} in {{ ticket.queue.name }} tag {{ ticket.custom_fields.asset_tag }} last {{ transaction.type }}',
          ticket_id: id,
        },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        subject: 'Re: Laptop will not boot',
        body: `#${id} for ${requester.email} owned by ${owner.email} in Hardware tag AT-42 last Create`,
      });
    });

    it('renders against a sample without ticket_id', async () => {
      const res = await s.api('POST', '/templates/preview', {
        body: { subject: '{{ ticket.subject }}', body: 'Hi {{ ticket.requester.name }}, #{{ ticket.id }}' },
      });
      expect(res.status, res.text).toBe(200);
      expect(typeof res.body.subject).toBe('string');
      expect(res.body.subject.length).toBeGreaterThan(0);
      expect(res.body.body).toMatch(/^Hi \S.*, #\d+$/);
    });

    it('checks Liquid and the ticket', async () => {
      expectError(
        await s.api('POST', '/templates/preview', { body: { subject: 'x', body: '{{ tiket.id }}' } }),
        422,
        'validation_failed',
        ['body'],
      );
      expectError(
        await s.api('POST', '/templates/preview', { body: { subject: 'x', body: 'y', ticket_id: 999999 } }),
        422,
        'validation_failed',
        ['ticket_id'],
      );
    });
  });
});

describe('scrips', () => {
  const DEFAULT_SCRIPS: Record<string, [string, string, string | null]> = {
    autoreply_on_create: ['on_create', 'autoreply_requester', 'Autoreply'],
    notify_staff_on_create: ['on_create', 'notify_staff_watchers', 'New ticket'],
    notify_requester_on_correspond: ['on_correspond', 'notify_requesters_and_cc', 'Correspondence'],
    notify_owner_on_correspond: ['on_correspond', 'notify_owner_and_admin_cc', 'Staff correspondence'],
    notify_staff_on_customer_reply: [
      'on_customer_correspond',
      'notify_owner_or_staff_watchers',
      'Staff correspondence',
    ],
    notify_staff_on_comment: ['on_comment', 'notify_owner_and_admin_cc', 'Staff note'],
    notify_owner_on_owner_change: ['on_owner_change', 'notify_owner', 'Owner notice'],
    notify_team_on_team_change: ['on_team_change', 'notify_team', 'Team notice'],
    open_inactive_on_correspond: ['on_correspond', 'open_inactive', null],
    notify_requester_on_resolve: ['on_resolve', 'notify_requester', 'Resolved'],
  };

  it('GET /scrips lists the seeded defaults with their templates', async () => {
    const res = await s.api('GET', '/scrips');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['scrips']);
    const templates = (await s.api('GET', '/templates')).body.templates as { id: number; name: string }[];
    for (const [key, [condition, action, template]] of Object.entries(DEFAULT_SCRIPS)) {
      const scrip = res.body.scrips.find((x: { key: string }) => x.key === key);
      expect(scrip, key).toBeDefined();
      expect(Object.keys(scrip).sort()).toEqual(SCRIP_KEYS);
      expect(scrip).toMatchObject({ condition, action, enabled: true, queue_id: null });
      expect(scrip.template_id).toBe(template === null ? null : templates.find((t) => t.name === template)!.id);
      expect(scrip.config).toEqual({});
    }
    const orders = res.body.scrips.map((x: { sort_order: number }) => x.sort_order);
    expect(orders).toEqual([...orders].sort((a: number, b: number) => a - b));
  });

  it('POST creates a scrip: 201 with the stored shape, GET returns it', async () => {
    const res = await s.api('POST', '/scrips', {
      body: {
        key: 'hw_owner_on_comment',
        description: 'Tell the owner about notes',
        condition: 'on_comment',
        action: 'notify_owner',
        template_id: correspondenceId,
        queue_id: queueId,
        enabled: false,
        sort_order: 55,
        config: {},
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SCRIP_KEYS);
    expect(res.body).toMatchObject({
      key: 'hw_owner_on_comment',
      description: 'Tell the owner about notes',
      condition: 'on_comment',
      action: 'notify_owner',
      template_id: correspondenceId,
      queue_id: queueId,
      enabled: false,
      sort_order: 55,
      config: {},
    });
    expect(res.body.created_at).toMatch(ISO);
    const got = await s.api('GET', `/scrips/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);

    const defaults = await s.api('POST', '/scrips', {
      body: { key: 'minimal_scrip', condition: 'on_correspond', action: 'open_inactive' },
    });
    expect(defaults.status, defaults.text).toBe(201);
    expect(defaults.body).toMatchObject({
      description: '',
      template_id: null,
      queue_id: null,
      enabled: true,
      sort_order: 0,
      config: {},
    });

    const hook = await s.api('POST', '/scrips', {
      body: {
        key: 'hook_on_create',
        condition: 'on_create',
        action: 'notify_webhook',
        config: { url: 'https://hooks.example.com/x' },
        enabled: false,
      },
    });
    expect(hook.status, hook.text).toBe(201);
    expect(hook.body.config).toEqual({ url: 'https://hooks.example.com/x' });
  });

  it('POST with a key already taken is 409 conflict', async () => {
    expectError(
      await s.api('POST', '/scrips', {
        body: { key: 'autoreply_on_create', condition: 'on_create', action: 'open_inactive' },
      }),
      409,
      'conflict',
    );
  });

  it('POST validates (422 naming the field)', async () => {
    const ok = { condition: 'on_create', action: 'open_inactive' };
    for (const key of ['Bad Key', '1starts_with_digit', 'has-dash', 'UPPER', '']) {
      expectError(await s.api('POST', '/scrips', { body: { ...ok, key } }), 422, 'validation_failed', ['key']);
    }
    expectError(await s.api('POST', '/scrips', { body: { ...ok } }), 422, 'validation_failed', ['key']);
    expectError(
      await s.api('POST', '/scrips', { body: { key: uniqKey(), condition: 'on_whatever', action: 'open_inactive' } }),
      422,
      'validation_failed',
      ['condition'],
    );
    expectError(
      await s.api('POST', '/scrips', { body: { key: uniqKey(), condition: 'on_create', action: 'launch_rockets' } }),
      422,
      'validation_failed',
      ['action'],
    );
    expectError(
      await s.api('POST', '/scrips', { body: { key: uniqKey(), action: 'open_inactive' } }),
      422,
      'validation_failed',
      ['condition'],
    );
    for (const action of ['autoreply_requester', 'notify_requester', 'notify_owner', 'notify_team']) {
      expectError(
        await s.api('POST', '/scrips', { body: { key: uniqKey(), condition: 'on_create', action } }),
        422,
        'validation_failed',
        ['template_id'],
      );
      expectError(
        await s.api('POST', '/scrips', { body: { key: uniqKey(), condition: 'on_create', action, template_id: null } }),
        422,
        'validation_failed',
        ['template_id'],
      );
    }
    for (const config of [
      {},
      { url: 'ftp://example.com/x' },
      { url: 'not a url' },
      { url: 'javascript:alert(1)' },
      { url: 42 },
      { url: 'file:///etc/passwd' },
    ]) {
      expectError(
        await s.api('POST', '/scrips', {
          body: { key: uniqKey(), condition: 'on_create', action: 'notify_webhook', config },
        }),
        422,
        'validation_failed',
        ['config.url'],
      );
    }
    for (const config of [{}, { status: 'bogus' }, { status: 'Open' }, { status: 1 }]) {
      expectError(
        await s.api('POST', '/scrips', {
          body: { key: uniqKey(), condition: 'on_create', action: 'set_status', config },
        }),
        422,
        'validation_failed',
        ['config.status'],
      );
    }
    expectError(
      await s.api('POST', '/scrips', {
        body: { key: uniqKey(), condition: 'on_create', action: 'notify_owner', template_id: 999999 },
      }),
      422,
      'validation_failed',
      ['template_id'],
    );
    expectError(
      await s.api('POST', '/scrips', { body: { key: uniqKey(), ...ok, queue_id: 999999 } }),
      422,
      'validation_failed',
      ['queue_id'],
    );
    expectError(
      await s.api('POST', '/scrips', { body: { key: uniqKey(), ...ok, config: 'nope' } }),
      422,
      'validation_failed',
      ['config'],
    );
    expectError(
      await s.api('POST', '/scrips', { body: { key: uniqKey(), ...ok, sort_order: 'first' } }),
      422,
      'validation_failed',
      ['sort_order'],
    );
    // None of them was stored.
    const keys = (await s.api('GET', '/scrips')).body.scrips.map((x: { key: string }) => x.key);
    expect(keys.filter((k: string) => k.startsWith('invalid_'))).toEqual([]);
  });

  it('set_status with a valid status is accepted, for every status', async () => {
    for (const status of ['new', 'open', 'stalled', 'resolved', 'rejected', 'deleted']) {
      const scrip = await createScrip({
        condition: 'on_create',
        action: 'set_status',
        config: { status },
        enabled: false,
      });
      expect(scrip.config).toEqual({ status });
    }
  });

  it('PATCH enables/disables, moves sort_order, changes config; the whole scrip is re-checked', async () => {
    const scrip = await createScrip({
      condition: 'on_create',
      action: 'set_status',
      config: { status: 'open' },
      queue_id: queueId,
    });
    let res = await s.api('PATCH', `/scrips/${scrip.id}`, { body: { enabled: false } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: scrip.id,
      key: scrip.key,
      enabled: false,
      sort_order: 0,
      config: { status: 'open' },
      queue_id: queueId,
    });
    res = await s.api('PATCH', `/scrips/${scrip.id}`, {
      body: { enabled: true, sort_order: -7, config: { status: 'stalled' }, description: 'stall it' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      enabled: true,
      sort_order: -7,
      config: { status: 'stalled' },
      description: 'stall it',
    });
    expect((await s.api('GET', `/scrips/${scrip.id}`)).body).toEqual(res.body);
    const list = (await s.api('GET', '/scrips')).body.scrips as { id: number }[];
    expect(list[0].id).toBe(scrip.id); // lowest sort_order first

    expectError(
      await s.api('PATCH', `/scrips/${scrip.id}`, { body: { config: { status: 'bogus' } } }),
      422,
      'validation_failed',
      ['config.status'],
    );
    expectError(
      await s.api('PATCH', `/scrips/${scrip.id}`, { body: { action: 'notify_webhook' } }),
      422,
      'validation_failed',
      ['config.url'],
    );
    expectError(
      await s.api('PATCH', `/scrips/${scrip.id}`, { body: { action: 'notify_owner' } }),
      422,
      'validation_failed',
      ['template_id'],
    );
    expectError(await s.api('PATCH', `/scrips/${scrip.id}`, { body: { key: 'Not OK' } }), 422, 'validation_failed', [
      'key',
    ]);
    expectError(await s.api('PATCH', `/scrips/${scrip.id}`, { body: { key: 'autoreply_on_create' } }), 409, 'conflict');
    expectError(
      await s.api('PATCH', `/scrips/${scrip.id}`, { body: { condition: 'nope' } }),
      422,
      'validation_failed',
      ['condition'],
    );
    expectError(await s.api('PATCH', `/scrips/${scrip.id}`, { body: { queue_id: 999999 } }), 422, 'validation_failed', [
      'queue_id',
    ]);
    expect((await s.api('GET', `/scrips/${scrip.id}`)).body).toEqual(res.body);

    // A valid change of action along with what it needs.
    res = await s.api('PATCH', `/scrips/${scrip.id}`, {
      body: { action: 'notify_owner', template_id: correspondenceId, key: scrip.key, queue_id: null },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ action: 'notify_owner', template_id: correspondenceId, queue_id: null });
    // Removing the template of a mail action is refused.
    expectError(
      await s.api('PATCH', `/scrips/${scrip.id}`, { body: { template_id: null } }),
      422,
      'validation_failed',
      ['template_id'],
    );
    expect((await s.api('DELETE', `/scrips/${scrip.id}`)).status).toBe(204);
  });

  it('DELETE is 204, then the scrip is gone; unknown ids are 404', async () => {
    const scrip = await createScrip({ condition: 'on_create', action: 'open_inactive', queue_id: generalId });
    const res = await s.api('DELETE', `/scrips/${scrip.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await s.api('GET', `/scrips/${scrip.id}`), 404, 'not_found');
    expectError(await s.api('DELETE', `/scrips/${scrip.id}`), 404, 'not_found');
    expectError(await s.api('PATCH', `/scrips/${scrip.id}`, { body: { enabled: false } }), 404, 'not_found');
    expectError(await s.api('GET', '/scrips/999999'), 404, 'not_found');
    expectError(await s.api('GET', '/scrips/abc'), 404, 'not_found');
  });
});

function uniqKey() {
  return uniq('invalid_');
}
