import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { rawCount } from './helpers/db.js';
import { expectError } from './helpers/expect.js';
import { ADMIN_EMAIL, startServer, type TestServer } from './helpers/server.js';
import { uniq } from './helpers/unique.js';

/** The server's time, moved by the tests (a later change gets a later stamp without waiting). */
const clock = testClock();
let s: TestServer;
let agent: { id: number; email: string; token: string };
let requester: { id: number; email: string; token: string };
beforeAll(async () => {
  s = await startServer({}, { clock });
  agent = await s.user('agent');
  requester = await s.user('requester');
});
afterAll(async () => {
  await s.close();
});

const USER_KEYS = ['blocked', 'created_at', 'disabled', 'email', 'id', 'name', 'role', 'updated_at'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function createUser(body: Record<string, unknown> = {}) {
  const res = await s.api('POST', '/users', { body: { email: `${uniq('u')}@example.com`, name: 'Someone', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; email: string; name: string; role: string; disabled: boolean };
}
async function createTeam(body: Record<string, unknown> = {}) {
  const res = await s.api('POST', '/teams', { body: { name: uniq('Team'), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; name: string; description: string; members: number[] };
}
async function createQueue(body: Record<string, unknown> = {}) {
  const res = await s.api('POST', '/queues', { body: { name: uniq('Queue'), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; name: string; mail_alias: string | null; team_id: number | null };
}

describe('users', () => {
  it('the last active admin cannot be disabled, demoted or deleted', async () => {
    const admins = await s.api('GET', '/users?role=admin&disabled=false');
    expect(admins.status).toBe(200);
    expect(admins.body.users.map((u: { email: string }) => u.email)).toEqual([ADMIN_EMAIL]);
    const me = admins.body.users[0];

    expectError(
      await s.api('PATCH', `/users/${me.id}`, { body: { disabled: true } }),
      422,
      'validation_failed',
      'disabled',
    );
    expectError(await s.api('PATCH', `/users/${me.id}`, { body: { role: 'agent' } }), 422, 'validation_failed', 'role');
    expectError(await s.api('DELETE', `/users/${me.id}`), 409, 'conflict');
    const still = await s.api('GET', `/users/${me.id}`);
    expect(still.body).toMatchObject({ role: 'admin', disabled: false });

    // A second active admin may be disabled (one remains); then the first is the last again.
    const second = await createUser({ role: 'admin' });
    const disabled = await s.api('PATCH', `/users/${second.id}`, { body: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabled).toBe(true);
    expectError(await s.api('DELETE', `/users/${me.id}`), 409, 'conflict');
    expectError(
      await s.api('PATCH', `/users/${me.id}`, { body: { disabled: 'true' } }),
      422,
      'validation_failed',
      'disabled',
    );
  });

  it('POST /users → 201 with exactly the public fields, never the password', async () => {
    const res = await s.api('POST', '/users', {
      body: { email: 'new.agent@example.com', name: 'New Agent', role: 'agent', password: 'twelve-chars-ok' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(USER_KEYS);
    expect(res.body).toMatchObject({
      email: 'new.agent@example.com',
      name: 'New Agent',
      role: 'agent',
      disabled: false,
    });
    expect(res.body.id).toEqual(expect.any(Number));
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);
    expect(res.text).not.toContain('twelve-chars-ok');
    expect(res.text).not.toContain('password');

    const one = await s.api('GET', `/users/${res.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
  });

  it('defaults the role to agent', async () => {
    const res = await s.api('POST', '/users', { body: { email: `${uniq('default')}@example.com` } });
    expect(res.status).toBe(201);
    expect(res.body.role).toBe('agent');
    expect(res.body.disabled).toBe(false);
  });

  it('accepts a form body validated by the same schema', async () => {
    const res = await s.api('POST', '/users', {
      form: { email: 'Form.User@Example.com', name: 'Form User', role: 'requester', disabled: 'on' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'form.user@example.com', role: 'requester', disabled: true });
  });

  it('stores the e-mail lower-case and keeps it unique case-insensitively (409 conflict)', async () => {
    const res = await s.api('POST', '/users', { body: { email: '  Mixed.Case@Example.COM ', name: 'Mixed' } });
    expect(res.status).toBe(201);
    expect(res.body.email).toBe('mixed.case@example.com');
    expectError(await s.api('POST', '/users', { body: { email: 'MIXED.CASE@example.com' } }), 409, 'conflict');
    expectError(await s.api('POST', '/users', { body: { email: 'mixed.case@example.com' } }), 409, 'conflict');

    // Renaming another user onto the address (any case) is a conflict too.
    const other = await createUser();
    expectError(
      await s.api('PATCH', `/users/${other.id}`, { body: { email: 'Mixed.Case@example.com' } }),
      409,
      'conflict',
    );
    // Re-casing one's own address is not a conflict.
    const self = await s.api('PATCH', `/users/${res.body.id}`, { body: { email: 'MIXED.case@example.com' } });
    expect(self.status).toBe(200);
    expect(self.body.email).toBe('mixed.case@example.com');
  });

  it('a password shorter than 12 characters is 422 naming `password`', async () => {
    const res = await s.api('POST', '/users', {
      body: { email: `${uniq('short')}@example.com`, password: 'elevenchars' },
    });
    expectError(res, 422, 'validation_failed', 'password');
    expect(res.text).not.toContain('elevenchars');
    const created = await createUser();
    expectError(
      await s.api('PATCH', `/users/${created.id}`, { body: { password: 'short' } }),
      422,
      'validation_failed',
      'password',
    );
  });

  it.each(['not-an-email', 'a@', '@example.com', ''])('a bad e-mail (%j) is 422 naming `email`', async (email) => {
    expectError(await s.api('POST', '/users', { body: { email } }), 422, 'validation_failed', 'email');
  });

  it('a missing e-mail is 422 naming `email`', async () => {
    expectError(await s.api('POST', '/users', { body: { name: 'No Mail' } }), 422, 'validation_failed', 'email');
  });

  it('an unknown role is 422 naming `role`', async () => {
    expectError(
      await s.api('POST', '/users', { body: { email: `${uniq('r')}@example.com`, role: 'superuser' } }),
      422,
      'validation_failed',
      'role',
    );
  });

  it('an unknown field is 422 naming that field', async () => {
    const res = await s.api('POST', '/users', { body: { email: `${uniq('x')}@example.com`, is_admin: true } });
    expectError(res, 422, 'validation_failed', 'is_admin');
    const u = await createUser();
    expectError(
      await s.api('PATCH', `/users/${u.id}`, { body: { password_hash: 'scrypt$x' } }),
      422,
      'validation_failed',
      'password_hash',
    );
  });

  it('GET /users lists users as { users: [...] } without secrets; filters by role', async () => {
    const u = await createUser({ role: 'requester', password: 'requester-password' });
    const res = await s.api('GET', '/users');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.users)).toBe(true);
    expect(res.body.users.some((x: { id: number }) => x.id === u.id)).toBe(true);
    for (const x of res.body.users) expect(Object.keys(x).sort()).toEqual(USER_KEYS);
    expect(res.text).not.toMatch(/password|scrypt\$/);

    const requesters = await s.api('GET', '/users?role=requester');
    expect(requesters.status).toBe(200);
    expect(requesters.body.users.length).toBeGreaterThan(0);
    expect(requesters.body.users.every((x: { role: string }) => x.role === 'requester')).toBe(true);
    expectError(await s.api('GET', '/users?role=wizard'), 422, 'validation_failed', 'role');
  });

  it('agents can read users', async () => {
    const list = await s.api('GET', '/users', { token: agent.token });
    expect(list.status).toBe(200);
    const one = await s.api('GET', `/users/${agent.id}`, { token: agent.token });
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(agent.id);
  });

  it('PATCH /users/:id updates name, role and password; updated_at moves', async () => {
    const u = await createUser({ name: 'Before' });
    clock.advance(1000);
    const res = await s.api('PATCH', `/users/${u.id}`, {
      body: { name: 'After', role: 'requester', password: 'a-new-long-password' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: u.id, name: 'After', role: 'requester', email: u.email });
    expect(Object.keys(res.body).sort()).toEqual(USER_KEYS);
    expect(res.body.updated_at).toBe(new Date(clock.now()).toISOString());
    expect(res.body.updated_at > (u as unknown as { updated_at: string }).updated_at).toBe(true);
    const login = await s.api('POST', '/login', {
      token: null,
      body: { email: u.email, password: 'a-new-long-password' },
    });
    expect(login.status).toBe(200);
    const again = await s.api('GET', `/users/${u.id}`);
    expect(again.body.name).toBe('After');
  });

  it('PATCH with password: null removes the password (no sign-in)', async () => {
    const u = await createUser({ password: 'temporary-password' });
    expect(
      (await s.api('POST', '/login', { token: null, body: { email: u.email, password: 'temporary-password' } })).status,
    ).toBe(200);
    const res = await s.api('PATCH', `/users/${u.id}`, { body: { password: null } });
    expect(res.status).toBe(200);
    const login = await s.api('POST', '/login', {
      token: null,
      body: { email: u.email, password: 'temporary-password' },
    });
    expectError(login, 401, 'unauthenticated');
  });

  it('DELETE /users/:id → 204: the user is disabled and removed from teams, and still readable', async () => {
    const u = await createUser({ role: 'agent' });
    const team = await createTeam();
    expect((await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: u.id } })).status).toBe(201);
    expect((await s.api('GET', `/teams/${team.id}`)).body.members).toContain(u.id);

    const del = await s.api('DELETE', `/users/${u.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');

    const after = await s.api('GET', `/users/${u.id}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ id: u.id, email: u.email, disabled: true });
    expect((await s.api('GET', `/teams/${team.id}`)).body.members).not.toContain(u.id);
    const listed = (await s.api('GET', '/users')).body.users.find((x: { id: number }) => x.id === u.id);
    expect(listed).toMatchObject({ disabled: true });
    const disabledOnly = await s.api('GET', '/users?disabled=true');
    expect(disabledOnly.body.users.some((x: { id: number }) => x.id === u.id)).toBe(true);
  });

  it("a deleted user's API token stops working", async () => {
    const victim = await s.user('agent');
    expect((await s.api('GET', '/me', { token: victim.token })).status).toBe(200);
    expect((await s.api('DELETE', `/users/${victim.id}`)).status).toBe(204);
    expectError(await s.api('GET', '/me', { token: victim.token }), 401, 'unauthenticated');
  });

  it.each(['999999', 'abc', '0', '1.5', '-3'])('unknown or malformed id %s → 404 not_found (never 500)', async (id) => {
    expectError(await s.api('GET', `/users/${id}`), 404, 'not_found');
    expectError(await s.api('PATCH', `/users/${id}`, { body: { name: 'x' } }), 404, 'not_found');
    expectError(await s.api('DELETE', `/users/${id}`), 404, 'not_found');
  });

  it('agents get 403 forbidden on POST, PATCH and DELETE', async () => {
    const target = await createUser();
    expectError(
      await s.api('POST', '/users', { token: agent.token, body: { email: `${uniq('a')}@example.com` } }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('PATCH', `/users/${target.id}`, { token: agent.token, body: { name: 'Hacked' } }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('PATCH', `/users/${agent.id}`, { token: agent.token, body: { role: 'admin' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('DELETE', `/users/${target.id}`, { token: agent.token }), 403, 'forbidden');
    const unchanged = await s.api('GET', `/users/${target.id}`);
    expect(unchanged.body).toMatchObject({ name: target.name, disabled: false });
    expect((await s.api('GET', `/users/${agent.id}`)).body.role).toBe('agent');
  });

  it('requesters get 403 forbidden on GET /users and GET /users/:id', async () => {
    expectError(await s.api('GET', '/users', { token: requester.token }), 403, 'forbidden');
    expectError(await s.api('GET', `/users/${agent.id}`, { token: requester.token }), 403, 'forbidden');
    expectError(
      await s.api('POST', '/users', { token: requester.token, body: { email: `${uniq('q')}@example.com` } }),
      403,
      'forbidden',
    );
  });
});

describe('teams', () => {
  it('GET /teams → 200 { teams: [...] }', async () => {
    const t = await createTeam({ description: 'Listed' });
    const res = await s.api('GET', '/teams');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.teams)).toBe(true);
    expect(res.body.teams.find((x: { id: number }) => x.id === t.id)).toMatchObject({
      name: t.name,
      description: 'Listed',
    });
  });

  it('POST /teams → 201 with id, name, description, members, timestamps; the name is unique (409)', async () => {
    const name = uniq('Support');
    const res = await s.api('POST', '/teams', { body: { name, description: 'First line' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.any(Number), name, description: 'First line', members: [] });
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);
    expectError(await s.api('POST', '/teams', { body: { name } }), 409, 'conflict');
  });

  it('a team needs a name (422 naming `name`) and rejects unknown fields', async () => {
    expectError(await s.api('POST', '/teams', { body: { description: 'nameless' } }), 422, 'validation_failed', 'name');
    expectError(await s.api('POST', '/teams', { body: { name: '  ' } }), 422, 'validation_failed', 'name');
    expectError(
      await s.api('POST', '/teams', { body: { name: uniq('T'), colour: 'red' } }),
      422,
      'validation_failed',
      'colour',
    );
  });

  it("PATCH /teams/:id updates; renaming onto another team's name is 409", async () => {
    const a = await createTeam();
    const b = await createTeam();
    const res = await s.api('PATCH', `/teams/${a.id}`, { body: { description: 'Updated' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.id, name: a.name, description: 'Updated' });
    const renamed = await s.api('PATCH', `/teams/${a.id}`, { body: { name: `${a.name}-renamed` } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe(`${a.name}-renamed`);
    expect((await s.api('PATCH', `/teams/${a.id}`, { body: { name: `${a.name}-renamed` } })).status).toBe(200);
    expectError(await s.api('PATCH', `/teams/${a.id}`, { body: { name: b.name } }), 409, 'conflict');
    expect((await s.api('GET', `/teams/${a.id}`)).body.name).toBe(`${a.name}-renamed`);
  });

  it('unknown team ids are 404 on GET, PATCH, DELETE and membership routes', async () => {
    for (const id of ['999999', 'abc']) {
      expectError(await s.api('GET', `/teams/${id}`), 404, 'not_found');
      expectError(await s.api('PATCH', `/teams/${id}`, { body: { description: 'x' } }), 404, 'not_found');
      expectError(await s.api('DELETE', `/teams/${id}`), 404, 'not_found');
      expectError(await s.api('POST', `/teams/${id}/members`, { body: { user_id: agent.id } }), 404, 'not_found');
      expectError(await s.api('DELETE', `/teams/${id}/members/${agent.id}`), 404, 'not_found');
    }
  });

  it('members: add → 201, GET shows the ids, duplicate → 409, remove → 204, again → 404', async () => {
    const team = await createTeam();
    const u1 = await createUser();
    const u2 = await createUser();
    const add = await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: u1.id } });
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({ team_id: team.id, user_id: u1.id });
    // user_id as a form string works too.
    expect((await s.api('POST', `/teams/${team.id}/members`, { form: { user_id: String(u2.id) } })).status).toBe(201);

    const got = await s.api('GET', `/teams/${team.id}`);
    expect(got.status).toBe(200);
    expect([...got.body.members].sort((a: number, b: number) => a - b)).toEqual([u1.id, u2.id].sort((a, b) => a - b));

    expectError(await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: u1.id } }), 409, 'conflict');

    const del = await s.api('DELETE', `/teams/${team.id}/members/${u1.id}`);
    expect(del.status).toBe(204);
    expect((await s.api('GET', `/teams/${team.id}`)).body.members).toEqual([u2.id]);
    expectError(await s.api('DELETE', `/teams/${team.id}/members/${u1.id}`), 404, 'not_found');
    expectError(await s.api('DELETE', `/teams/${team.id}/members/abc`), 404, 'not_found');
  });

  it('adding an unknown user is 422 naming `user_id`; a missing or malformed user_id too', async () => {
    const team = await createTeam();
    expectError(
      await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: 999999 } }),
      422,
      'validation_failed',
      'user_id',
    );
    expectError(await s.api('POST', `/teams/${team.id}/members`, { body: {} }), 422, 'validation_failed', 'user_id');
    expectError(
      await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: 'abc' } }),
      422,
      'validation_failed',
      'user_id',
    );
    expect((await s.api('GET', `/teams/${team.id}`)).body.members).toEqual([]);
  });

  it('agents may read teams (200) but get 403 on create, update, delete and membership', async () => {
    const team = await createTeam();
    const list = await s.api('GET', '/teams', { token: agent.token });
    expect(list.status).toBe(200);
    expect(list.body.teams.some((t: { id: number }) => t.id === team.id)).toBe(true);
    const one = await s.api('GET', `/teams/${team.id}`, { token: agent.token });
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(team.id);

    expectError(
      await s.api('POST', '/teams', { token: agent.token, body: { name: uniq('AgentTeam') } }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('PATCH', `/teams/${team.id}`, { token: agent.token, body: { name: 'Taken over' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('DELETE', `/teams/${team.id}`, { token: agent.token }), 403, 'forbidden');
    expectError(
      await s.api('POST', `/teams/${team.id}/members`, { token: agent.token, body: { user_id: agent.id } }),
      403,
      'forbidden',
    );
    expect((await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: agent.id } })).status).toBe(201);
    expectError(
      await s.api('DELETE', `/teams/${team.id}/members/${agent.id}`, { token: agent.token }),
      403,
      'forbidden',
    );
    const after = await s.api('GET', `/teams/${team.id}`);
    expect(after.body).toMatchObject({ name: team.name, members: [agent.id] });
  });

  it('requesters cannot read teams (403)', async () => {
    expectError(await s.api('GET', '/teams', { token: requester.token }), 403, 'forbidden');
  });

  it('DELETE /teams/:id → 204 and clears team_id on queues, tickets and dashboards', async () => {
    const team = await createTeam();
    const keep = await createTeam();
    const member = await createUser();
    expect((await s.api('POST', `/teams/${team.id}/members`, { body: { user_id: member.id } })).status).toBe(201);
    const queue = await createQueue({ team_id: team.id });
    expect(queue.team_id).toBe(team.id);
    const otherQueue = await createQueue({ team_id: keep.id });

    const ticket = await s.api('POST', '/tickets', { body: { queue_id: queue.id, subject: 'Team ticket' } });
    expect(ticket.status, ticket.text).toBe(201);
    expect(ticket.body.ticket.team_id).toBe(team.id); // defaulted from the queue
    const explicit = await s.api('POST', '/tickets', {
      body: { queue_id: otherQueue.id, subject: 'Explicit team', team_id: team.id },
    });
    expect(explicit.status, explicit.text).toBe(201);
    expect(explicit.body.ticket.team_id).toBe(team.id);
    const untouched = await s.api('POST', '/tickets', { body: { queue_id: otherQueue.id, subject: 'Other team' } });
    expect(untouched.body.ticket.team_id).toBe(keep.id);

    const dash = await s.api('POST', '/dashboards', { body: { name: uniq('Dash'), team_id: team.id } });
    expect(dash.status, dash.text).toBe(201);
    expect(dash.body.team_id).toBe(team.id);

    const del = await s.api('DELETE', `/teams/${team.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');

    expectError(await s.api('GET', `/teams/${team.id}`), 404, 'not_found');
    expect((await s.api('GET', '/teams')).body.teams.some((t: { id: number }) => t.id === team.id)).toBe(false);
    expect((await s.api('GET', `/queues/${queue.id}`)).body.team_id).toBeNull();
    expect((await s.api('GET', `/queues/${otherQueue.id}`)).body.team_id).toBe(keep.id);
    const t1 = await s.api('GET', `/tickets/${ticket.body.ticket.id}`);
    expect(t1.status).toBe(200);
    expect(t1.body.team_id).toBeNull();
    expect((await s.api('GET', `/tickets/${explicit.body.ticket.id}`)).body.team_id).toBeNull();
    expect((await s.api('GET', `/tickets/${untouched.body.ticket.id}`)).body.team_id).toBe(keep.id);
    const d = await s.api('GET', `/dashboards/${dash.body.id}`);
    expect(d.status).toBe(200);
    expect(d.body.team_id).toBeNull();
    expect(await rawCount(s, 'team_members', 'team_id = ?', [team.id])).toBe(0);
    // The user survives the team.
    expect((await s.api('GET', `/users/${member.id}`)).body.disabled).toBe(false);
  });
});

describe('queues', () => {
  it('GET /queues → 200 { queues: [...] } including the seeded General queue; readable by agents', async () => {
    const res = await s.api('GET', '/queues');
    expect(res.status).toBe(200);
    expect(res.body.queues.some((q: { name: string }) => q.name === 'General')).toBe(true);
    const asAgent = await s.api('GET', '/queues', { token: agent.token });
    expect(asAgent.status).toBe(200);
  });

  it('POST /queues → 201 with team_id and mail_alias (stored lower-case)', async () => {
    const team = await createTeam();
    const name = uniq('Support');
    const res = await s.api('POST', '/queues', {
      body: { name, description: 'Help', team_id: team.id, mail_alias: ' Support-Desk@Example.COM ' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      name,
      description: 'Help',
      team_id: team.id,
      mail_alias: 'support-desk@example.com',
    });
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);
    const got = await s.api('GET', `/queues/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('defaults: no team, no alias, empty description', async () => {
    const res = await s.api('POST', '/queues', { body: { name: uniq('Plain') } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ team_id: null, mail_alias: null, description: '' });
  });

  it('a duplicate name is 409 conflict', async () => {
    const q = await createQueue();
    expectError(await s.api('POST', '/queues', { body: { name: q.name } }), 409, 'conflict');
    expectError(await s.api('POST', '/queues', { body: { name: 'General' } }), 409, 'conflict');
  });

  it('a duplicate mail alias in a different case is 409 conflict', async () => {
    await createQueue({ mail_alias: 'billing@example.com' });
    expectError(
      await s.api('POST', '/queues', { body: { name: uniq('Billing2'), mail_alias: 'BILLING@Example.com' } }),
      409,
      'conflict',
    );
    const other = await createQueue();
    expectError(
      await s.api('PATCH', `/queues/${other.id}`, { body: { mail_alias: 'Billing@EXAMPLE.com' } }),
      409,
      'conflict',
    );
  });

  it('a team_id of a missing team is 422 naming `team_id`', async () => {
    expectError(
      await s.api('POST', '/queues', { body: { name: uniq('Orphan'), team_id: 999999 } }),
      422,
      'validation_failed',
      'team_id',
    );
    const q = await createQueue();
    expectError(
      await s.api('PATCH', `/queues/${q.id}`, { body: { team_id: 999999 } }),
      422,
      'validation_failed',
      'team_id',
    );
    expectError(
      await s.api('POST', '/queues', { body: { name: uniq('Orphan'), team_id: 'abc' } }),
      422,
      'validation_failed',
      'team_id',
    );
  });

  it('a bad mail alias is 422 naming `mail_alias`; an unknown field is 422 naming it', async () => {
    expectError(
      await s.api('POST', '/queues', { body: { name: uniq('Bad'), mail_alias: 'not an address' } }),
      422,
      'validation_failed',
      'mail_alias',
    );
    expectError(
      await s.api('POST', '/queues', { body: { name: uniq('Bad'), owner: 1 } }),
      422,
      'validation_failed',
      'owner',
    );
    expectError(await s.api('POST', '/queues', { body: {} }), 422, 'validation_failed', 'name');
  });

  it('PATCH /queues/:id updates name, description, team and alias; null/empty clears them', async () => {
    const team = await createTeam();
    const q = await createQueue({ mail_alias: 'patch-me@example.com' });
    const res = await s.api('PATCH', `/queues/${q.id}`, {
      body: { name: `${q.name}-new`, description: 'New', team_id: team.id, mail_alias: 'Patched@Example.com' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: q.id,
      name: `${q.name}-new`,
      description: 'New',
      team_id: team.id,
      mail_alias: 'patched@example.com',
    });
    // Keeping its own alias (in another case) is not a conflict.
    const same = await s.api('PATCH', `/queues/${q.id}`, {
      body: { mail_alias: 'PATCHED@example.com', name: `${q.name}-new` },
    });
    expect(same.status).toBe(200);
    expect(same.body.mail_alias).toBe('patched@example.com');

    const cleared = await s.api('PATCH', `/queues/${q.id}`, { body: { team_id: null, mail_alias: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ team_id: null, mail_alias: null, name: `${q.name}-new` });
    const viaForm = await s.api('PATCH', `/queues/${q.id}`, { form: { mail_alias: '', team_id: '' } });
    expect(viaForm.status).toBe(200);
    expect(viaForm.body).toMatchObject({ team_id: null, mail_alias: null });
    // The freed alias can be taken by another queue.
    await createQueue({ mail_alias: 'patched@example.com' });

    const other = await createQueue();
    expectError(await s.api('PATCH', `/queues/${q.id}`, { body: { name: other.name } }), 409, 'conflict');
  });

  it('DELETE /queues/:id → 204 when empty; 409 while a ticket uses it', async () => {
    const empty = await createQueue();
    const del = await s.api('DELETE', `/queues/${empty.id}`);
    expect(del.status).toBe(204);
    expectError(await s.api('GET', `/queues/${empty.id}`), 404, 'not_found');
    expectError(await s.api('DELETE', `/queues/${empty.id}`), 404, 'not_found');

    const busy = await createQueue();
    const ticket = await s.api('POST', '/tickets', { body: { queue_id: busy.id, subject: 'Keeps the queue' } });
    expect(ticket.status, ticket.text).toBe(201);
    expectError(await s.api('DELETE', `/queues/${busy.id}`), 409, 'conflict');
    const still = await s.api('GET', `/queues/${busy.id}`);
    expect(still.status).toBe(200);
    expect((await s.api('GET', `/tickets/${ticket.body.ticket.id}`)).body.queue_id).toBe(busy.id);
  });

  it.each(['999999', 'abc'])('unknown queue id %s → 404 not_found', async (id) => {
    expectError(await s.api('GET', `/queues/${id}`), 404, 'not_found');
    expectError(await s.api('PATCH', `/queues/${id}`, { body: { description: 'x' } }), 404, 'not_found');
    expectError(await s.api('DELETE', `/queues/${id}`), 404, 'not_found');
  });

  it('agents get 403 forbidden on POST, PATCH and DELETE', async () => {
    const q = await createQueue();
    expectError(
      await s.api('POST', '/queues', { token: agent.token, body: { name: uniq('AgentQ') } }),
      403,
      'forbidden',
    );
    expectError(
      await s.api('PATCH', `/queues/${q.id}`, { token: agent.token, body: { name: 'Renamed by agent' } }),
      403,
      'forbidden',
    );
    expectError(await s.api('DELETE', `/queues/${q.id}`, { token: agent.token }), 403, 'forbidden');
    expectError(
      await s.api('POST', '/queues', { token: requester.token, body: { name: uniq('ReqQ') } }),
      403,
      'forbidden',
    );
    const after = await s.api('GET', `/queues/${q.id}`);
    expect(after.status).toBe(200);
    expect(after.body.name).toBe(q.name);
  });
});
