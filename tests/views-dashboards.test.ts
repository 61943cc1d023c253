import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCount, rawGet } from './helpers/db.js';
import { errorPaths, expectError } from './helpers/expect.js';
import { startServer, type ApiResponse, type TestServer } from './helpers/server.js';

// Saved views and dashboards over real HTTP (SPEC A, B3, B4 `view_id`, B5).

let s: TestServer;
let agentA: { id: number; email: string; token: string };
let agentB: { id: number; email: string; token: string };
let requester: { id: number; email: string; token: string };
let queueId: number;

beforeAll(async () => {
  s = await startServer();
  agentA = await s.user('agent');
  agentB = await s.user('agent');
  requester = await s.user('requester');
  const q = await s.api('POST', '/queues', { body: { name: 'Views queue' } });
  expect(q.status).toBe(201);
  queueId = q.body.id;
});
afterAll(async () => {
  await s?.close();
});

async function createView(token: string, body: Record<string, unknown>) {
  const res = await s.api('POST', '/saved-views', { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body as {
    id: number;
    name: string;
    owner_id: number;
    filters: Record<string, unknown>;
    columns: string[];
    column_widths: Record<string, number>;
  };
}

async function createTeam(name: string, members: number[] = []) {
  const res = await s.api('POST', '/teams', { body: { name } });
  expect(res.status, res.text).toBe(201);
  for (const user_id of members) {
    const m = await s.api('POST', `/teams/${res.body.id}/members`, { body: { user_id } });
    expect(m.status, m.text).toBe(201);
  }
  return res.body.id as number;
}

async function createDashboard(token: string, body: Record<string, unknown>) {
  const res = await s.api('POST', '/dashboards', { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body as {
    id: number;
    name: string;
    team_id: number | null;
    widgets: { id: number; kind: string; title: string; position: number; config: Record<string, unknown> }[];
  };
}

const listIds = async (path: string, key: string, token: string) => {
  const res = await s.api('GET', path, { token });
  expect(res.status, res.text).toBe(200);
  return (res.body[key] as { id: number }[]).map((x) => x.id);
};

describe('saved views: create', () => {
  it('POST /saved-views → 201 with the full resource', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: {
        name: 'My open',
        filters: { status: 'open', queue_id: queueId },
        columns: ['Subject', 'ID', 'Status'],
        column_widths: { Subject: 300, ID: 60 },
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      name: 'My open',
      owner_id: agentA.id,
      columns: ['Subject', 'ID', 'Status'],
      column_widths: { Subject: 300, ID: 60 },
    });
    expect(res.body.id).toEqual(expect.any(Number));
    expect(res.body.filters).toMatchObject({ queue_id: queueId });
    expect([res.body.filters.status].flat()).toEqual(['open']);
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(res.body.updated_at).toMatch(/Z$/);
  });

  it('defaults columns (and widths, filters) when omitted', async () => {
    const v = await createView(agentA.token, { name: 'Defaults' });
    expect(v.columns).toEqual(['ID', 'Subject', 'Status', 'Queue', 'Owner', 'Updated']);
    expect(v.column_widths).toEqual({});
    expect(v.filters).toEqual({});
  });

  it('keeps the given column order and accepts all seven columns', async () => {
    const all = ['Updated', 'Created', 'Owner', 'Queue', 'Status', 'Subject', 'ID'];
    const v = await createView(agentA.token, { name: 'All seven', columns: all });
    expect(v.columns).toEqual(all);
    const got = await s.api('GET', `/saved-views/${v.id}`, { token: agentA.token });
    expect(got.status).toBe(200);
    expect(got.body.columns).toEqual(all);
  });

  it('an unknown column name → 422 at columns.<index>', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: { name: 'x', columns: ['ID', 'Priority'] },
    });
    expectError(res, 422, 'validation_failed', 'columns.1');
  });

  it('column names are case-sensitive (id is not ID)', async () => {
    const res = await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', columns: ['id'] } });
    expectError(res, 422, 'validation_failed', 'columns.0');
  });

  it('duplicate columns → 422 at columns', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: { name: 'x', columns: ['ID', 'Subject', 'ID'] },
    });
    expectError(res, 422, 'validation_failed', 'columns');
  });

  it('an empty column list → 422 at columns (a view shows at least one column)', async () => {
    const res = await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', columns: [] } });
    expectError(res, 422, 'validation_failed', 'columns');
  });

  it('columns must be a list', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: { name: 'x', columns: { ID: true } },
    });
    expectError(res, 422, 'validation_failed', 'columns');
  });

  it('column widths: 50 and 800 are accepted', async () => {
    const v = await createView(agentA.token, { name: 'Edges', column_widths: { ID: 50, Subject: 800 } });
    expect(v.column_widths).toEqual({ ID: 50, Subject: 800 });
  });

  it('column width 49 → 422 at column_widths.<Column>', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: { name: 'x', column_widths: { Status: 49 } },
    });
    expectError(res, 422, 'validation_failed', 'column_widths.Status');
  });

  it('column width 801 → 422 at column_widths.<Column>', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: { name: 'x', column_widths: { Owner: 801 } },
    });
    expectError(res, 422, 'validation_failed', 'column_widths.Owner');
  });

  it('a non-integer or non-numeric width → 422', async () => {
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', column_widths: { ID: 100.5 } } }),
      422,
      'validation_failed',
      'column_widths.ID',
    );
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', column_widths: { ID: 'wide' } } }),
      422,
      'validation_failed',
      'column_widths.ID',
    );
  });

  it('an unknown column key in column_widths → 422', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: { name: 'x', column_widths: { Priority: 100 } },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(errorPaths(res).some((p: string) => p.startsWith('column_widths'))).toBe(true);
  });

  it('filters are validated like GET /tickets: a bad status → 422 at filters.status…', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: { name: 'x', filters: { status: 'bogus' } },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(errorPaths(res).length).toBeGreaterThan(0);
    expect(errorPaths(res).every((p: string) => p.startsWith('filters.status'))).toBe(true);
  });

  it('filters: limit 0 and limit 501 → 422 at filters.limit', async () => {
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', filters: { limit: 0 } } }),
      422,
      'validation_failed',
      'filters.limit',
    );
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', filters: { limit: 501 } } }),
      422,
      'validation_failed',
      'filters.limit',
    );
  });

  it('filters: an unknown filter → 422 naming it', async () => {
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', filters: { colour: 'red' } } }),
      422,
      'validation_failed',
      'filters.colour',
    );
  });

  it('filters: a view cannot point at another view (view_id is not a filter)', async () => {
    const v = await createView(agentA.token, { name: 'Target' });
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', filters: { view_id: v.id } } }),
      422,
      'validation_failed',
      'filters.view_id',
    );
  });

  it('filters: an unknown custom field → 422 at filters.cf.<key>', async () => {
    expectError(
      await s.api('POST', '/saved-views', {
        token: agentA.token,
        body: { name: 'x', filters: { 'cf.nosuchfield': 'a' } },
      }),
      422,
      'validation_failed',
      'filters.cf.nosuchfield',
    );
  });

  it('filters: a bad sort and a bad owner → 422', async () => {
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', filters: { sort: 'subject' } } }),
      422,
      'validation_failed',
      'filters.sort',
    );
    expectError(
      await s.api('POST', '/saved-views', {
        token: agentA.token,
        body: { name: 'x', filters: { owner_id: 'somebody' } },
      }),
      422,
      'validation_failed',
      'filters.owner_id',
    );
  });

  it('filters must be an object', async () => {
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', filters: [1, 2] } }),
      422,
      'validation_failed',
      'filters',
    );
  });

  it('name is required and an unknown body field is 422', async () => {
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { columns: ['ID'] } }),
      422,
      'validation_failed',
      'name',
    );
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: '   ' } }),
      422,
      'validation_failed',
      'name',
    );
    expectError(
      await s.api('POST', '/saved-views', { token: agentA.token, body: { name: 'x', colour: 'red' } }),
      422,
      'validation_failed',
      'colour',
    );
  });

  it('an agent cannot create a view owned by someone else; an admin can', async () => {
    const res = await s.api('POST', '/saved-views', {
      token: agentA.token,
      body: { name: 'for B', owner_id: agentB.id },
    });
    expectError(res, 403, 'forbidden');
    const ok = await s.api('POST', '/saved-views', { body: { name: 'for B by admin', owner_id: agentB.id } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.owner_id).toBe(agentB.id);
    expectError(
      await s.api('POST', '/saved-views', { body: { name: 'ghost', owner_id: 999_999 } }),
      422,
      'validation_failed',
      'owner_id',
    );
  });

  it('requires authentication', async () => {
    expectError(await s.api('POST', '/saved-views', { token: null, body: { name: 'anon' } }), 401, 'unauthenticated');
    expectError(await s.api('GET', '/saved-views', { token: null }), 401, 'unauthenticated');
  });
});

