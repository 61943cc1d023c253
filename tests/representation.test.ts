import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC B1 (one set of routes, two representations) and B5 (errors), over real HTTP.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let teamId: number;
let ticketId: number;
let queueId: number;

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const HTMX = { 'hx-request': 'true', accept: '*/*' };

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  const team = await s.api('POST', '/teams', { body: { name: 'Representation team', description: 'desc' } });
  expect(team.status).toBe(201);
  teamId = team.body.id;
  const q = await s.api('POST', '/queues', { body: { name: 'Representation queue' } });
  expect(q.status).toBe(201);
  queueId = q.body.id;
  const t = await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'Representation ticket' } });
  expect(t.status, t.text).toBe(201);
  ticketId = t.body.ticket.id;
});
afterAll(async () => {
  await s?.close();
});

const isFullPage = (text: string) =>
  /^<!DOCTYPE html>/i.test(text.trimStart()) && text.includes('<nav') && text.includes('</html>');

describe('B1: one route, three representations', () => {
  const routes = () => [
    `/teams/${teamId}`,
    '/teams',
    `/tickets/${ticketId}`,
    '/tickets',
    '/saved-views',
    '/dashboards',
  ];

  it('JSON by default (no Accept, or Accept: application/json / */*)', async () => {
    for (const p of routes()) {
      for (const headers of [{}, { accept: 'application/json' }, { accept: '*/*' }] as Record<string, string>[]) {
        const res = await s.api('GET', p, { headers });
        expect(res.status, `${p} ${res.text}`).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(typeof res.body).toBe('object');
      }
    }
    const team = await s.api('GET', `/teams/${teamId}`);
    expect(team.body).toMatchObject({ id: teamId, name: 'Representation team', description: 'desc', members: [] });
  });

  it('a full HTML page with the layout for Accept: text/html', async () => {
    for (const p of routes()) {
      const res = await s.api('GET', p, { headers: HTML });
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(isFullPage(res.text), `${p}: ${res.text.slice(0, 200)}`).toBe(true);
      expect(res.text).toContain('<link rel="stylesheet" href="/static/app.css"');
      expect(res.text).toContain('src="/static/htmx.min.js"');
      expect(res.text).toContain('<main id="main" tabindex="-1">');
    }
    const team = await s.api('GET', `/teams/${teamId}`, { headers: HTML });
    expect(team.text).toContain('Representation team');
  });

  it('an HTML fragment without the layout for HX-Request: true', async () => {
    for (const p of routes()) {
      const res = await s.api('GET', p, { headers: HTMX });
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text.trim().length).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/<!DOCTYPE/i);
      expect(res.text).not.toContain('<html');
      expect(res.text).not.toContain('class="topbar"');
      expect(res.text).not.toMatch(/<head[\s>]/);
    }
    const team = await s.api('GET', `/teams/${teamId}`, { headers: HTMX });
    expect(team.text).toContain('Representation team');
  });

  it('HX-Request wins over Accept: application/json', async () => {
    const res = await s.api('GET', `/teams/${teamId}`, {
      headers: { 'hx-request': 'true', accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).not.toContain('<html');
  });

  it('negotiated responses say what they vary on (Vary: Accept, HX-Request), errors and redirects too', async () => {
    const responses = [
      await s.api('GET', `/teams/${teamId}`),
      await s.api('GET', `/teams/${teamId}`, { headers: HTML }),
      await s.api('GET', `/teams/${teamId}`, { headers: HTMX }),
      await s.api('GET', '/teams/999999', { headers: HTML }),
      await s.api('GET', '/teams', { token: null, headers: HTML }),
      await s.api('POST', '/teams', { body: '{' }),
    ];
    for (const res of responses) {
      const vary = (res.headers.get('vary') ?? '')
        .toLowerCase()
        .split(',')
        .map((v) => v.trim());
      expect(vary, `${res.status} ${res.text.slice(0, 80)}`).toContain('accept');
      expect(vary).toContain('hx-request');
    }
  });

  it('a create answers 201 in HTML too (htmx fragment)', async () => {
    const res = await s.api('POST', '/teams', { body: { name: 'htmx created team' }, headers: HTMX });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('htmx created team');
    expect(res.text).not.toContain('<html');
  });
});

