import http from 'node:http';
import {
  fieldsFor,
  formPairs,
  hostileJsonText,
  multipart,
  pathValue,
  queryString,
  randomMail,
  Rng,
  STATIC_NAMES,
  urlencoded,
} from './fuzzInputs.js';
import type { ApiResponse, TestServer } from './server.js';

// An HTTP fuzzer over every route the app has (read from hono's `app.routes`, so a new route
// is covered without touching this file): signed out, and as requester, agent and admin with a
// bearer token or a session cookie, with malformed ids, odd query strings, wrong content types,
// wrongly typed JSON and form bodies, deep field names, NUL bytes, bad escapes, htmx headers and
// `_method` overrides. A seed always yields the same requests. Used by tests/fuzz.test.ts (a
// few thousand requests) and `npm run fuzz` (as many as asked).

export const MAILGATE_TOKEN = 'fuzz-mailgate-token-0123456789';

export interface FuzzOptions {
  requests: number;
  seed: number;
  concurrency?: number;
  onProgress?: (done: number) => void;
}
export interface FuzzFailure {
  n: number;
  why: string;
  status: number | null;
  actor: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  answer: string;
}
export interface FuzzResult {
  requests: number;
  routes: number;
  elapsedMs: number;
  byClass: Record<string, number>;
  byStatus: Record<string, number>;
  failures: FuzzFailure[];
  /** Statuses by route pattern ("POST /tickets/:id/comment"), to see how deep the requests got. */
  byRoute: Record<string, Record<string, number>>;
}

interface Actor {
  name: string;
  headers: Record<string, string>;
  cookie: boolean;
}
interface Route {
  method: string;
  path: string;
}

const SAFE = ['GET', 'HEAD'];
const ANY_METHOD = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE'];

/** The routes to fuzz: every method + path the app registered (middleware entries left out). */
export function routesOf(s: TestServer): Route[] {
  const seen = new Map<string, Route>();
  for (const r of s.app.routes) {
    const method = r.method === 'ALL' ? 'GET' : r.method;
    if (r.path === '/*' || r.path === '*') continue;
    seen.set(`${method} ${r.path}`, { method, path: r.path });
  }
  return [...seen.values()];
}

/** Users with passwords, sessions and tokens for each role, and some data for ids to find. */
async function prepare(s: TestServer) {
  const ok = (res: ApiResponse, what: string) => {
    if (res.status >= 300) throw new Error(`fuzz setup: ${what}: ${res.status} ${res.text}`);
    return res;
  };
  const password = 'fuzz-password-123';
  const actors: Actor[] = [{ name: 'anonymous', headers: {}, cookie: false }];
  const protectedUsers: string[] = [];
  const protectedTokens: string[] = ['1'];
  for (const role of ['admin', 'agent', 'requester'] as const) {
    const email = `fuzz-${role}@example.com`;
    const user = ok(
      await s.api('POST', '/users', { body: { email, name: `Fuzz ${role}`, role, password } }),
      `user ${role}`,
    );
    protectedUsers.push(String(user.body.id));
    const login = ok(await s.api('POST', '/login', { token: null, body: { email, password } }), `login ${role}`);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('hxdesk_session='))!
      .split(';')[0];
    const token = ok(
      await s.api('POST', '/tokens', { token: null, body: { name: 'fuzz' }, headers: { cookie, origin: s.url } }),
      `token ${role}`,
    );
    protectedTokens.push(String(token.body.id));
    actors.push({ name: `${role}/bearer`, headers: { authorization: `Bearer ${token.body.token}` }, cookie: false });
    actors.push({ name: `${role}/cookie`, headers: { cookie }, cookie: true });
  }
  const admin1 = await s.api('GET', '/me');
  protectedUsers.push(String(admin1.body.id));
  ok(await s.api('POST', '/teams', { body: { name: 'Fuzz team' } }), 'team');
  ok(
    await s.api('POST', '/queues', { body: { name: 'Billing', mail_alias: 'billing@example.com', team_id: 1 } }),
    'queue',
  );
  ok(
    await s.api('POST', '/custom-fields', {
      body: { key: 'size', name: 'Size', type: 'select', options: ['S', 'M', 'L'] },
    }),
    'custom field',
  );
  for (let i = 0; i < 3; i++)
    ok(
      await s.api('POST', '/tickets', { body: { queue_id: 1, subject: `Fuzz ticket ${i}`, description: 'printer' } }),
      'ticket',
    );
  ok(await s.api('POST', '/tickets/1/comment', { body: { body: 'a note' } }), 'comment');
  ok(await s.api('POST', '/saved-views', { body: { name: 'Fuzz view', filters: { status: 'new' } } }), 'view');
  ok(
    await s.api('POST', '/dashboards', {
      body: { name: 'Fuzz board', widgets: [{ kind: 'ticket_list', config: { view_id: 1 } }] },
    }),
    'dashboard',
  );
  const mail =
    'From: a@example.com\r\nTo: support@example.com\r\nSubject: with file\r\nMessage-ID: <fuzz-seed@example.com>\r\n' +
    'Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b\r\nContent-Type: text/plain; name=a.txt\r\n' +
    'Content-Disposition: attachment; filename=a.txt\r\n\r\nfile\r\n--b--\r\n';
  ok(
    await s.api('POST', '/mailgate', {
      token: null,
      body: mail,
      headers: { authorization: `Bearer ${MAILGATE_TOKEN}`, 'content-type': 'message/rfc822' },
    }),
    'mail',
  );
  return { actors, protectedUsers, protectedTokens };
}

