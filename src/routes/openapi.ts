import type { Hono, MiddlewareHandler } from 'hono';
import { describeRoute, generateSpecs, resolver } from 'hono-openapi';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { AppEnv } from './context.js';
import { z } from 'zod';

// SPEC D5: the OpenAPI 3.1 document of the JSON API, built from the routes themselves. Each
// route carries a `doc({...})` middleware (hono-openapi's describeRoute) naming the zod schemas
// it already parses its query and body with, and the schemas of what it answers; the document
// is generated from the app's registered routes (decision 043), so a route cannot be in the app
// and silently missing from the document (tests/openapi.test.ts holds that).

/** The B5 error statuses a route can answer besides the ones every route of its kind can. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

export const ERROR_MEANING: Record<ErrorStatus, string> = {
  400: '`invalid_json`: the body could not be read (not JSON, or a broken form)',
  401: '`unauthenticated`: sign in, or send `Authorization: Bearer <token>`',
  403: '`forbidden`: not allowed for your role, or a cross-site request riding on a session cookie',
  404: '`not_found`: no such resource, or none you may see',
  409: '`conflict`: a unique name or key is taken, the resource is in use, or (`stale`) newer mail came in',
  410: '`gone`: the ticket reopened after this rating link was sent (SPEC D4); nothing was recorded',
  413: '`too_large`: the body is larger than the route accepts',
  415: '`unsupported_media_type`: send JSON or form data',
  422: '`validation_failed`: `details` names each refused field',
  429: '`rate_limited`: too many attempts; `Retry-After` says when to try again',
  500: '`internal`: a fault of the server, logged with the request id the message names',
  503: '`storage_unavailable` / `unavailable`: the server cannot do this now; `Retry-After` says when to try again',
};

/** Output shapes shared by many representations. */
export const zTimestamp = z.iso.datetime({ offset: true }).describe('ISO 8601, UTC');
export const zRowId = z.number().int().positive();

type Success = 200 | 201 | 204 | 303;
/** A success answer: a JSON schema, `null` for no body (204), or another media type. */
type SuccessBody = z.ZodType | null | { media: string; description: string; schema?: OpenAPIV3_1.SchemaObject };

export interface OperationDoc {
  summary: string;
  description?: string;
  /** Reachable without signing in (SPEC B2: /login, /healthz, /mailgate, portal links). */
  public?: boolean;
  /** The query-string schema the route validates with (an object schema). */
  query?: z.ZodType;
  /** Path parameters that are not positive ids (those are documented as such by default). */
  path?: Record<string, z.ZodType>;
  /** The body schema the route validates with: JSON or form data alike (SPEC B1). */
  body?: z.ZodType;
  /** The body may carry files as multipart `attachments` (C4). */
  files?: boolean;
  /** Several body formats of its own (POST /mailgate): documented as given. */
  content?: Record<string, { schema: OpenAPIV3_1.SchemaObject | z.ZodType }>;
  ok: Partial<Record<Success, SuccessBody>>;
  /** Statuses this route answers besides the automatic ones (see `automaticErrors`). */
  errors?: ErrorStatus[];
}

const SUCCESS_TEXT: Record<Success, string> = {
  200: 'OK',
  201: 'Created',
  204: 'Done; no body',
  303: 'Elsewhere: see `Location`',
};
const jsonOut = (schema: z.ZodType) => ({
  'application/json': { schema: resolver(schema as never, { options: { io: 'output' } }) },
});

type Json = Record<string, unknown>;
/**
 * A checked value's input is what a pipe takes in, which says less than what it passes on: a
 * list read as "anything in an array" before its items are checked, a number before its range
 * is. The document says the checked side for those (the items, the range).
 */
function pipeOverride(ctx: { zodSchema: unknown; jsonSchema: Json }) {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; out?: z.ZodType } } })._zod.def;
  if (def.type !== 'pipe' || !def.out) return;
  const json = ctx.jsonSchema;
  const out = inputSchema(def.out) as Json;
  const isNumber = (x: Json) => x.type === 'number' || x.type === 'integer';
  if (json.type === 'array' && out.type === 'array' && Object.keys((json.items as Json | undefined) ?? {}).length === 0)
    json.items = out.items;
  else if (isNumber(out) && isNumber(json)) Object.assign(json, out);
  else if (isNumber(out) && Array.isArray(json.anyOf))
    json.anyOf = (json.anyOf as Json[]).map((m) => (isNumber(m) ? out : m));
}

/** The JSON Schema of what a request may send (zod's input side: what a form's strings may be, too). */
export function inputSchema(schema: z.ZodType): OpenAPIV3_1.SchemaObject {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: pipeOverride,
  }) as Json;
  return json as OpenAPIV3_1.SchemaObject;
}