describe('B1: form bodies are validated by the same schema as JSON', () => {
  it('POST /teams with urlencoded form data → 201 JSON', async () => {
    const res = await s.api('POST', '/teams', { form: { name: 'Form team', description: 'from a form' } });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ name: 'Form team', description: 'from a form', members: [] });
    const got = await s.api('GET', `/teams/${res.body.id}`);
    expect(got.body.name).toBe('Form team');
  });

  it('POST /teams with multipart form data → 201 JSON', async () => {
    const fd = new FormData();
    fd.append('name', 'Multipart team');
    fd.append('description', 'multi');
    const res = await fetch(`${s.url}/teams`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.adminToken}` },
      body: fd,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { name: string; description: string };
    expect(body).toMatchObject({ name: 'Multipart team', description: 'multi' });
  });

  it('a bad form gives the same 422 details as the same bad JSON', async () => {
    const cases: Record<string, string>[] = [
      { name: '' },
      { description: 'no name' },
      { name: 'Has extra', colour: 'red' },
      { name: 'x'.repeat(101) },
    ];
    for (const fields of cases) {
      const form = await s.api('POST', '/teams', { form: fields });
      const json = await s.api('POST', '/teams', { body: fields });
      expectError(form, 422, 'validation_failed');
      expectError(json, 422, 'validation_failed');
      expect(form.body.error.details.length).toBeGreaterThan(0);
      expect(form.body.error.details).toEqual(json.body.error.details);
    }
    const res = await s.api('POST', '/teams', { form: { name: 'Has extra', colour: 'red' } });
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['colour']);
  });

  it('form strings are coerced like JSON values (ids, integers, booleans)', async () => {
    const form = await s.api('POST', '/tickets', {
      form: { queue_id: String(queueId), subject: 'Form ticket', priority: '42' },
    });
    expect(form.status, form.text).toBe(201);
    expect(form.body.ticket).toMatchObject({ queue_id: queueId, subject: 'Form ticket', priority: 42 });
    const bad = await s.api('POST', '/tickets', {
      form: { queue_id: String(queueId), subject: 'Bad', priority: '101' },
    });
    const badJson = await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'Bad', priority: 101 } });
    expectError(bad, 422, 'validation_failed');
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(['priority']);
    expect(badJson.body.error.details.map((d: { path: string }) => d.path)).toEqual(['priority']);
  });

  it('a saved view from a form: repeated columns, dotted widths and filters', async () => {
    const res = await s.api('POST', '/saved-views', {
      form: {
        name: 'Form view',
        columns: ['Status', 'ID'],
        'column_widths.ID': '70',
        'filters.status': 'open',
        'filters.queue_id': String(queueId),
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Form view',
      columns: ['Status', 'ID'],
      column_widths: { ID: 70 },
      filters: { queue_id: queueId },
    });
    expect([res.body.filters.status].flat()).toEqual(['open']);
    const bad = await s.api('POST', '/saved-views', { form: { name: 'Bad form view', columns: ['ID', 'Nope'] } });
    expectError(bad, 422, 'validation_failed');
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(['columns.1']);
    const badWidth = await s.api('POST', '/saved-views', { form: { name: 'Bad width', 'column_widths.ID': '49' } });
    expectError(badWidth, 422, 'validation_failed');
    expect(badWidth.body.error.details.map((d: { path: string }) => d.path)).toEqual(['column_widths.ID']);
  });

  it('a plain HTML form POST (Accept text/html, no HX-Request) redirects 303 to the new resource', async () => {
    const res = await s.api('POST', '/teams', { form: { name: 'Redirected team' }, headers: HTML });
    expect(res.status).toBe(303);
    const location = res.headers.get('location');
    expect(location).toMatch(/^\/teams\/\d+\?saved$/); // the page says Saved (C4)
    const id = Number(new URL(location!, s.url).pathname.split('/').pop());
    const got = await s.api('GET', `/teams/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.name).toBe('Redirected team');
  });

  it('plain HTML forms: a saved view lands on its ticket list; a DELETE lands on the list', async () => {
    const res = await s.api('POST', '/saved-views', {
      form: { name: 'Form redirect view', 'filters.status': 'open' },
      headers: HTML,
    });
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/tickets\?view_id=\d+$/);
    const list = await s.api('GET', location, { headers: HTML });
    expect(list.status).toBe(200);
    expect(isFullPage(list.text)).toBe(true);
    const id = Number(location.split('=').pop());
    const del = await s.api('DELETE', `/saved-views/${id}`, { headers: HTML });
    expect(del.status).toBe(303);
    expect(del.headers.get('location')).toBe('/tickets');
    expect((await s.api('GET', `/saved-views/${id}`)).status).toBe(404);
  });

  it('htmx DELETE → 200 with an empty body; API DELETE → 204', async () => {
    const a = await s.api('POST', '/dashboards', { body: { name: 'htmx delete' } });
    const b = await s.api('POST', '/dashboards', { body: { name: 'api delete' } });
    const hx = await s.api('DELETE', `/dashboards/${a.body.id}`, { headers: HTMX });
    expect(hx.status).toBe(200);
    expect(hx.text).toBe('');
    const api = await s.api('DELETE', `/dashboards/${b.body.id}`);
    expect(api.status).toBe(204);
    expect((await s.api('GET', `/dashboards/${a.body.id}`)).status).toBe(404);
    expect((await s.api('GET', `/dashboards/${b.body.id}`)).status).toBe(404);
  });

  it("a form sends an empty team_id to unassign a dashboard's team", async () => {
    const d = await s.api('POST', '/dashboards', { form: { name: 'Form dashboard', team_id: String(teamId) } });
    expect(d.status, d.text).toBe(201);
    expect(d.body.team_id).toBe(teamId);
    const cleared = await s.api('PATCH', `/dashboards/${d.body.id}`, { form: { team_id: '' } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.team_id).toBeNull();
    const bad = await s.api('PATCH', `/dashboards/${d.body.id}`, { form: { team_id: 'abc' } });
    expectError(bad, 422, 'validation_failed');
    expect(bad.body.error.details.map((x: { path: string }) => x.path)).toEqual(['team_id']);
  });

  it('a plain HTML form POST that fails validation gets a readable 422 page, not a redirect', async () => {
    const res = await s.api('POST', '/teams', { form: { name: '' }, headers: HTML });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(isFullPage(res.text)).toBe(true);
    expect(res.text).toContain(
      '<li data-field="name" data-message="Name must not be empty">Name must not be empty</li>',
    );
  });

  it('an htmx form POST that fails validation gets a 422 fragment', async () => {
    const res = await s.api('POST', '/teams', { form: { name: '' }, headers: HTMX });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).not.toContain('<html');
    // A compact fragment for the form's error slot: the field and what is wrong with it.
    expect(res.text).toContain('class="inline-error"');
    expect(res.text).toContain('>Name must not be empty<');
  });
});