interface Planned {
  route: string;
  actor: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

/** The id a path value names, as the app reads it (decoded, trimmed, leading zeros dropped). */
function asId(v: string): string {
  try {
    const d = decodeURIComponent(v).trim();
    return /^\d+$/.test(d) ? String(Number(d)) : v;
  } catch {
    return v;
  }
}

function planRequest(r: Rng, s: TestServer, routes: Route[], ctx: Awaited<ReturnType<typeof prepare>>): Planned {
  const route = r.chance(0.02)
    ? {
        method: 'GET',
        path: r.pick(['/no-such-route', '/tickets/1/nope', '/%2e%2e/etc/passwd', '//tickets', '/tickets/']),
      }
    : r.pick(routes);
  const method = r.chance(0.88) ? route.method : r.pick(ANY_METHOD);
  let path = route.path
    .replace(/:(\w+)/g, (_m, name: string) => {
      const v = pathValue(r, name);
      // The fuzz's own users and tokens are left alone (` 1` and `007` are ids 1 and 7 too).
      const id = asId(v);
      if (route.path.startsWith('/users') && ctx.protectedUsers.includes(id)) return '999';
      if (route.path.startsWith('/tokens') && ctx.protectedTokens.includes(id)) return '999';
      return v;
    })
    .replace('*', () => r.pick(STATIC_NAMES));
  path += queryString(r);

  const actor = r.pick(ctx.actors);
  const headers: Record<string, string> = { ...actor.headers };
  // Signing out a fuzz session would end it for every later request: logout is fuzzed without one.
  if (actor.cookie && route.path === '/logout') delete headers.cookie;
  if (actor.cookie) {
    const o = r.next();
    if (o < 0.8) headers.origin = s.url;
    else if (o < 0.85) headers.origin = 'https://evil.example';
    else if (o < 0.9) {
      headers.origin = 'null';
      headers['sec-fetch-site'] = r.pick(['same-origin', 'cross-site']);
    }
  } else if (actor.name === 'anonymous' && r.chance(0.2)) {
    if (r.chance(0.5))
      headers.authorization = r.pick([
        'Bearer',
        'Bearer ',
        'Bearer x y',
        'Basic YWRtaW46YWRtaW4=',
        'bearer hxd_nope',
        `Bearer ${'x'.repeat(5000)}`,
      ]);
    else
      headers.cookie = r.pick([
        'hxdesk_session=',
        'hxdesk_session=%',
        'hxdesk_session="x"',
        'a=b; hxdesk_session=x; hxdesk_session=y',
        'hxdesk_session=%ff%00',
      ]);
  }
  if (route.path === '/mailgate' && r.chance(0.8)) headers.authorization = `Bearer ${MAILGATE_TOKEN}`;
  const accept = r.pick([
    undefined,
    undefined,
    'application/json',
    'text/html',
    '*/*',
    'text/html,application/xhtml+xml',
    'image/png',
    ';;;',
  ]);
  if (accept) headers.accept = accept;
  if (r.chance(0.3)) headers['hx-request'] = r.pick(['true', 'true', 'false', '1']);
  if (r.chance(0.1)) headers['hx-boosted'] = 'true';
  if (r.chance(0.1)) headers['hx-target'] = r.pick(['ticket-list', 'x', '']);
  if (r.chance(0.05)) headers['hx-current-url'] = r.pick([`${s.url}/tickets`, 'javascript:alert(1)', '%%%']);

  let body: Buffer | null = null;
  if (!SAFE.includes(method) || r.chance(0.03)) {
    const fields = fieldsFor(r, route.path);
    const kind =
      route.path === '/mailgate' && r.chance(0.5)
        ? 'mail'
        : r.pick([
            'none',
            'json',
            'json',
            'json',
            'json',
            'hostile-json',
            'form',
            'form',
            'form',
            'multipart',
            'broken-multipart',
            'other',
          ]);
    const set = (type: string | null, data: string | Buffer) => {
      if (type !== null) headers['content-type'] = type;
      body = Buffer.isBuffer(data) ? data : Buffer.from(data);
    };
    switch (kind) {
      case 'json':
        set(
          r.pick([
            'application/json',
            'application/json',
            'application/json; charset=utf-8',
            'APPLICATION/JSON',
            'application/vnd.api+json',
          ]),
          JSON.stringify(fields),
        );
        break;
      case 'hostile-json':
        set(r.pick(['application/json', 'application/json; charset=utf-16']), hostileJsonText(r));
        break;
      case 'form':
        set(
          r.pick(['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8']),
          urlencoded(r, formPairs(r, fields)),
        );
        break;
      case 'multipart': {
        const b = `fuzz${r.int(1e9)}`;
        set(`multipart/form-data; boundary=${b}`, multipart(r, formPairs(r, fields), b));
        break;
      }
      case 'broken-multipart':
        set(
          r.pick([
            'multipart/form-data',
            'multipart/form-data; boundary=',
            'multipart/form-data; boundary=zz',
            'multipart/form-data; boundary="a b"',
          ]),
          multipart(r, formPairs(r, fields), 'yy'),
        );
        break;
      case 'mail':
        set(r.pick(['message/rfc822', 'text/plain', 'application/octet-stream']), Buffer.from(randomMail(r), 'latin1'));
        break;
      case 'other':
        set(
          r.pick([
            'text/plain',
            'application/xml',
            'message/rfc822',
            'application/octet-stream',
            'multipart/mixed',
            'image/png',
            ';',
            'x',
          ]),
          r.chance(0.5) ? JSON.stringify(fields) : randomMail(r),
        );
        break;
      default:
        if (r.chance(0.02)) set('application/json', Buffer.alloc(1024 * 1024 + 10, 0x20));
    }
  }
  return { route: `${method} ${route.path}`, actor: actor.name, method, path, headers, body };
}

function send(
  s: TestServer,
  agent: http.Agent,
  p: Planned,
): Promise<{ status: number | null; type: string; text: string; why?: string }> {
  const { port } = new URL(s.url);
  return new Promise((resolve) => {
    let req: http.ClientRequest;
    try {
      req = http.request({
        host: '127.0.0.1',
        port,
        method: p.method,
        path: p.path,
        headers: p.body ? { ...p.headers, 'content-length': String(p.body.length) } : p.headers,
        agent,
      });
    } catch (e) {
      resolve({ status: null, type: '', text: '', why: `not sent: ${(e as Error).message}` });
      return;
    }
    req.setTimeout(30_000, () => {
      req.destroy(new Error('no answer in 30 s'));
    });
    req.on('response', (res) => {
      if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, type: 'text/event-stream', text: '' });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', (e) =>
        resolve({ status: res.statusCode ?? 0, type: '', text: '', why: `answer cut off: ${e.message}` }),
      );
    });
    req.on('error', (e) => resolve({ status: null, type: '', text: '', why: `connection: ${e.message}` }));
    req.end(p.body ?? undefined);
  });
}

