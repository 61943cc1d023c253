import { Validator } from '@seriousme/openapi-schema-validator';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentOf } from '../src/routes/api-docs/index.js';
import { inputSchema, NOT_API } from '../src/routes/openapi.js';
import { CreateTicketSchema } from '../src/routes/tickets/schemas.js';
import { ResponseChecker, responseChecker } from './helpers/openapi.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D5: GET /openapi.json describes every JSON route, is valid OpenAPI 3.1, and is what the
// suite's answers are checked against (tests/helpers/openapi.ts, through `api()`).

let s: TestServer;
let doc: OpenAPIV3_1.Document;
let checker: ResponseChecker;

beforeAll(async () => {
  s = await startServer();
  doc = await documentOf(s.app);
  checker = new ResponseChecker(doc);
});
afterAll(async () => {
  await s?.close();
});

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');
const operations = (d: OpenAPIV3_1.Document) =>
  Object.entries(d.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item ?? {}).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path}`,
      op: op as OpenAPIV3_1.OperationObject,
    })),
  );

describe('the document', () => {
  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await new Validator().validate(doc as never);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('has every route the app registers (but files, redirects and the reference page), and no other', () => {
    const registered = new Set(
      s.app.routes
        .filter((r) => METHODS.includes(r.method) && !NOT_API.some((re) => re.test(r.path)))
        .map((r) => `${r.method} ${toOpenApiPath(r.path)}`),
    );
    const documented = new Set(operations(doc).map((o) => o.key));
    expect(
      [...registered].filter((k) => !documented.has(k)),
      'routes missing from the document',
    ).toEqual([]);
    expect(
      [...documented].filter((k) => !registered.has(k)),
      'operations the app does not serve',
    ).toEqual([]);
    // The routes left out are only those NOT_API names, each of which the app does serve.
    expect(
      s.app.routes
        .filter((r) => METHODS.includes(r.method) && NOT_API.some((re) => re.test(r.path)))
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual([
      'GET /',
      'GET /docs/api',
      'GET /favicon.ico',
      'GET /portal/tickets',
      'GET /static/htmx-sse.min.js',
      'GET /static/htmx.min.js',
    ]);
    expect(documented.size).toBeGreaterThan(90);
  });

  it('describes request bodies with the very schemas the routes validate with (JSON and forms alike)', () => {
    const body = doc.paths!['/tickets']!.post!.requestBody as OpenAPIV3_1.RequestBodyObject;
    expect(Object.keys(body.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    const ref = (body.content['application/json'].schema as OpenAPIV3_1.ReferenceObject).$ref;
    expect(body.content['application/x-www-form-urlencoded'].schema).toEqual({ $ref: ref });
    expect(doc.components!.schemas![ref.split('/').pop()!]).toEqual(inputSchema(CreateTicketSchema));
  });

  it('lists the B5 errors: 401 unless public, 404 for an id in the path, 422 for a body, all as the one Error schema', () => {
    for (const { key, op } of operations(doc)) {
      const statuses = Object.keys(op.responses ?? {});
      if (op.security?.length !== 0) expect(statuses, key).toContain('401');
      if (key.includes('{') && !key.includes('{token}')) expect(statuses, key).toContain('404');
      if (op.requestBody) expect(statuses, key).toEqual(expect.arrayContaining(['400', '413', '415', '422']));
      for (const status of statuses.filter((x) => Number(x) >= 400)) {
        expect(op.responses![status], `${key} ${status}`).toEqual({ $ref: `#/components/responses/Error${status}` });
      }
    }
    const notFound = doc.components!.responses!.Error404 as OpenAPIV3_1.ResponseObject;
    expect(notFound.content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });
});