describe('B5: request-level errors', () => {
  it('invalid JSON → 400 invalid_json', async () => {
    expectError(await s.api('POST', '/teams', { body: '{"name": ' }), 400, 'invalid_json');
    expectError(await s.api('POST', '/teams', { body: 'not json at all' }), 400, 'invalid_json');
    expectError(await s.api('PATCH', `/teams/${teamId}`, { body: '{"name": "x",}' }), 400, 'invalid_json');
  });

  it('JSON with a charset parameter is accepted; a JSON non-object is a 422', async () => {
    const ok = await s.api('POST', '/teams', {
      body: { name: 'Charset team' },
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(ok.status, ok.text).toBe(201);
    for (const body of ['null', '[]', '"name"', '42']) {
      const res = await s.api('POST', '/teams', { body });
      expectError(res, 422, 'validation_failed');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['(body)']);
    }
  });

  it('content-type text/csv → 415 unsupported_media_type', async () => {
    expectError(
      await s.api('POST', '/teams', { body: 'name\nCSV team', headers: { 'content-type': 'text/csv' } }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await s.api('PATCH', `/teams/${teamId}`, { body: 'name=x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    const list = await s.api('GET', '/teams');
    expect(list.body.teams.map((t: { name: string }) => t.name)).not.toContain('CSV team');
  });

  it('a body over 1 MiB → 413 too_large', async () => {
    const big = JSON.stringify({ name: 'Big team', description: 'x'.repeat(1024 * 1024 + 10) });
    const res = await s.api('POST', '/teams', { body: big });
    expectError(res, 413, 'too_large');
    // The unread body is left behind: the server must not offer the connection for reuse.
    expect(res.headers.get('connection')).toBe('close');
    const list = await s.api('GET', '/teams');
    expect(list.body.teams.map((t: { name: string }) => t.name)).not.toContain('Big team');
  });

  it('after a 413 the client can go on sending bodies (no cut-off connection)', async () => {
    const big = JSON.stringify({ name: 'Big again', description: 'x'.repeat(2 * 1024 * 1024) });
    expectError(await s.api('POST', '/teams', { body: big }), 413, 'too_large');
    expect((await s.api('GET', '/teams')).status).toBe(200);
    const next = await s.api('POST', '/tickets', {
      body: { queue_id: queueId, subject: 'After 413', description: 'y'.repeat(90_000) },
    });
    expect(next.status, next.text.slice(0, 200)).toBe(201);
    await new Promise((r) => setTimeout(r, 600));
    const later = await s.api('POST', '/tickets', {
      body: { queue_id: queueId, subject: 'Later after 413', description: 'y'.repeat(90_000) },
    });
    expect(later.status, later.text.slice(0, 200)).toBe(201);
  });

  it('a body just under 1 MiB is not refused as too large', async () => {
    const body = JSON.stringify({ queue_id: queueId, subject: 'Large description', description: 'y'.repeat(99_000) });
    const res = await s.api('POST', '/tickets', { body });
    expect(res.status, res.text.slice(0, 200)).toBe(201);
    const near = JSON.stringify({ name: 'Near limit', description: 'z'.repeat(1024 * 1024 - 100) });
    const res2 = await s.api('POST', '/teams', { body: near });
    // Passes the size limit; the description length rule then answers.
    expectError(res2, 422, 'validation_failed');
    expect(res2.body.error.details.map((d: { path: string }) => d.path)).toEqual(['description']);
  });

  it('an unknown route → 404 not_found', async () => {
    expectError(await s.api('GET', '/nope'), 404, 'not_found');
    expectError(await s.api('GET', '/teams/1/nope'), 404, 'not_found');
    expectError(await s.api('POST', '/no/such/thing', { body: {} }), 404, 'not_found');
  });

  it('the 422 body is { error: { code, message, details: [{ path, message }] } }', async () => {
    const res = await s.api('POST', '/teams', { body: { name: '', bogus: 1 } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error.code).toBe('validation_failed');
    expect(typeof res.body.error.message).toBe('string');
    expect(Array.isArray(res.body.error.details)).toBe(true);
    for (const d of res.body.error.details) {
      expect(Object.keys(d).sort()).toEqual(['message', 'path']);
      expect(typeof d.path).toBe('string');
      expect(typeof d.message).toBe('string');
      expect(d.message.length).toBeGreaterThan(0);
    }
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['bogus', 'name']);
  });

  it('non-validation errors carry no details', async () => {
    const res = await s.api('GET', '/teams/999999');
    expectError(res, 404, 'not_found');
    expect(res.body.error.details).toBeUndefined();
  });
});

describe('B5: unknown ids are 404, never 500', () => {
  it('unknown numeric ids on every resource → 404', async () => {
    for (const r of ['users', 'teams', 'queues', 'tickets', 'custom-fields', 'saved-views', 'dashboards']) {
      expectError(await s.api('GET', `/${r}/999999`), 404, 'not_found');
      expectError(await s.api('PATCH', `/${r}/999999`, { body: {} }), 404, 'not_found');
      if (r !== 'tickets') expectError(await s.api('DELETE', `/${r}/999999`), 404, 'not_found');
    }
    expectError(await s.api('GET', '/tickets/999999/transactions'), 404, 'not_found');
    expectError(await s.api('POST', '/tickets/999999/comment', { body: { body: 'hello' } }), 404, 'not_found');
    expectError(await s.api('POST', '/teams/999999/members', { body: { user_id: agent.id } }), 404, 'not_found');
  });

  it('non-numeric, fractional, negative, zero and huge ids → 404 on every resource', async () => {
    const bad = ['x', '1.5', '-1', '0', '1e3', '0x10', '99999999999999999999999', '%20'];
    for (const r of ['users', 'teams', 'queues', 'tickets', 'custom-fields', 'saved-views', 'dashboards']) {
      for (const id of bad) {
        const res = await s.api('GET', `/${r}/${id}`);
        expect(res.status, `GET /${r}/${id}: ${res.text}`).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    }
    for (const id of ['x', '1.5', '-1']) {
      expectError(await s.api('PATCH', `/teams/${id}`, { body: { name: 'y' } }), 404, 'not_found');
      expectError(await s.api('DELETE', `/teams/${id}`), 404, 'not_found');
      expectError(await s.api('DELETE', `/teams/${teamId}/members/${id}`), 404, 'not_found');
    }
  });

  it('the same id that 404s as JSON is a readable 404 page for a browser', async () => {
    const res = await s.api('GET', '/teams/x', { headers: HTML });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(isFullPage(res.text)).toBe(true);
  });
});

describe('B5: HTML error pages', () => {
  it('404 for Accept text/html: a full, readable page with the status kept', async () => {
    const res = await s.api('GET', '/teams/999999', { headers: HTML });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(isFullPage(res.text)).toBe(true);
    expect(res.text).toContain('404');
    expect(res.text.toLowerCase()).toContain('not found');
    expect(res.text).toContain('href="/tickets"');
    const route = await s.api('GET', '/definitely-not-a-route', { headers: HTML });
    expect(route.status).toBe(404);
    expect(isFullPage(route.text)).toBe(true);
  });

  it('403 for Accept text/html: a full, readable page with the status kept', async () => {
    const requester = await s.user('requester');
    // (A requester's browser asking for a staff page is sent to the portal, decision 050; a form is refused.)
    const res = await s.api('POST', '/dashboards', { token: requester.token, form: { name: 'Mine' }, headers: HTML });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(isFullPage(res.text)).toBe(true);
    expect(res.text).toContain('403');
    expect(res.text).toContain('Not allowed'); // in the portal's words
    expectError(await s.api('GET', '/dashboards', { token: requester.token }), 403, 'forbidden');
    const post = await s.api('POST', '/teams', { token: agent.token, form: { name: 'Agent team' }, headers: HTML });
    expect(post.status).toBe(403);
    expect(post.headers.get('location')).toBeNull();
    expect(isFullPage(post.text)).toBe(true);
  });

  it('htmx errors are fragments with the status kept', async () => {
    const res = await s.api('GET', '/teams/999999', { headers: HTMX });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).not.toContain('<html');
    expect(res.text).toContain('Team 999999 not found');
    const forbidden = await s.api('POST', '/teams', { token: agent.token, form: { name: 'nope' }, headers: HTMX });
    expect(forbidden.status).toBe(403);
    expect(forbidden.text).not.toContain('<html');
  });

  it('unauthenticated: JSON 401, browser redirected to /login', async () => {
    expectError(await s.api('GET', '/teams', { token: null }), 401, 'unauthenticated');
    const page = await s.api('GET', '/teams', { token: null, headers: HTML });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fteams');
  });
});

describe('escaping user content in HTML', () => {
  const SCRIPT = '<script>alert(1)</script>';
  const IMG = '<img src=x onerror=alert(1)>';
  let xssTeam: number;
  let xssTicket: number;

  beforeAll(async () => {
    const team = await s.api('POST', '/teams', { body: { name: SCRIPT, description: IMG } });
    expect(team.status, team.text).toBe(201);
    xssTeam = team.body.id;
    const t = await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: IMG, description: SCRIPT } });
    expect(t.status, t.text).toBe(201);
    xssTicket = t.body.ticket.id;
  });

  it('JSON returns the raw value unchanged', async () => {
    expect((await s.api('GET', `/teams/${xssTeam}`)).body.name).toBe(SCRIPT);
    expect((await s.api('GET', `/tickets/${xssTicket}`)).body.subject).toBe(IMG);
  });

  it('a team name is escaped in the page, the list and the fragment', async () => {
    for (const [p, headers] of [
      [`/teams/${xssTeam}`, HTML],
      ['/teams', HTML],
      [`/teams/${xssTeam}`, HTMX],
    ] as const) {
      const res = await s.api('GET', p, { headers });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(SCRIPT);
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).not.toContain(IMG);
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
  });

  it('a ticket subject is escaped in the page (including its <title>) and the list', async () => {
    for (const p of [`/tickets/${xssTicket}`, '/tickets']) {
      const res = await s.api('GET', p, { headers: HTML });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
    const page = await s.api('GET', `/tickets/${xssTicket}`, { headers: HTML });
    const title = /<title>([\s\S]*?)<\/title>/.exec(page.text)?.[1] ?? '';
    expect(title).toContain('&lt;img');
    expect(title).not.toContain('<img');
  });

  it('error messages echoing user input are escaped too', async () => {
    const res = await s.api('GET', `/${encodeURIComponent('<script>alert(1)</script>')}`, { headers: HTML });
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('<script>alert');
    const dup = await s.api('POST', '/teams', { form: { name: SCRIPT }, headers: HTML });
    expect(dup.status).toBe(409);
    expect(dup.text).not.toContain('<script>alert');
    expect(dup.text).toContain('&lt;script&gt;');
  });
});

describe('static files, headers, root', () => {
  it('GET /static/htmx.min.js → 200 JavaScript without signing in', async () => {
    const res = await s.api('GET', '/static/htmx.min.js', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.text).toContain('htmx');
    expect(res.text.length).toBeGreaterThan(10_000);
  });

  it('GET /static/app.css → 200 CSS without signing in', async () => {
    const res = await s.api('GET', '/static/app.css', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/css/);
    expect(res.text).toContain('.topbar');
  });

  it('an unknown static file → 404, and no path traversal', async () => {
    expect((await s.api('GET', '/static/nope.js', { token: null })).status).toBe(404);
    const res = await s.api('GET', '/static/..%2fpackage.json', { token: null });
    expect(res.status).not.toBe(200);
    expect(res.text).not.toContain('"better-sqlite3"');
  });

  it('security headers on JSON, HTML, errors and static files', async () => {
    const responses = [
      await s.api('GET', '/teams'),
      await s.api('GET', '/teams', { headers: HTML }),
      await s.api('GET', '/teams/999999'),
      await s.api('GET', '/teams', { token: null }),
      await s.api('GET', '/static/app.css', { token: null }),
    ];
    for (const res of responses) {
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("script-src 'unsafe-inline'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBeTruthy();
    }
  });

  it('GET / redirects to My open tickets (signed in staff) or to the login (browser, signed out)', async () => {
    const res = await s.api('GET', '/');
    expect(res.status).toBe(303);
    // SPEC C4: staff land on their open tickets (decision 035).
    expect(res.headers.get('location')).toBe(
      '/tickets?owner_id=me&status_category=initial,active,waiting&snoozed=false',
    );
    const html = await s.api('GET', '/', { headers: HTML });
    expect(html.status).toBe(303);
    expect(html.headers.get('location')).toBe(
      '/tickets?owner_id=me&status_category=initial,active,waiting&snoozed=false',
    );
    const anon = await s.api('GET', '/', { token: null, headers: HTML });
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toMatch(/^\/login/);
  });
});
