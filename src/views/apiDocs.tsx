import type { Child } from 'hono/jsx';

// SPEC D5: the API reference, rendered on the server from the OpenAPI document (decision 043):
// plain HTML, no script, nothing fetched from elsewhere. The document's own shapes, as far as
// this page reads them.

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}
interface Media {
  schema?: JsonSchema;
}
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses?: Record<string, Response | { $ref: string }>;
}
interface Response {
  description: string;
  content?: Record<string, Media>;
}
export interface ApiDocument {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; responses?: Record<string, Response> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const BIG = 9007199254740991;
const refName = (ref: string) => ref.split('/').pop() ?? ref;
/** Request bodies are named once per operation in the document; the page shows them where they are sent. */
const isBody = (name: string) => name.endsWith('Body');
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
const opAnchor = (method: string, path: string) => `op-${method}-${slug(path) || 'root'}`;

/** The document's bits of Markdown: paragraphs, `code` and **strong**. */
function Text({ text }: { text: string }) {
  return (
    <>
      {text.split(/\n{2,}/).map((para) => (
        <p>{inline(para.replace(/\n/g, ' '))}</p>
      ))}
    </>
  );
}
function inline(s: string): Child[] {
  return s
    .split(/(`[^`]+`|\*\*[^*]+\*\*)/)
    .filter((x) => x !== '')
    .map((part) =>
      part.startsWith('`') ? (
        <code>{part.slice(1, -1)}</code>
      ) : part.startsWith('**') ? (
        <strong>{part.slice(2, -2)}</strong>
      ) : (
        part
      ),
    );
}

const literal = (v: unknown) => <code>{JSON.stringify(v)}</code>;

/**
 * What a form may send in place of a JSON value (digits for a number, "on"/"off" for a boolean,
 * "" for none): in the document, left out of the page's type lines (the introduction says so).
 */
const FORM_WORDS = ['true', 'false', 'on', 'off', '1', '0', 'yes', 'no'];
const isFormSpelling = (u: JsonSchema) =>
  u.type === 'string' &&
  (u.const === '' ||
    /^\^-?\??\\d\+\$$/.test(u.pattern ?? '') ||
    (u.enum !== undefined && u.enum.every((x) => FORM_WORDS.includes(String(x)))));
const withoutFormSpellings = (union: JsonSchema[]) => {
  const json = union.filter((u) => !isFormSpelling(u));
  return json.length > 0 ? json : union;
};

/** A short name for a schema's type: `string`, `integer or null`, `array of Ticket`, a link to a named schema. */
function TypeOf({ s, doc }: { s: JsonSchema; doc: ApiDocument }): Child {
  if (s.$ref) {
    const name = refName(s.$ref);
    return isBody(name) ? <span>object</span> : <a href={`#schema-${slug(name)}`}>{name}</a>;
  }
  const union = s.anyOf ?? s.oneOf;
  if (union)
    return (
      <>
        {join(
          withoutFormSpellings(union).map((u) => <TypeOf s={u} doc={doc} />),
          ' or ',
        )}
      </>
    );
  if (s.const !== undefined) return literal(s.const);
  if (s.enum) return <>{join(s.enum.map(literal), ' | ')}</>;
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length === 0) return <span>any</span>;
  return (
    <>
      {join(
        types.map((t) => {
          if (t === 'array' && s.prefixItems)
            return (
              <span>
                [
                {join(
                  s.prefixItems.map((i) => <TypeOf s={i} doc={doc} />),
                  ', ',
                )}
                ]
              </span>
            );
          if (t === 'array') return <span>array of {s.items ? <TypeOf s={s.items} doc={doc} /> : 'any'}</span>;
          if (t === 'object' && !s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
            return (
              <span>
                object of{' '}
                {Object.keys(s.additionalProperties).length ? <TypeOf s={s.additionalProperties} doc={doc} /> : 'any'}
              </span>
            );
          }
          return (
            <span>
              {t}
              {s.format && s.format !== 'binary' ? ` (${s.format})` : ''}
            </span>
          );
        }),
        ' or ',
      )}
    </>
  );
}
function join(items: Child[], sep: string): Child[] {
  return items.flatMap((x, i) => (i === 0 ? [x] : [sep, x]));
}

