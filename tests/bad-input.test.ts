import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inWords } from '../src/domain/validation.js';
import { rawCount } from './helpers/db.js';
import { expectError } from './helpers/expect.js';
import { startServer, type ApiResponse, type TestServer } from './helpers/server.js';

// Malformed requests the security audit found answered with 500 (and a stack trace in the log).
// Each must be a SPEC B5 4xx that changes nothing and logs no error.

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

const count = (table: string, where = '') => rawCount(s, table, where);

/** A raw request: exact headers and body, answered as { status, body }. */
async function send(method: string, path: string, headers: Record<string, string>, body?: string | FormData) {
  const res = await fetch(s.url + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
  };
}
const bearer = () => ({ authorization: `Bearer ${s.adminToken}` });
const FORM = 'application/x-www-form-urlencoded';

describe('form field names nested too deep', () => {
  it('POST /login with a 40-part dotted name → 422 naming the field (signed out)', async () => {
    const name = Array(40).fill('a').join('.');
    const res = await send(
      'POST',
      '/login',
      { 'content-type': FORM, origin: s.url },
      `${name}=1&email=x%40example.com&password=y`,
    );
    expectError(res, 422, 'validation_failed');
    expect(res.body.error.details[0].path).toMatch(/^a\.a\.a/);
  });

  it('nine parts are refused, eight still reach the schema', async () => {
    const deep = await send(
      'POST',
      '/teams',
      { ...bearer(), 'content-type': FORM },
      `name=Deep&${Array(9).fill('x').join('.')}=1`,
    );
    expectError(deep, 422, 'validation_failed', ['x.x.x.x.x.x.x.x.x']);
    const ok = await send(
      'POST',
      '/teams',
      { ...bearer(), 'content-type': FORM },
      `name=Deep&${Array(8).fill('x').join('.')}=1`,
    );
    expectError(ok, 422, 'validation_failed', ['x']); // an unknown field, said by the schema
    expect(await count('teams', "name = 'Deep'")).toBe(0);
  });

  it('more nested objects than hono allows (10,000) → 422 too', async () => {
    const body = Array.from({ length: 10_001 }, (_, i) => `f${i}.x=1`).join('&');
    expectError(await send('POST', '/teams', { ...bearer(), 'content-type': FORM }, body), 422, 'validation_failed');
  });
});

describe('a field sent as text and as a nested object at once', () => {
  it('POST /tickets from the new-ticket form (htmx) with subject and subject.url → 422, the form shown again (fuzz seed 7, request 4455)', async () => {
    const before = await count('tickets');
    for (const body of [
      'subject=ID&subject=Subject&subject.url=2024-13-45',
      'subject.url=x',
      'queue_id=1&subject=a&subject.url=b&custom_fields.nope.deeper=1',
    ]) {
      const res = await send('POST', '/tickets', { ...bearer(), 'content-type': FORM, 'hx-request': 'true' }, body);
      expect(res.status, body).toBe(422);
      expect(res.text).toContain('id="new-ticket-form"');
    }
    expect(await count('tickets')).toBe(before);
  });
});

describe('_method override on form posts', () => {
  it.each(['TRACE', 'CONNECT', 'a b', 'GET', 'HEAD', 'OPTIONS', 'PROPFIND'])(
    '_method=%j → 422 naming _method, nothing created',
    async (method) => {
      const before = await count('api_tokens');
      const res = await send(
        'POST',
        '/tokens',
        { ...bearer(), 'content-type': FORM },
        `_method=${encodeURIComponent(method)}&name=override`,
      );
      expectError(res, 422, 'validation_failed', ['_method']);
      expect(await count('api_tokens')).toBe(before);
    },
  );

  it('an empty _method (or POST) is the POST as sent', async () => {
    for (const method of ['', 'post']) {
      const res = await send(
        'POST',
        '/tokens',
        { ...bearer(), 'content-type': FORM },
        `_method=${method}&name=plain-${method}`,
      );
      expect(res.status, res.text).toBe(201);
      expect(res.body.name).toBe(`plain-${method}`);
    }
  });

  it('_method=TRACE in multipart → 422; a repeated _method is refused too', async () => {
    const fd = new FormData();
    fd.append('_method', 'TRACE');
    fd.append('name', 'x');
    expectError(await send('POST', '/tokens', bearer(), fd), 422, 'validation_failed', ['_method']);
    const twice = await send(
      'POST',
      '/teams/1',
      { ...bearer(), 'content-type': FORM },
      '_method=PATCH&_method=DELETE&name=x',
    );
    expectError(twice, 422, 'validation_failed', ['_method']);
  });

  it('_method=patch (any case) in an urlencoded form re-dispatches with repeated fields intact', async () => {
    const view = await s.api('POST', '/saved-views', { body: { name: 'Override me', columns: ['ID'] } });
    expect(view.status).toBe(201);
    const res = await send(
      'POST',
      `/saved-views/${view.body.id}`,
      { ...bearer(), 'content-type': FORM },
      '_method=patch&columns=Status&columns=Subject&columns=ID',
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.columns).toEqual(['Status', 'Subject', 'ID']);
  });

  it('_method=DELETE in multipart deletes', async () => {
    const view = await s.api('POST', '/saved-views', { body: { name: 'Delete me' } });
    const fd = new FormData();
    fd.append('_method', 'DELETE');
    expect((await send('POST', `/saved-views/${view.body.id}`, bearer(), fd)).status).toBe(204);
    expectError(await s.api('GET', `/saved-views/${view.body.id}`), 404, 'not_found');
  });
});