/** What must hold for every answer: no 5xx, and a JSON error is SPEC B5's shape. */
function judge(p: Planned, res: Awaited<ReturnType<typeof send>>): string | null {
  if (res.why) {
    // Refusals that close the connection while the client is still writing: a body over the
    // 1 MiB limit (413), a request head over Node's 16 KiB header limit (431).
    const head = p.path.length + Object.entries(p.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    const refused = (p.body !== null && p.body.length > 1024 * 1024) || head > 16 * 1024;
    return refused && res.why.startsWith('connection') ? null : res.why;
  }
  if (res.status === null) return 'no status';
  if (res.status >= 500) return `status ${res.status}`;
  if (res.status >= 400 && res.type.includes('json') && p.method !== 'HEAD') {
    try {
      const e = JSON.parse(res.text).error;
      if (typeof e?.code !== 'string' || typeof e?.message !== 'string') return 'JSON error without code and message';
    } catch {
      return 'error body is not JSON';
    }
  }
  return null;
}

export async function fuzz(s: TestServer, opts: FuzzOptions): Promise<FuzzResult> {
  const started = performance.now();
  const routes = routesOf(s);
  const ctx = await prepare(s);
  const r = new Rng(opts.seed);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency ?? 1 });
  const result: FuzzResult = {
    requests: 0,
    routes: routes.length,
    elapsedMs: 0,
    byClass: {},
    byStatus: {},
    byRoute: {},
    failures: [],
  };
  const secret = (h: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(h).map(([k, v]) => [k, k === 'authorization' || k === 'cookie' ? `${v.slice(0, 16)}…` : v]),
    );
  const worker = async () => {
    while (result.requests < opts.requests) {
      const n = ++result.requests;
      const p = planRequest(r, s, routes, ctx);
      const res = await send(s, agent, p);
      const cls = res.status === null ? 'none' : `${String(res.status)[0]}xx`;
      result.byClass[cls] = (result.byClass[cls] ?? 0) + 1;
      result.byStatus[String(res.status)] = (result.byStatus[String(res.status)] ?? 0) + 1;
      const perRoute = (result.byRoute[p.route] ??= {});
      perRoute[String(res.status)] = (perRoute[String(res.status)] ?? 0) + 1;
      const why = judge(p, res);
      if (why) {
        result.failures.push({
          n,
          why,
          status: res.status,
          actor: p.actor,
          method: p.method,
          path: p.path.slice(0, 300),
          headers: secret(p.headers),
          body: (p.body ?? Buffer.alloc(0)).toString('latin1').slice(0, 600),
          answer: res.text.slice(0, 300),
        });
      }
      if (result.requests % 1000 === 0) opts.onProgress?.(result.requests);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 1 }, worker));
  agent.destroy();
  result.elapsedMs = Math.round(performance.now() - started);
  return result;
}