describe('GET /openapi.json and /docs/api', () => {
  it('need sign-in, as every route but /healthz, /login and the mail gateway (decision 043)', async () => {
    const json = await s.api('GET', '/openapi.json', { token: null });
    expect(json.status).toBe(401);
    expect(json.body.error.code).toBe('unauthenticated');
    const page = await s.api('GET', '/docs/api', { token: null, headers: { accept: 'text/html' } });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fdocs%2Fapi');
  });

  it('serve the document to anyone signed in, a requester too', async () => {
    const requester = await s.user('requester');
    for (const token of [s.adminToken, requester.token]) {
      const res = await s.api('GET', '/openapi.json', { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
    }
  });

  it('render every operation and schema as one page, with nothing loaded from elsewhere', async () => {
    const res = await s.api('GET', '/docs/api', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^<!DOCTYPE html>/i);
    for (const { key } of operations(doc)) {
      const [method, path] = key.split(' ');
      expect(res.text, key).toContain(`>${method}</span> <code class="api-path">${path}</code>`);
    }
    expect(res.text).toContain('id="schema-ticket"');
    // Only our own files: no script, style or image from another origin, and no inline script.
    const loads = [...res.text.matchAll(/<(?:script|link|img|iframe)\b[^>]*?(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(loads.filter((u) => !u.startsWith('/'))).toEqual([]);
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });
});

describe('the checker every api() answer goes through', () => {
  it('passes a real answer and names what differs when the body does not match', async () => {
    const res = await s.api('GET', '/me');
    const answer = { method: 'GET', path: '/me', status: 200, contentType: 'application/json', body: res.body };
    expect(checker.check(answer)).toBeNull();
    expect(checker.check({ ...answer, body: { ...res.body, role: 'boss' } })).toMatch(
      /GET \/me answered 200.*\n.*\/role must be equal to one of the allowed values/,
    );
    expect(checker.check({ ...answer, body: { ...res.body, password: 'x' } })).toMatch(
      /must NOT have additional properties/,
    );
    const { email: _, ...noEmail } = res.body;
    expect(checker.check({ ...answer, body: noEmail })).toMatch(/must have required property 'email'/);
  });

  it('refuses a status the operation does not list, and JSON from a route the document does not have', () => {
    const error = { error: { code: 'conflict', message: 'x' } };
    expect(
      checker.check({ method: 'GET', path: '/me', status: 409, contentType: 'application/json', body: error }),
    ).toMatch(/GET \/me answered 409, a status the document does not list for GET \/me/);
    expect(
      checker.check({ method: 'GET', path: '/nowhere', status: 200, contentType: 'application/json', body: {} }),
    ).toMatch(/no GET operation for this path/);
    // An unknown route's 404 is still a B5 error.
    expect(
      checker.check({
        method: 'GET',
        path: '/nowhere',
        status: 404,
        contentType: 'application/json',
        body: { error: { code: 'not_found', message: 'No route' } },
      }),
    ).toBeNull();
    expect(
      checker.check({
        method: 'GET',
        path: '/nowhere',
        status: 404,
        contentType: 'application/json',
        body: { message: 'No route' },
      }),
    ).toMatch(/required property 'error'/);
  });

  it('knows the redirects an API client can get: staff asking for the portal are sent to their own pages', async () => {
    const portal = await s.api('GET', '/portal');
    expect(portal.status).toBe(303);
    expect(portal.headers.get('location')).toBe('/tickets');
  });

  it('picks the literal route over a parameter (GET /tickets/new is not GET /tickets/{id})', () => {
    expect(checker.operation('GET', '/tickets/new')?.path).toBe('/tickets/new');
    expect(checker.operation('GET', '/tickets/12')?.path).toBe('/tickets/{id}');
    expect(checker.operation('POST', '/templates/preview')?.path).toBe('/templates/preview');
  });

  it('is what api() applies: an answer the document does not allow fails the request that got it', async () => {
    // The checker api() uses, with GET /me's 200 taken out of its document for a moment.
    const used = await responseChecker(s.app);
    const me = used.doc.paths!['/me']!.get!.responses!;
    const ok = me['200'];
    delete me['200'];
    try {
      await expect(s.api('GET', '/me')).rejects.toThrow(
        /OpenAPI document mismatch: GET \/me answered 200, a status the document does not list/,
      );
    } finally {
      me['200'] = ok;
    }
    await expect(s.api('GET', '/me')).resolves.toMatchObject({ status: 200 });
  });
});