describe('multipart bodies that do not parse', () => {
  it('multipart/form-data without a boundary → 415, signed in or not', async () => {
    expectError(
      await send('POST', '/tokens', { ...bearer(), 'content-type': 'multipart/form-data' }, 'name=x'),
      415,
      'unsupported_media_type',
    );
    expectError(
      await send('POST', '/login', { 'content-type': 'multipart/form-data', origin: s.url }, 'email=x'),
      415,
      'unsupported_media_type',
    );
    expectError(
      await send('POST', '/teams', { ...bearer(), 'content-type': 'multipart/form-data; boundary=' }, ''),
      415,
      'unsupported_media_type',
    );
  });

  it('a body that does not match its boundary → 400, nothing created', async () => {
    const before = await count('teams');
    const body = '--other\r\nContent-Disposition: form-data; name="name"\r\n\r\nWrong boundary\r\n--other--\r\n';
    const res = await send(
      'POST',
      '/teams',
      { ...bearer(), 'content-type': 'multipart/form-data; boundary=expected' },
      body,
    );
    expectError(res, 400, 'invalid_json');
    expect(res.body.error.message).toContain('multipart/form-data');
    const cut = await send(
      'POST',
      '/teams',
      { ...bearer(), 'content-type': 'multipart/form-data; boundary=b' },
      '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nCut',
    );
    expectError(cut, 400, 'invalid_json');
    expect(await count('teams')).toBe(before);
  });
});

describe('POST /templates/preview beyond the Liquid limits', () => {
  it('a draft that passes the sample check but exceeds the render limit on a real ticket → 422 naming the part', async () => {
    const ticket = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Long one', description: 'd'.repeat(5000) },
    });
    expect(ticket.status).toBe(201);
    const loop =
      '{% for a in (1..ticket.description.size) %}{% for b in (1..ticket.description.size) %}{% endfor %}{% endfor %}';
    const body = await s.api('POST', '/templates/preview', { body: { body: loop, ticket_id: ticket.body.ticket.id } });
    expectError(body, 422, 'validation_failed', ['body']);
    expect(body.body.error.message).toMatch(/limit exceeded/);
    const subject = await s.api('POST', '/templates/preview', {
      body: { subject: loop, ticket_id: ticket.body.ticket.id },
    });
    expectError(subject, 422, 'validation_failed', ['subject']);
  });

  it('a runaway draft on the sample → 422', async () => {
    const res = await s.api('POST', '/templates/preview', {
      body: { body: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' },
    });
    expectError(res, 422, 'validation_failed', ['body']);
  });
});

describe('NUL characters in text', () => {
  it('are a 422 naming the field, on either store (PostgreSQL text cannot hold one): JSON, forms, query strings and nested values', async () => {
    const nul = (path: string, res: ApiResponse) => {
      expectError(res, 422, 'validation_failed', [path]);
      expect(res.body.error.details).toEqual([{ path, message: inWords(path, 'Must not contain NUL characters') }]);
    };
    const teams = await count('teams');
    nul('name', await s.api('POST', '/teams', { body: { name: 'Night\u0000shift' } }));
    nul('name', await s.api('POST', '/teams', { form: { name: 'Night\u0000shift' } }));
    expect(await count('teams')).toBe(teams);
    nul('signature', await s.api('PATCH', '/settings', { body: { signature: 'Regards\u0000' } }));
    nul('name', await s.api('PATCH', '/settings', { body: { name: 'a\u0000b' } }));
    const tickets = await count('tickets');
    nul('subject', await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Zero\u0000byte' } }));
    nul(
      'description',
      await s.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Fine', description: 'not\u0000fine' } }),
    );
    expect(await count('tickets')).toBe(tickets);
    nul('q', await s.api('GET', '/users?q=ab%00c'));
    nul(
      'widgets.0.title',
      await s.api('POST', '/dashboards', {
        body: { name: 'Board', widgets: [{ kind: 'status_counts', title: 'T\u0000' }] },
      }),
    );
    // Other control characters are text like any other (a tab, a form feed).
    expect((await s.api('POST', '/teams', { body: { name: 'Tab\tteam' } })).status).toBe(201);
  });
});

describe('nothing above was a server error', () => {
  it('the server logged no error (no stack trace) for any of these requests', () => {
    expect(s.logged.filter((l) => l.level === 'error')).toEqual([]);
  });
});