describe('saved views: read, update, delete', () => {
  it("GET /saved-views lists only the caller's own views", async () => {
    const a = await createView(agentA.token, { name: 'A only' });
    const b = await createView(agentB.token, { name: 'B only' });
    const aIds = await listIds('/saved-views', 'saved_views', agentA.token);
    const bIds = await listIds('/saved-views', 'saved_views', agentB.token);
    expect(aIds).toContain(a.id);
    expect(aIds).not.toContain(b.id);
    expect(bIds).toContain(b.id);
    expect(bIds).not.toContain(a.id);
    const adminIds = await listIds('/saved-views', 'saved_views', s.adminToken);
    expect(adminIds).not.toContain(a.id);
    expect(adminIds).not.toContain(b.id);
    const res = await s.api('GET', '/saved-views', { token: agentA.token });
    for (const v of res.body.saved_views) expect(v.owner_id).toBe(agentA.id);
  });

  it('GET /saved-views/:id returns the view', async () => {
    const v = await createView(agentA.token, {
      name: 'Get me',
      filters: { owner_id: 'none' },
      columns: ['ID', 'Subject'],
    });
    const res = await s.api('GET', `/saved-views/${v.id}`, { token: agentA.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(v);
  });

  it('saved views are for staff: a requester gets 403 on every saved-view route and on view_id', async () => {
    const v = await createView(agentA.token, { name: 'Private to staff' });
    // One a requester may own from before views were staff-only.
    const now = new Date().toISOString();
    const legacy = Number(
      (await rawGet<{ id: number }>(
        s,
        `INSERT INTO saved_views (name, owner_id, filters, columns, column_widths, created_at, updated_at)
      VALUES ('Legacy', ?, '{}', '["ID"]', '{}', ?, ?) RETURNING id`,
        [requester.id, now, now],
      ))!.id,
    );
    const before = await rawCount(s, 'saved_views');
    const as = { token: requester.token };
    expectError(await s.api('GET', '/saved-views', as), 403, 'forbidden');
    expectError(await s.api('POST', '/saved-views', { ...as, body: { name: 'Mine' } }), 403, 'forbidden');
    for (const id of [v.id, legacy]) {
      expectError(await s.api('GET', `/saved-views/${id}`, as), 403, 'forbidden');
      expectError(await s.api('PATCH', `/saved-views/${id}`, { ...as, body: { name: 'Changed' } }), 403, 'forbidden');
      expectError(await s.api('DELETE', `/saved-views/${id}`, as), 403, 'forbidden');
      expectError(await s.api('GET', `/tickets?view_id=${id}`, as), 403, 'forbidden');
    }
    expect(await rawCount(s, 'saved_views')).toBe(before);
    expect((await s.api('GET', `/saved-views/${legacy}`)).body.name).toBe('Legacy');
    // The requester's ticket list (without view_id) still works.
    expect((await s.api('GET', '/tickets', as)).status).toBe(200);
  });

  it('an admin cannot give a saved view to a requester (422 owner_id)', async () => {
    expectError(
      await s.api('POST', '/saved-views', { body: { name: 'For a requester', owner_id: requester.id } }),
      422,
      'validation_failed',
      'owner_id',
    );
    const forAgent = await s.api('POST', '/saved-views', { body: { name: 'For an agent', owner_id: agentB.id } });
    expect(forAgent.status, forAgent.text).toBe(201);
    expect(forAgent.body.owner_id).toBe(agentB.id);
  });

  it('PATCH by the owner changes name, filters, columns and widths', async () => {
    const v = await createView(agentA.token, { name: 'Before' });
    const res = await s.api('PATCH', `/saved-views/${v.id}`, {
      token: agentA.token,
      body: {
        name: 'After',
        filters: { status: 'new,open' },
        columns: ['Status', 'Subject'],
        column_widths: { Status: 120 },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: v.id,
      name: 'After',
      owner_id: agentA.id,
      columns: ['Status', 'Subject'],
      column_widths: { Status: 120 },
    });
    expect(res.body.filters.status).toEqual(['new', 'open']);
    const again = await s.api('GET', `/saved-views/${v.id}`, { token: agentA.token });
    expect(again.body).toEqual(res.body);
  });

  it('PATCH validates like POST', async () => {
    const v = await createView(agentA.token, { name: 'Validate patch' });
    expectError(
      await s.api('PATCH', `/saved-views/${v.id}`, { token: agentA.token, body: { columns: ['ID', 'Nope'] } }),
      422,
      'validation_failed',
      'columns.1',
    );
    expectError(
      await s.api('PATCH', `/saved-views/${v.id}`, { token: agentA.token, body: { columns: ['ID', 'ID'] } }),
      422,
      'validation_failed',
      'columns',
    );
    expectError(
      await s.api('PATCH', `/saved-views/${v.id}`, { token: agentA.token, body: { column_widths: { ID: 49 } } }),
      422,
      'validation_failed',
      'column_widths.ID',
    );
    expectError(
      await s.api('PATCH', `/saved-views/${v.id}`, { token: agentA.token, body: { filters: { limit: 0 } } }),
      422,
      'validation_failed',
      'filters.limit',
    );
    expectError(
      await s.api('PATCH', `/saved-views/${v.id}`, { token: agentA.token, body: { owner_id: agentB.id } }),
      422,
      'validation_failed',
      'owner_id',
    );
    const unchanged = await s.api('GET', `/saved-views/${v.id}`, { token: agentA.token });
    expect(unchanged.body).toEqual(v);
  });

  it('PATCH by another agent → 403; by an admin → 200', async () => {
    const v = await createView(agentA.token, { name: 'Mine' });
    expectError(
      await s.api('PATCH', `/saved-views/${v.id}`, { token: agentB.token, body: { name: 'Stolen' } }),
      403,
      'forbidden',
    );
    const admin = await s.api('PATCH', `/saved-views/${v.id}`, { body: { name: 'Fixed by admin' } });
    expect(admin.status, admin.text).toBe(200);
    expect(admin.body.name).toBe('Fixed by admin');
    expect(admin.body.owner_id).toBe(agentA.id);
  });

  it('DELETE by another agent → 403; by the owner → 204, then 404', async () => {
    const v = await createView(agentA.token, { name: 'Delete me' });
    expectError(await s.api('DELETE', `/saved-views/${v.id}`, { token: agentB.token }), 403, 'forbidden');
    const del = await s.api('DELETE', `/saved-views/${v.id}`, { token: agentA.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectError(await s.api('GET', `/saved-views/${v.id}`, { token: agentA.token }), 404, 'not_found');
    expect(await listIds('/saved-views', 'saved_views', agentA.token)).not.toContain(v.id);
    expectError(await s.api('DELETE', `/saved-views/${v.id}`, { token: agentA.token }), 404, 'not_found');
  });

  it('an admin may delete any view', async () => {
    const v = await createView(agentB.token, { name: 'Admin deletes' });
    expect((await s.api('DELETE', `/saved-views/${v.id}`)).status).toBe(204);
  });

  it('unknown and malformed ids → 404', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await s.api(method, '/saved-views/999999', {
        token: agentA.token,
        ...(method === 'PATCH' ? { body: { name: 'x' } } : {}),
      });
      expectError(res, 404, 'not_found');
    }
    expectError(await s.api('GET', '/saved-views/abc', { token: agentA.token }), 404, 'not_found');
  });
});

describe('saved views: filters are reusable on GET /tickets?view_id=', () => {
  let newIds: number[];
  let openIds: number[];
  let otherQueueId: number;

  beforeAll(async () => {
    const q2 = await s.api('POST', '/queues', { body: { name: 'Other views queue' } });
    expect(q2.status).toBe(201);
    otherQueueId = q2.body.id;
    const mk = async (subject: string, status: string, queue = queueId) => {
      const res = await s.api('POST', '/tickets', { token: agentA.token, body: { queue_id: queue, subject, status } });
      expect(res.status, res.text).toBe(201);
      return res.body.ticket.id as number;
    };
    newIds = [await mk('view new 1', 'new'), await mk('view new 2', 'new')];
    openIds = [await mk('view open 1', 'open'), await mk('view open 2', 'open'), await mk('view open 3', 'open')];
    await mk('view open elsewhere', 'open', otherQueueId);
  });

  const ids = (res: ApiResponse) => (res.body.tickets as { id: number }[]).map((t) => t.id).sort((a, b) => a - b);

  it('applies the stored filters', async () => {
    const v = await createView(agentA.token, { name: 'Open here', filters: { status: 'open', queue_id: queueId } });
    const res = await s.api('GET', `/tickets?view_id=${v.id}`, { token: agentA.token });
    expect(res.status, res.text).toBe(200);
    expect(ids(res)).toEqual([...openIds].sort((a, b) => a - b));
    expect(res.body.total).toBe(openIds.length);
  });

  it('applies a stored limit and sort', async () => {
    const v = await createView(agentA.token, { name: 'Limited', filters: { queue_id: queueId, limit: 2, sort: 'id' } });
    const res = await s.api('GET', `/tickets?view_id=${v.id}`, { token: agentA.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.limit).toBe(2);
    expect(res.body.total).toBe(newIds.length + openIds.length);
    expect(res.body.tickets.map((t: { id: number }) => t.id)).toEqual([newIds[0], newIds[1]]);
  });

  it("explicit parameters override the view's", async () => {
    const v = await createView(agentA.token, { name: 'Override', filters: { status: 'open', queue_id: queueId } });
    const res = await s.api('GET', `/tickets?view_id=${v.id}&status=new`, { token: agentA.token });
    expect(res.status, res.text).toBe(200);
    expect(ids(res)).toEqual([...newIds].sort((a, b) => a - b));
  });

  it('another agent can apply the view too (views are readable by staff)', async () => {
    const v = await createView(agentA.token, { name: 'Shared', filters: { status: 'new', queue_id: queueId } });
    const res = await s.api('GET', `/tickets?view_id=${v.id}`, { token: agentB.token });
    expect(res.status, res.text).toBe(200);
    expect(ids(res)).toEqual([...newIds].sort((a, b) => a - b));
  });

  it('an unknown or malformed view_id → 422 at view_id', async () => {
    expectError(
      await s.api('GET', '/tickets?view_id=999999', { token: agentA.token }),
      422,
      'validation_failed',
      'view_id',
    );
    expectError(
      await s.api('GET', '/tickets?view_id=abc', { token: agentA.token }),
      422,
      'validation_failed',
      'view_id',
    );
  });

  it('a deleted view can no longer be applied', async () => {
    const v = await createView(agentA.token, { name: 'Gone', filters: { status: 'open' } });
    expect((await s.api('DELETE', `/saved-views/${v.id}`, { token: agentA.token })).status).toBe(204);
    expectError(
      await s.api('GET', `/tickets?view_id=${v.id}`, { token: agentA.token }),
      422,
      'validation_failed',
      'view_id',
    );
  });
});

describe('dashboards: create and widgets', () => {
  let viewId: number;
  beforeAll(async () => {
    viewId = (await createView(agentA.token, { name: 'Widget view', filters: { status: 'open' } })).id;
  });

  it('POST /dashboards without a team → 201, team_id null, no widgets', async () => {
    const res = await s.api('POST', '/dashboards', { token: agentA.token, body: { name: 'Plain' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'Plain', team_id: null, widgets: [] });
    expect(res.body.id).toEqual(expect.any(Number));
    expect(res.body.created_at).toMatch(/Z$/);
    const got = await s.api('GET', `/dashboards/${res.body.id}`, { token: agentA.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('POST /dashboards with a team the agent belongs to → 201', async () => {
    const team = await createTeam('Dash create team', [agentA.id]);
    const d = await createDashboard(agentA.token, { name: 'Team board', team_id: team });
    expect(d.team_id).toBe(team);
  });

  it('POST /dashboards with widgets → 201, widgets in order', async () => {
    const d = await createDashboard(agentA.token, {
      name: 'With widgets',
      widgets: [
        { kind: 'status_counts', title: 'By status' },
        { kind: 'ticket_list', title: 'Open', config: { view_id: viewId } },
        { kind: 'my_tickets' },
      ],
    });
    expect(d.widgets.map((w) => w.kind)).toEqual(['status_counts', 'ticket_list', 'my_tickets']);
    expect(d.widgets.map((w) => w.position)).toEqual([0, 1, 2]);
    expect(d.widgets[0].title).toBe('By status');
    expect(d.widgets[1].config).toEqual({ view_id: viewId });
    for (const w of d.widgets) expect(w).toMatchObject({ id: expect.any(Number), dashboard_id: d.id });
  });

  it('POST /dashboards with a bad widget → 422 naming it, nothing created', async () => {
    const before = await listIds('/dashboards', 'dashboards', agentA.token);
    expectError(
      await s.api('POST', '/dashboards', {
        token: agentA.token,
        body: { name: 'Bad', widgets: [{ kind: 'status_counts' }, { kind: 'ticket_list' }] },
      }),
      422,
      'validation_failed',
      'widgets.1.config.view_id',
    );
    expectError(
      await s.api('POST', '/dashboards', {
        token: agentA.token,
        body: { name: 'Bad', widgets: [{ kind: 'pie_chart' }] },
      }),
      422,
      'validation_failed',
      'widgets.0.kind',
    );
    expect(await listIds('/dashboards', 'dashboards', agentA.token)).toEqual(before);
  });

  it('POST /dashboards validates name and rejects unknown fields', async () => {
    expectError(
      await s.api('POST', '/dashboards', { token: agentA.token, body: {} }),
      422,
      'validation_failed',
      'name',
    );
    expectError(
      await s.api('POST', '/dashboards', { token: agentA.token, body: { name: '' } }),
      422,
      'validation_failed',
      'name',
    );
    expectError(
      await s.api('POST', '/dashboards', { token: agentA.token, body: { name: 'x', colour: 'red' } }),
      422,
      'validation_failed',
      'colour',
    );
  });

  it('POST /dashboards with an unknown team → 422 at team_id', async () => {
    expectError(
      await s.api('POST', '/dashboards', { token: agentA.token, body: { name: 'x', team_id: 999_999 } }),
      422,
      'validation_failed',
      'team_id',
    );
    expectError(
      await s.api('POST', '/dashboards', { body: { name: 'x', team_id: 999_999 } }),
      422,
      'validation_failed',
      'team_id',
    );
    expectError(
      await s.api('POST', '/dashboards', { body: { name: 'x', team_id: 'abc' } }),
      422,
      'validation_failed',
      'team_id',
    );
  });

  it('POST /dashboards/:id/widgets → 201 for each kind', async () => {
    const d = await createDashboard(agentA.token, { name: 'All kinds' });
    const kinds = ['ticket_list', 'status_counts', 'queue_counts', 'team_workload', 'my_tickets'];
    for (const kind of kinds) {
      const res = await s.api('POST', `/dashboards/${d.id}/widgets`, {
        token: agentA.token,
        body: { kind, title: `${kind} widget`, ...(kind === 'ticket_list' ? { config: { view_id: viewId } } : {}) },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.any(Number),
        dashboard_id: d.id,
        kind,
        title: `${kind} widget`,
        position: expect.any(Number),
      });
    }
    const got = await s.api('GET', `/dashboards/${d.id}`, { token: agentA.token });
    expect(got.body.widgets.map((w: { kind: string }) => w.kind)).toEqual(kinds);
  });

  it('ticket_list without config.view_id → 422 at config.view_id', async () => {
    const d = await createDashboard(agentA.token, { name: 'TL missing' });
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, { token: agentA.token, body: { kind: 'ticket_list' } }),
      422,
      'validation_failed',
      'config.view_id',
    );
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, {
        token: agentA.token,
        body: { kind: 'ticket_list', config: {} },
      }),
      422,
      'validation_failed',
      'config.view_id',
    );
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, {
        token: agentA.token,
        body: { kind: 'ticket_list', config: { view_id: 'abc' } },
      }),
      422,
      'validation_failed',
      'config.view_id',
    );
  });

  it('ticket_list with a view that does not exist → 422 at config.view_id', async () => {
    const d = await createDashboard(agentA.token, { name: 'TL unknown' });
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, {
        token: agentA.token,
        body: { kind: 'ticket_list', config: { view_id: 999_999 } },
      }),
      422,
      'validation_failed',
      'config.view_id',
    );
  });

  it('an unknown kind → 422 at kind', async () => {
    const d = await createDashboard(agentA.token, { name: 'Bad kind' });
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, { token: agentA.token, body: { kind: 'pie_chart' } }),
      422,
      'validation_failed',
      'kind',
    );
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, { token: agentA.token, body: { title: 'no kind' } }),
      422,
      'validation_failed',
      'kind',
    );
    const got = await s.api('GET', `/dashboards/${d.id}`, { token: agentA.token });
    expect(got.body.widgets).toEqual([]);
  });

  it('widget position out of range and unknown fields → 422', async () => {
    const d = await createDashboard(agentA.token, { name: 'Bad position' });
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, {
        token: agentA.token,
        body: { kind: 'my_tickets', position: -1 },
      }),
      422,
      'validation_failed',
      'position',
    );
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, {
        token: agentA.token,
        body: { kind: 'my_tickets', position: 1.5 },
      }),
      422,
      'validation_failed',
      'position',
    );
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, {
        token: agentA.token,
        body: { kind: 'my_tickets', size: 'big' },
      }),
      422,
      'validation_failed',
      'size',
    );
  });

  it('adding a widget to an unknown dashboard → 404', async () => {
    expectError(
      await s.api('POST', '/dashboards/999999/widgets', { token: agentA.token, body: { kind: 'my_tickets' } }),
      404,
      'not_found',
    );
  });

  it('GET /dashboards/:id returns widgets ordered by position', async () => {
    const d = await createDashboard(agentA.token, { name: 'Ordered' });
    const add = async (title: string, position: number) => {
      const res = await s.api('POST', `/dashboards/${d.id}/widgets`, {
        token: agentA.token,
        body: { kind: 'status_counts', title, position },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.position).toBe(position);
      return res.body.id as number;
    };
    await add('third', 30);
    await add('first', 10);
    await add('second', 20);
    const res = await s.api('GET', `/dashboards/${d.id}`, { token: agentA.token });
    expect(res.status).toBe(200);
    expect(res.body.widgets.map((w: { title: string }) => w.title)).toEqual(['first', 'second', 'third']);
    // A widget added without a position goes last.
    const last = await s.api('POST', `/dashboards/${d.id}/widgets`, {
      token: agentA.token,
      body: { kind: 'queue_counts', title: 'last' },
    });
    expect(last.status).toBe(201);
    expect(last.body.position).toBeGreaterThan(30);
    const again = await s.api('GET', `/dashboards/${d.id}`, { token: agentA.token });
    expect(again.body.widgets.map((w: { title: string }) => w.title)).toEqual(['first', 'second', 'third', 'last']);
  });

  it("PATCH a widget's title and position reorders the dashboard", async () => {
    const d = await createDashboard(agentA.token, {
      name: 'Patch widgets',
      widgets: [
        { kind: 'status_counts', title: 'A' },
        { kind: 'queue_counts', title: 'B' },
      ],
    });
    const [a, b] = d.widgets;
    const res = await s.api('PATCH', `/dashboards/${d.id}/widgets/${a.id}`, {
      token: agentA.token,
      body: { title: 'A moved', position: 5 },
    });
    expect(res.status, res.text).toBe(200);
    // `position` on PATCH is a place in the order: past the end means last, and the widgets are renumbered 0..n-1.
    expect(res.body).toMatchObject({
      id: a.id,
      dashboard_id: d.id,
      kind: 'status_counts',
      title: 'A moved',
      position: 1,
    });
    const got = await s.api('GET', `/dashboards/${d.id}`, { token: agentA.token });
    expect(got.body.widgets.map((w: { id: number }) => w.id)).toEqual([b.id, a.id]);
    expect(got.body.widgets[1].title).toBe('A moved');
    expect(got.body.widgets.map((w: { position: number }) => w.position)).toEqual([0, 1]);
    const back = await s.api('PATCH', `/dashboards/${d.id}/widgets/${a.id}`, {
      token: agentA.token,
      body: { position: 0 },
    });
    expect(back.body.position).toBe(0);
    const again = await s.api('GET', `/dashboards/${d.id}`, { token: agentA.token });
    expect(again.body.widgets.map((w: { id: number }) => w.id)).toEqual([a.id, b.id]);
  });

  it('PATCH a widget validates: kind, position, ticket_list needs a view', async () => {
    const d = await createDashboard(agentA.token, {
      name: 'Patch validation',
      widgets: [{ kind: 'status_counts', title: 'S' }],
    });
    const w = d.widgets[0];
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}/widgets/${w.id}`, { token: agentA.token, body: { kind: 'pie_chart' } }),
      422,
      'validation_failed',
      'kind',
    );
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}/widgets/${w.id}`, { token: agentA.token, body: { position: -3 } }),
      422,
      'validation_failed',
      'position',
    );
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}/widgets/${w.id}`, {
        token: agentA.token,
        body: { kind: 'ticket_list' },
      }),
      422,
      'validation_failed',
      'config.view_id',
    );
    const ok = await s.api('PATCH', `/dashboards/${d.id}/widgets/${w.id}`, {
      token: agentA.token,
      body: { kind: 'ticket_list', config: { view_id: viewId } },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ kind: 'ticket_list', config: { view_id: viewId }, title: 'S' });
  });

  it('DELETE a widget → 204 and it is gone', async () => {
    const d = await createDashboard(agentA.token, {
      name: 'Delete widget',
      widgets: [{ kind: 'status_counts' }, { kind: 'my_tickets' }],
    });
    const [a, b] = d.widgets;
    const del = await s.api('DELETE', `/dashboards/${d.id}/widgets/${a.id}`, { token: agentA.token });
    expect(del.status).toBe(204);
    const got = await s.api('GET', `/dashboards/${d.id}`, { token: agentA.token });
    expect(got.body.widgets.map((w: { id: number }) => w.id)).toEqual([b.id]);
    expectError(
      await s.api('DELETE', `/dashboards/${d.id}/widgets/${a.id}`, { token: agentA.token }),
      404,
      'not_found',
    );
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}/widgets/${a.id}`, { token: agentA.token, body: { title: 'x' } }),
      404,
      'not_found',
    );
  });

  it('a widget id of another dashboard → 404 on PATCH and DELETE, and it is untouched', async () => {
    const d1 = await createDashboard(agentA.token, {
      name: 'Owner of widget',
      widgets: [{ kind: 'status_counts', title: 'keep' }],
    });
    const d2 = await createDashboard(agentA.token, { name: 'Other dashboard' });
    const w = d1.widgets[0];
    expectError(
      await s.api('PATCH', `/dashboards/${d2.id}/widgets/${w.id}`, { token: agentA.token, body: { title: 'hijack' } }),
      404,
      'not_found',
    );
    expectError(
      await s.api('DELETE', `/dashboards/${d2.id}/widgets/${w.id}`, { token: agentA.token }),
      404,
      'not_found',
    );
    const got = await s.api('GET', `/dashboards/${d1.id}`, { token: agentA.token });
    expect(got.body.widgets).toHaveLength(1);
    expect(got.body.widgets[0].title).toBe('keep');
  });

  it('unknown and malformed widget ids → 404', async () => {
    const d = await createDashboard(agentA.token, { name: 'Widget ids' });
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}/widgets/999999`, { token: agentA.token, body: { title: 'x' } }),
      404,
      'not_found',
    );
    expectError(await s.api('DELETE', `/dashboards/${d.id}/widgets/abc`, { token: agentA.token }), 404, 'not_found');
    expectError(await s.api('DELETE', `/dashboards/${d.id}/widgets/1.5`, { token: agentA.token }), 404, 'not_found');
  });

  it('PATCH /dashboards/:id renames; DELETE → 204 then 404; deleting removes widgets', async () => {
    const d = await createDashboard(agentA.token, { name: 'Rename me', widgets: [{ kind: 'my_tickets' }] });
    const res = await s.api('PATCH', `/dashboards/${d.id}`, { token: agentA.token, body: { name: 'Renamed' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: d.id, name: 'Renamed', team_id: null });
    expect(res.body.widgets).toHaveLength(1);
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}`, { token: agentA.token, body: { widgets: [] } }),
      422,
      'validation_failed',
      'widgets',
    );
    expect((await s.api('DELETE', `/dashboards/${d.id}`, { token: agentA.token })).status).toBe(204);
    expectError(await s.api('GET', `/dashboards/${d.id}`, { token: agentA.token }), 404, 'not_found');
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}/widgets/${d.widgets[0].id}`, {
        token: agentA.token,
        body: { title: 'x' },
      }),
      404,
      'not_found',
    );
    expectError(await s.api('DELETE', `/dashboards/${d.id}`, { token: agentA.token }), 404, 'not_found');
  });

  it('unknown dashboard ids → 404', async () => {
    for (const p of ['/dashboards/999999', '/dashboards/abc', '/dashboards/0', '/dashboards/-2']) {
      expectError(await s.api('GET', p, { token: agentA.token }), 404, 'not_found');
    }
    expectError(
      await s.api('PATCH', '/dashboards/999999', { token: agentA.token, body: { name: 'x' } }),
      404,
      'not_found',
    );
    expectError(await s.api('DELETE', '/dashboards/999999', { token: agentA.token }), 404, 'not_found');
  });
});

describe('dashboards: team visibility', () => {
  let team: number;
  let otherTeam: number;
  let member: { id: number; email: string; token: string };
  let outsider: { id: number; email: string; token: string };

  beforeAll(async () => {
    member = await s.user('agent');
    outsider = await s.user('agent');
    team = await createTeam('Visibility team', [member.id]);
    otherTeam = await createTeam('Visibility other team', [outsider.id]);
  });

  it('a dashboard without a team is visible to every agent', async () => {
    const d = await createDashboard(member.token, { name: 'For everyone' });
    for (const token of [member.token, outsider.token, agentB.token, s.adminToken]) {
      expect(await listIds('/dashboards', 'dashboards', token)).toContain(d.id);
      expect((await s.api('GET', `/dashboards/${d.id}`, { token })).status).toBe(200);
    }
  });

  it('a team dashboard is visible to its members and admins only', async () => {
    const d = await createDashboard(member.token, {
      name: 'Team only',
      team_id: team,
      widgets: [{ kind: 'team_workload' }],
    });
    expect(await listIds('/dashboards', 'dashboards', member.token)).toContain(d.id);
    expect(await listIds('/dashboards', 'dashboards', s.adminToken)).toContain(d.id);
    expect((await s.api('GET', `/dashboards/${d.id}`, { token: member.token })).status).toBe(200);
    expect((await s.api('GET', `/dashboards/${d.id}`)).status).toBe(200);

    expect(await listIds('/dashboards', 'dashboards', outsider.token)).not.toContain(d.id);
    expectError(await s.api('GET', `/dashboards/${d.id}`, { token: outsider.token }), 404, 'not_found');
  });

  it('a non-member cannot change, delete or add widgets to a team dashboard (404)', async () => {
    const d = await createDashboard(member.token, {
      name: 'Hidden changes',
      team_id: team,
      widgets: [{ kind: 'status_counts', title: 'w' }],
    });
    const w = d.widgets[0];
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}`, { token: outsider.token, body: { name: 'pwned' } }),
      404,
      'not_found',
    );
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}`, { token: outsider.token, body: { team_id: null } }),
      404,
      'not_found',
    );
    expectError(await s.api('DELETE', `/dashboards/${d.id}`, { token: outsider.token }), 404, 'not_found');
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, { token: outsider.token, body: { kind: 'my_tickets' } }),
      404,
      'not_found',
    );
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}/widgets/${w.id}`, { token: outsider.token, body: { title: 'x' } }),
      404,
      'not_found',
    );
    expectError(
      await s.api('DELETE', `/dashboards/${d.id}/widgets/${w.id}`, { token: outsider.token }),
      404,
      'not_found',
    );
    const got = await s.api('GET', `/dashboards/${d.id}`, { token: member.token });
    expect(got.body).toMatchObject({ name: 'Hidden changes', team_id: team });
    expect(got.body.widgets).toHaveLength(1);
    expect(got.body.widgets[0].title).toBe('w');
  });

  it('PATCH team_id assigns and unassigns (null), changing visibility', async () => {
    const d = await createDashboard(member.token, { name: 'Moving' });
    expect(await listIds('/dashboards', 'dashboards', outsider.token)).toContain(d.id);

    const assign = await s.api('PATCH', `/dashboards/${d.id}`, { token: member.token, body: { team_id: team } });
    expect(assign.status, assign.text).toBe(200);
    expect(assign.body.team_id).toBe(team);
    expect(await listIds('/dashboards', 'dashboards', outsider.token)).not.toContain(d.id);
    expectError(await s.api('GET', `/dashboards/${d.id}`, { token: outsider.token }), 404, 'not_found');
    expect((await s.api('GET', `/dashboards/${d.id}`, { token: member.token })).body.team_id).toBe(team);

    const unassign = await s.api('PATCH', `/dashboards/${d.id}`, { token: member.token, body: { team_id: null } });
    expect(unassign.status, unassign.text).toBe(200);
    expect(unassign.body.team_id).toBeNull();
    expect(await listIds('/dashboards', 'dashboards', outsider.token)).toContain(d.id);
    const seen = await s.api('GET', `/dashboards/${d.id}`, { token: outsider.token });
    expect(seen.status).toBe(200);
    expect(seen.body.team_id).toBeNull();
  });

  it('a PATCH without team_id leaves the team alone', async () => {
    const d = await createDashboard(member.token, { name: 'Keep team', team_id: team });
    const res = await s.api('PATCH', `/dashboards/${d.id}`, { token: member.token, body: { name: 'Kept team' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.team_id).toBe(team);
  });

  it('an agent may assign only a team they belong to (403), on create and update', async () => {
    expectError(
      await s.api('POST', '/dashboards', { token: member.token, body: { name: 'Not mine', team_id: otherTeam } }),
      403,
      'forbidden',
    );
    const d = await createDashboard(member.token, { name: 'Try other team' });
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}`, { token: member.token, body: { team_id: otherTeam } }),
      403,
      'forbidden',
    );
    const got = await s.api('GET', `/dashboards/${d.id}`, { token: member.token });
    expect(got.body.team_id).toBeNull();
  });

  it('an admin may assign any team, and reassign between teams', async () => {
    const d = await createDashboard(member.token, { name: 'Admin moves' });
    const res = await s.api('PATCH', `/dashboards/${d.id}`, { body: { team_id: otherTeam } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.team_id).toBe(otherTeam);
    expect(await listIds('/dashboards', 'dashboards', member.token)).not.toContain(d.id);
    expect(await listIds('/dashboards', 'dashboards', outsider.token)).toContain(d.id);
    const created = await s.api('POST', '/dashboards', { body: { name: 'Admin team board', team_id: team } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.team_id).toBe(team);
  });

  it('an unknown team → 422 at team_id on PATCH', async () => {
    const d = await createDashboard(member.token, { name: 'Unknown team' });
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}`, { token: member.token, body: { team_id: 999_999 } }),
      422,
      'validation_failed',
      'team_id',
    );
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}`, { body: { team_id: 999_999 } }),
      422,
      'validation_failed',
      'team_id',
    );
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}`, { body: { team_id: -1 } }),
      422,
      'validation_failed',
      'team_id',
    );
    expect((await s.api('GET', `/dashboards/${d.id}`)).body.team_id).toBeNull();
  });

  it('leaving the team hides the dashboard from the former member', async () => {
    const leaver = await s.user('agent');
    const t = await createTeam('Leavers team', [leaver.id]);
    const d = await createDashboard(leaver.token, { name: 'Leaver board', team_id: t });
    expect((await s.api('GET', `/dashboards/${d.id}`, { token: leaver.token })).status).toBe(200);
    expect((await s.api('DELETE', `/teams/${t}/members/${leaver.id}`)).status).toBe(204);
    expectError(await s.api('GET', `/dashboards/${d.id}`, { token: leaver.token }), 404, 'not_found');
  });

  it("deleting the team sets the dashboard's team_id to null (visible to all again)", async () => {
    const t = await createTeam('Doomed team', [member.id]);
    const d = await createDashboard(member.token, { name: 'Orphan', team_id: t });
    expectError(await s.api('GET', `/dashboards/${d.id}`, { token: outsider.token }), 404, 'not_found');
    const del = await s.api('DELETE', `/teams/${t}`);
    expect(del.status, del.text).toBe(204);
    const got = await s.api('GET', `/dashboards/${d.id}`, { token: outsider.token });
    expect(got.status, got.text).toBe(200);
    expect(got.body.team_id).toBeNull();
    expect(await listIds('/dashboards', 'dashboards', outsider.token)).toContain(d.id);
  });

  it('a requester gets 403 on dashboards', async () => {
    const d = await createDashboard(member.token, { name: 'Not for requesters' });
    expectError(await s.api('GET', '/dashboards', { token: requester.token }), 403, 'forbidden');
    expectError(
      await s.api('POST', '/dashboards', { token: requester.token, body: { name: 'req' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('GET', `/dashboards/${d.id}`, { token: requester.token }), 403, 'forbidden');
    expectError(
      await s.api('PATCH', `/dashboards/${d.id}`, { token: requester.token, body: { name: 'req' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('DELETE', `/dashboards/${d.id}`, { token: requester.token }), 403, 'forbidden');
    expectError(
      await s.api('POST', `/dashboards/${d.id}/widgets`, { token: requester.token, body: { kind: 'my_tickets' } }),
      403,
      'forbidden',
    );
    expect((await s.api('GET', `/dashboards/${d.id}`, { token: member.token })).body.name).toBe('Not for requesters');
  });

  it('dashboards require authentication', async () => {
    expectError(await s.api('GET', '/dashboards', { token: null }), 401, 'unauthenticated');
  });
});