/** Limits worth reading: lengths, ranges, patterns, defaults (not the 2^53 bounds of every integer). */
function limits(s: JsonSchema): string[] {
  const out: string[] = [];
  const chars = (n: number) => `${n} character${n === 1 ? '' : 's'}`;
  if (s.minLength !== undefined && s.minLength > 0) out.push(`at least ${chars(s.minLength)}`);
  if (s.maxLength !== undefined) out.push(`at most ${chars(s.maxLength)}`);
  if (s.exclusiveMinimum === 0) out.push('positive');
  else if (s.exclusiveMinimum !== undefined && s.exclusiveMinimum !== -BIG) out.push(`more than ${s.exclusiveMinimum}`);
  if (s.minimum !== undefined && Math.abs(s.minimum) !== BIG) out.push(`at least ${s.minimum}`);
  if (s.maximum !== undefined && Math.abs(s.maximum) !== BIG) out.push(`at most ${s.maximum}`);
  if (s.minItems !== undefined && s.minItems > 0) out.push(`at least ${s.minItems} items`);
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  // A date-time's pattern says no more than its format does.
  if (s.pattern !== undefined && s.format === undefined) out.push(`matches ${s.pattern}`);
  return out;
}

/** The inline object a field holds (directly, in an array, or in a union), to list its fields below it. */
function nested(s: JsonSchema, doc: ApiDocument): JsonSchema[] {
  if (s.$ref) {
    const name = refName(s.$ref);
    return isBody(name) ? nested(doc.components?.schemas?.[name] ?? {}, doc) : [];
  }
  if (s.properties) return [s];
  if (s.items) return nested(s.items, doc);
  return (s.anyOf ?? s.oneOf ?? []).flatMap((u) => nested(u, doc));
}

/**
 * An object's fields as a list: name, type, limits, what it means; nested objects inside. What a
 * request must send is marked required; what an answer may leave out is marked so.
 */
export function Fields({
  s,
  doc,
  sent,
  depth = 0,
}: {
  s: JsonSchema;
  doc: ApiDocument;
  sent: boolean;
  depth?: number;
}) {
  const required = new Set(s.required ?? []);
  return (
    <ul class="api-fields">
      {Object.entries(s.properties ?? {}).map(([name, f]) => {
        const inner = depth < 4 ? nested(f, doc) : [];
        const notes = [...limits(f), ...(f.default !== undefined ? [`default ${JSON.stringify(f.default)}`] : [])];
        return (
          <li>
            <code class="api-name">{name}</code>{' '}
            <span class="api-type">
              <TypeOf s={f} doc={doc} />
            </span>
            {sent && required.has(name) ? <span class="api-required"> required</span> : null}
            {!sent && !required.has(name) ? <span class="muted"> · may be absent</span> : null}
            {notes.length > 0 && <span class="muted"> · {notes.join(', ')}</span>}
            {f.description && <div class="api-desc">{inline(f.description)}</div>}
            {inner.map((o) => (
              <Fields s={o} doc={doc} sent={sent} depth={depth + 1} />
            ))}
          </li>
        );
      })}
    </ul>
  );
}

/** A request or response body: its type line, and its fields when it is (or names) an object of its own. */
function Body({ media, doc, sent }: { media: Media | undefined; doc: ApiDocument; sent: boolean }) {
  const s = media?.schema;
  if (!s) return null;
  const inner = nested(s, doc);
  return (
    <div class="api-body">
      <p class="api-type-line">
        Body: <TypeOf s={s} doc={doc} />
      </p>
      {inner.map((o) => (
        <Fields s={o} doc={doc} sent={sent} />
      ))}
    </div>
  );
}

