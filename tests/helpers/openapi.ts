import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Hono } from 'hono';
import type { OpenAPIV3_1 } from 'openapi-types';
import { documentOf } from '../../src/routes/api-docs/index.js';

// SPEC D5: every JSON answer the suite's HTTP round trips receive is checked against the OpenAPI
// document the app serves (tests/helpers/server.ts `api()`): its operation must list the status,
// and the body must match that status's schema. A mismatch throws, so the test that made the
// request fails: the document cannot drift from what the code answers.

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Doc = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;
const BASE = 'https://hxdesk.invalid/schemas/';

export interface Answer {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: unknown;
}

export class ResponseChecker {
  private readonly ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly routes: { method: string; path: string; re: RegExp; literals: number; op: Operation }[] = [];

  constructor(readonly doc: Doc) {
    // The named schemas under ids of their own: `#/components/schemas/X` becomes `<BASE>X`.
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
      this.ajv.addSchema({ ...this.rebase(schema), $id: BASE + name });
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item ?? {}) as [string, Operation][]) {
        const segments = path.split('/');
        const re = new RegExp(
          `^${segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/')}$`,
        );
        this.routes.push({
          method: method.toUpperCase(),
          path,
          re,
          literals: segments.filter((s) => !s.startsWith('{')).length,
          op,
        });
      }
    }
  }

  private rebase<T>(schema: T): T {
    return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${BASE}`));
  }

  /** The document's operation for a request, as the router would pick it (the most literal path). */
  operation(method: string, path: string) {
    return this.routes.filter((r) => r.method === method && r.re.test(path)).sort((a, b) => b.literals - a.literals)[0];
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) this.compiled.set(key, (v = this.ajv.compile(this.rebase(schema as object))));
    return v;
  }

  /** Why `answer` does not match the document, or null when it does. */
  check(a: Answer): string | null {
    const route = this.operation(a.method, a.path);
    const isJson = /[/+]json\b/.test(a.contentType);
    const what = `${a.method} ${a.path} answered ${a.status}`;
    if (!route) {
      // No route at all (an unknown path or method): the app's B5 404, as every JSON error is.
      if (!isJson) return null;
      if (a.status < 400) return `${what} (JSON), but the document has no ${a.method} operation for this path`;
      return this.validate(`error`, { $ref: '#/components/schemas/Error' }, a.body, what);
    }
    const listed = route.op.responses?.[String(a.status)];
    if (!listed)
      return `${what}, a status the document does not list for ${a.method} ${route.path} (it lists ${Object.keys(route.op.responses ?? {}).join(', ')})`;
    const response = (
      '$ref' in listed ? this.doc.components?.responses?.[listed.$ref.split('/').pop()!] : listed
    ) as OpenAPIV3_1.ResponseObject;
    if (!isJson) return null;
    const schema = response.content?.['application/json']?.schema;
    if (!schema)
      return `${what} with JSON, but the document lists no JSON body for that status of ${a.method} ${route.path}`;
    return this.validate(`${a.method} ${route.path} ${a.status}`, schema, a.body, `${what} (${route.path})`);
  }

  private validate(key: string, schema: unknown, body: unknown, what: string): string | null {
    const v = this.validator(key, schema);
    if (v(body)) return null;
    const errors = (v.errors ?? [])
      .slice(0, 8)
      .map(
        (e) =>
          `  ${e.instancePath || '(body)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
      );
    const text = JSON.stringify(body);
    return `${what}, which does not match the document's schema:\n${errors.join('\n')}\nbody: ${text.length > 1500 ? `${text.slice(0, 1500)}…` : text}`;
  }
}

const checkers = new Map<string, Promise<ResponseChecker>>();
const byApp = new WeakMap<Hono<any>, Promise<ResponseChecker>>();
/**
 * The checker for an app's document, one per set of routes: apps with the same routes (most of a
 * run's) share it, and an app with more (the test clock's, HXDESK_TEST_CLOCK) has its own. The
 * test files share one module between them (vitest's `isolate: false`), so this outlives a file.
 */
export function responseChecker(app: Hono<any>): Promise<ResponseChecker> {
  const known = byApp.get(app);
  if (known) return known;
  const routes = app.routes.map((r) => `${r.method} ${r.path}`).join('\n');
  let checker = checkers.get(routes);
  if (!checker) {
    checker = documentOf(app).then((doc) => new ResponseChecker(doc));
    checkers.set(routes, checker);
  }
  byApp.set(app, checker);
  return checker;
}