/** Query parameters from an object schema; an object-valued one (`cf`) is the route's to describe. */
function queryParameters(schema: z.ZodType): OpenAPIV3_1.ParameterObject[] {
  const json = inputSchema(schema);
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {})
    .filter(([, s]) => (s as OpenAPIV3_1.SchemaObject).type !== 'object')
    .map(([name, s]) => {
      const { description, ...rest } = s as OpenAPIV3_1.SchemaObject;
      return {
        in: 'query',
        name,
        required: required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      } as OpenAPIV3_1.ParameterObject;
    });
}

/** The statuses any route of this shape can answer (the rest are in `errors`). */
function automaticErrors(d: OperationDoc): ErrorStatus[] {
  return [
    ...(d.public ? [] : [401 as const]),
    ...(d.body || d.content ? [400 as const, 413 as const, 415 as const, 422 as const] : []),
    ...(d.query ? [422 as const] : []),
    500,
  ];
}

/** Each error status is described once, in the document's components (`Error404` …). */
const errorResponse = (status: ErrorStatus): OpenAPIV3_1.ReferenceObject => ({
  $ref: `#/components/responses/Error${status}`,
});
const errorResponses = (): Record<string, OpenAPIV3_1.ResponseObject> =>
  Object.fromEntries(
    Object.entries(ERROR_MEANING).map(([status, meaning]) => [
      `Error${status}`,
      { description: meaning, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );

/** Marks a route as part of the JSON API, described under `tag`. */
export const documented =
  (tag: string) =>
  (d: OperationDoc): MiddlewareHandler =>
    lazilyDescribed(() => operation(tag, d));

/**
 * hono-openapi's describeRoute, with the description built when the document is first generated
 * rather than when the route is declared: the JSON Schemas of every route's zod schemas took
 * ~0.15 s of each server start (issue 32: start-up at 100k tickets ≤ 700 ms), for a document few
 * starts serve. describeRoute keeps its description as `spec` on one symbol-keyed object, read by
 * generateSpecs; a getter stands in for it (tests/openapi.test.ts generates the whole document).
 */
function lazilyDescribed(build: () => Parameters<typeof describeRoute>[0]): MiddlewareHandler {
  const mw = describeRoute({ responses: {} });
  const holders = Object.getOwnPropertySymbols(mw).map((k) => (mw as unknown as Record<symbol, unknown>)[k]);
  const holder = holders.find((h): h is { spec: unknown } => typeof h === 'object' && h !== null && 'spec' in h);
  if (!holder) throw new Error('hono-openapi: describeRoute no longer keeps its spec where documented() expects it');
  let spec: ReturnType<typeof build> | undefined;
  Object.defineProperty(holder, 'spec', { enumerable: true, get: () => (spec ??= build()) });
  return mw;
}

/** One operation's description (documented). */
function operation(tag: string, d: OperationDoc): Parameters<typeof describeRoute>[0] {
  const responses: Record<string, unknown> = {};
  for (const [status, body] of Object.entries(d.ok) as [string, SuccessBody][]) {
    const text = SUCCESS_TEXT[Number(status) as Success];
    if (body === null) responses[status] = { description: text };
    else if (body instanceof z.ZodType) responses[status] = { description: text, content: jsonOut(body) };
    else
      responses[status] = {
        description: body.description,
        content: { [body.media]: { schema: body.schema ?? { type: 'string', format: 'binary' } } },
      };
  }
  for (const status of new Set([...automaticErrors(d), ...(d.errors ?? [])])) responses[status] = errorResponse(status);
  const parameters = [
    ...(d.query ? queryParameters(d.query) : []),
    ...Object.entries(d.path ?? {}).map(([name, s]) => ({
      in: 'path',
      name,
      required: true,
      schema: inputSchema(s),
    })),
  ];
  // One schema object for every media type: the document names it once (finish).
  const bodySchema = d.body ? inputSchema(d.body) : undefined;
  const media = ['application/json', 'application/x-www-form-urlencoded', ...(d.files ? ['multipart/form-data'] : [])];
  const requestBody = d.content
    ? {
        required: true,
        content: Object.fromEntries(
          Object.entries(d.content).map(([m, c]) => [
            m,
            { schema: c.schema instanceof z.ZodType ? inputSchema(c.schema) : c.schema },
          ]),
        ),
      }
    : d.body
      ? { required: false, content: Object.fromEntries(media.map((m) => [m, { schema: bodySchema }])) }
      : undefined;
  return {
    tags: [tag],
    summary: d.summary,
    ...(d.description ? { description: d.description } : {}),
    ...(parameters.length ? { parameters: parameters as OpenAPIV3_1.ParameterObject[] } : {}),
    ...(requestBody ? { requestBody } : {}),
    ...(d.public ? { security: [] } : {}),
    responses: responses as never,
  };
}

/** Routes the app serves that are not the JSON API: files, redirects, the reference page. */
export const NOT_API = [/^\/static\//, /^\/favicon\.ico$/, /^\/$/, /^\/docs\/api$/, /^\/portal\/tickets$/];

const INTRO = `The JSON API of hxdesk, a request tracker. Every route also answers HTML: a request gets
JSON unless it carries \`HX-Request: true\` or an \`Accept\` header that includes \`text/html\`.

**Signing in.** Send an API token as \`Authorization: Bearer <token>\` (create one with
\`POST /tokens\` while signed in), or use the session cookie \`POST /login\` sets. Unsafe requests
that ride on the cookie must come from the server's own origin (CSRF): tokens are exempt.

**Bodies** are JSON, or form data (\`application/x-www-form-urlencoded\`, \`multipart/form-data\`)
checked by the same schema: a form sends numbers and booleans as text, lists as repeated fields
or comma-separated text, and nested fields with dotted names (\`changes.status\`). A single
resource comes back as the bare object (201 on create), a list as \`{ "<plural>": [...] }\`, a
DELETE as 204 with no body. Times are ISO 8601 in UTC.

**Errors** are \`{ "error": { "code", "message", "details"? } }\` (schema \`Error\`), with the
statuses each operation lists.`;

/** Path parameters are positive ids unless a route says otherwise; errors are the shared schema. */
function finish(generated: OpenAPIV3_1.Document, errorSchema: z.ZodType): OpenAPIV3_1.Document {
  // A copy: the generated document shares objects with the routes' descriptions, which stay as they are.
  const doc = structuredClone(generated);
  const schemas = ((doc.components ??= {}).schemas ??= {});
  // The error body, with the named schemas it holds (a `stale` error's transactions) as components.
  const {
    $schema: _,
    $defs,
    ...error
  } = JSON.parse(
    JSON.stringify(z.toJSONSchema(errorSchema, { io: 'output' })).replaceAll('"#/$defs/', '"#/components/schemas/'),
  );
  Object.assign(schemas, $defs, { Error: error });
  doc.components.responses = { ...doc.components.responses, ...errorResponses() };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {}) as [string, OpenAPIV3_1.OperationObject][]) {
      for (const p of (op.parameters ?? []) as OpenAPIV3_1.ParameterObject[]) {
        if (
          p.in === 'path' &&
          (p.schema as OpenAPIV3_1.SchemaObject | undefined)?.type === 'string' &&
          Object.keys(p.schema!).length === 1
        ) {
          p.schema = { type: 'integer', minimum: 1 };
          p.description ??= 'A positive id (anything else is 404)';
        }
      }
      // The body's one schema, named once for its media types (JSON and forms).
      const body = op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
      const shared =
        body &&
        new Set(Object.values(body.content).map((m) => m.schema)).size === 1 &&
        Object.keys(body.content).length > 1;
      if (shared && op.operationId) {
        const name = `${op.operationId[0].toUpperCase()}${op.operationId.slice(1)}Body`;
        schemas[name] = Object.values(body.content)[0].schema!;
        for (const m of Object.values(body.content)) m.schema = { $ref: `#/components/schemas/${name}` };
      }
      const responses = (op.responses ??= {});
      // An id in the path: unknown (or not yours to see) is 404, never 500 (SPEC B5).
      if (path.includes('{')) responses['404'] ??= errorResponse(404);
      // A write: refused cross-site on a session cookie (403), or while the store cannot write (503).
      if (method !== 'get') {
        responses['403'] ??= errorResponse(403);
        responses['503'] ??= errorResponse(503);
      }
      op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
    }
  }
  return doc;
}

/** The OpenAPI 3.1 document of `app`'s JSON API. */
export async function openApiDocument(
  app: Hono<AppEnv>,
  errorSchema: z.ZodType,
  version: string,
): Promise<OpenAPIV3_1.Document> {
  const doc = await generateSpecs(app, {
    documentation: {
      info: { title: 'hxdesk API', version, description: INTRO },
      components: {
        securitySchemes: {
          token: { type: 'http', scheme: 'bearer', description: 'An API token (POST /tokens)' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'hxdesk_session',
            description: 'The session cookie POST /login sets',
          },
        },
      },
      security: [{ token: [] }, { session: [] }],
    },
    exclude: NOT_API,
    excludeStaticFile: false,
  });
  return finish(doc as OpenAPIV3_1.Document, errorSchema);
}