function OperationView({ method, path, op, doc }: { method: string; path: string; op: Operation; doc: ApiDocument }) {
  const responses = Object.entries(op.responses ?? {}).map(([status, r]): [string, Response] => [
    status,
    '$ref' in r ? (doc.components?.responses?.[refName(r.$ref)] ?? { description: '' }) : r,
  ]);
  const ok = responses.filter(([status]) => Number(status) < 400);
  const errors = responses.filter(([status]) => Number(status) >= 400);
  const params = op.parameters ?? [];
  const media = Object.keys(op.requestBody?.content ?? {});
  const id = opAnchor(method, path);
  return (
    <section class="api-op" id={id} aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>
        <span class={`api-method api-${method}`}>{method.toUpperCase()}</span> <code class="api-path">{path}</code>
      </h3>
      <p class="api-summary">
        {op.summary}
        {op.security && op.security.length === 0 ? <span class="api-public"> · no sign-in</span> : null}
      </p>
      {op.description && (
        <div class="api-text">
          <Text text={op.description} />
        </div>
      )}
      {params.length > 0 && (
        <>
          <h4>Parameters</h4>
          <ul class="api-fields">
            {params.map((p) => (
              <li>
                <code class="api-name">{p.name}</code> <span class="muted">in {p.in}</span>{' '}
                <span class="api-type">{p.schema ? <TypeOf s={p.schema} doc={doc} /> : 'string'}</span>
                {p.required ? <span class="api-required"> required</span> : null}
                {p.schema && limits(p.schema).length > 0 && <span class="muted"> · {limits(p.schema).join(', ')}</span>}
                {p.description && <div class="api-desc">{inline(p.description)}</div>}
              </li>
            ))}
          </ul>
        </>
      )}
      {media.length > 0 && (
        <>
          <h4>Request</h4>
          <p class="muted small">{media.map((m) => <code>{m}</code>).flatMap((x, i) => (i ? [', ', x] : [x]))}</p>
          <Body
            media={op.requestBody!.content['application/json'] ?? Object.values(op.requestBody!.content)[0]}
            doc={doc}
            sent
          />
        </>
      )}
      <h4>Responses</h4>
      {ok.map(([status, r]) => (
        <div class="api-response">
          <p>
            <strong>{status}</strong> {r.description}
            {r.content && !r.content['application/json'] ? (
              <>
                {' '}
                (<code>{Object.keys(r.content).join(', ')}</code>)
              </>
            ) : null}
          </p>
          <Body media={r.content?.['application/json']} doc={doc} sent={false} />
        </div>
      ))}
      {errors.length > 0 && (
        <>
          <p class="api-errors-head">
            Errors (<a href="#schema-error">Error</a>):
          </p>
          <ul class="api-errors">
            {errors.map(([status, r]) => (
              <li>
                <strong>{status}</strong> {inline(r.description)}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** The whole reference: introduction, contents by tag, every operation, then the named schemas. */
export function ApiDocsPage({ doc }: { doc: ApiDocument }) {
  const byTag = new Map<string, { method: string; path: string; op: Operation }[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ method, path, op });
    }
  }
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .filter(([name]) => !isBody(name))
    .sort(([a], [b]) => a.localeCompare(b));
  return (
    <article class="api-docs">
      <header class="page-head">
        <h1>{doc.info.title}</h1>
        <span class="muted">version {doc.info.version}</span>
      </header>
      <p>
        The machine-readable document: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).
      </p>
      {doc.info.description && (
        <div class="api-text">
          <Text text={doc.info.description} />
        </div>
      )}
      <nav class="api-toc" aria-labelledby="api-toc-h">
        <h2 id="api-toc-h">Contents</h2>
        <ul>
          {[...byTag].map(([tag, ops]) => (
            <li>
              <a href={`#tag-${slug(tag)}`}>{tag}</a>
              <ul>
                {ops.map(({ method, path, op }) => (
                  <li>
                    <a href={`#${opAnchor(method, path)}`}>
                      <span class={`api-method api-${method}`}>{method.toUpperCase()}</span> <code>{path}</code>
                    </a>{' '}
                    <span class="muted">{op.summary}</span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
          <li>
            <a href="#schemas">Schemas</a>
          </li>
        </ul>
      </nav>
      {[...byTag].map(([tag, ops]) => (
        <section class="api-tag" aria-labelledby={`tag-${slug(tag)}`}>
          <h2 id={`tag-${slug(tag)}`}>{tag}</h2>
          {ops.map(({ method, path, op }) => (
            <OperationView method={method} path={path} op={op} doc={doc} />
          ))}
        </section>
      ))}
      <section class="api-tag" aria-labelledby="schemas">
        <h2 id="schemas">Schemas</h2>
        {schemas.map(([name, s]) => (
          <section class="api-op" id={`schema-${slug(name)}`} aria-labelledby={`schema-${slug(name)}-h`}>
            <h3 id={`schema-${slug(name)}-h`}>{name}</h3>
            {s.description && (
              <div class="api-text">
                <Text text={s.description} />
              </div>
            )}
            {s.properties ? (
              <Fields s={s} doc={doc} sent={false} />
            ) : (
              <>
                <p class="api-type-line">
                  <TypeOf s={s} doc={doc} />
                </p>
                {nested(s, doc).map((o) => (
                  <div class="api-variant">
                    <Fields s={o} doc={doc} sent={false} />
                  </div>
                ))}
              </>
            )}
          </section>
        ))}
      </section>
    </article>
  );
}
