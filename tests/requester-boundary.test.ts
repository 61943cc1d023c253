import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_API } from '../src/routes/openapi.js';
import { rawCount } from './helpers/db.js';
import { mailIn, signedPath } from './helpers/portal.js';
import { transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { signIn, tokenFor } from './helpers/session.js';

// SPEC D6, docs/decisions/050: the requester boundary is enforced in the domain, not only by
// redirects. Every route the app registers is walked as a signed-in requester — GET as JSON with
// their API token and as a page with their session cookie — on a ticket of theirs that carries
// everything a customer must not see; no answer shows any of it. Writes they may not do are
// refused and change nothing.

let s: TestServer;
const PASSWORD = 'customer-password-123';
/** Words that only staff may read; none may appear in any answer to the requester. */
const SECRET = {
  owner: 'Zebulon Quasimodo',
  adminCc: 'Ophelia Adminccson',
  team: 'Team Narwhal',
  queue: 'Queue Marmalade',
  alias: 'marmalade-desk@helpdesk.example',
  note: 'platypus-internal-remark',
  outsider: 'outsider-wombat-message',
  field: 'cfsecret-value',
  deleted: 'Deleted-Iguana request',
};
/** JSON fields only staff read. */
const STAFF_FIELDS = [
  'owner_id',
  'team_id',
  'admin_cc',
  'scrip_results',
  'mail_alias',
  'custom_fields',
  'priority',
  'signature',
];

let customer: { id: number; email: string; token: string; cookie: string };
let ticketId: number;
let deletedId: number;
let noteTxn: number;
let queueId: number;
let ownerId: number;
let adminCcId: number;
let link: string;

async function ok(method: string, path: string, body?: unknown) {
  const res = await s.api(method, path, body === undefined ? {} : { body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  s = await startServer();
  const team = await ok('POST', '/teams', { name: SECRET.team });
  const owner = await ok('POST', '/users', { email: 'zq@staff.example', name: SECRET.owner, role: 'agent' });
  const adminCc = await ok('POST', '/users', { email: 'oa@staff.example', name: SECRET.adminCc, role: 'agent' });
  const replier = await ok('POST', '/users', { email: 'pr@staff.example', name: 'Petra Replier', role: 'agent' });
  ownerId = owner.id;
  adminCcId = adminCc.id;
  await ok('POST', `/teams/${team.id}/members`, { user_id: owner.id });
  const queue = await ok('POST', '/queues', { name: SECRET.queue, mail_alias: SECRET.alias, team_id: team.id });
  queueId = queue.id;
  await ok('POST', '/custom-fields', { key: 'internal_ref', name: 'Internal reference', type: 'text' });
  const email = 'iris@customer.example';
  const made = await ok('POST', '/users', { email, name: 'Iris Customer', role: 'requester', password: PASSWORD });
  const created = await ok('POST', '/tickets', {
    queue_id: queue.id,
    subject: 'Printer on fire',
    description: 'It smokes.',
    requesters: [made.id],
    owner_id: owner.id,
    admin_cc: [adminCc.id],
    priority: 77,
    custom_fields: { internal_ref: SECRET.field },
  });
  ticketId = created.ticket.id;
  noteTxn = (await ok('POST', `/tickets/${ticketId}/comment`, { body: `Note: ${SECRET.note}`, internal: true }))
    .transaction.id;
  const replierToken = (await s.user('agent')).token; // any agent: the status change by staff
  await s.api('PATCH', `/tickets/${ticketId}`, { token: replierToken, body: { status: 'stalled' } });
  await ok('POST', `/tickets/${ticketId}/comment`, {
    body: 'We are on it.',
    internal: false,
    creator_id: replier.id,
  });
  // Mail from someone not on the ticket: an internal Comment (outside sender).
  await mailIn(s, {
    from: 'stranger@elsewhere.example',
    subject: `Re: [hxdesk #${ticketId}] x`,
    body: SECRET.outsider,
  });
  const gone = await ok('POST', '/tickets', { queue_id: queue.id, subject: SECRET.deleted, requesters: [made.id] });
  deletedId = gone.ticket.id;
  await ok('PATCH', `/tickets/${deletedId}`, { status: 'deleted' });
  await fetch(`${s.url}/portal/not-a-link`); // the link key is made on first use
  link = await signedPath(s, { ticketId, userId: made.id });
  const cookie = await signIn(s, email, PASSWORD);
  customer = { id: made.id, email, cookie, token: await tokenFor(s.url, email, PASSWORD) };
});
afterAll(async () => {
  await s?.close();
});

/** A registered path with every parameter filled in with something of the scenario. */
function fill(path: string): string {
  const values: Record<string, string> = {
    id: String(ticketId),
    txnId: String(noteTxn),
    attachmentId: '1',
    widgetId: '1',
    userId: String(adminCcId),
    role: 'admin_cc',
    token: link.slice('/portal/'.length),
  };
  return path.replace(/:(\w+)/g, (_, name: string) => values[name] ?? '1');
}

/** The keys of a JSON answer, at any depth. */
function keysOf(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) keysOf(x, out);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out.add(k);
      keysOf(x, out);
    }
  return out;
}

function expectNothingSecret(what: string, text: string) {
  for (const word of Object.values(SECRET)) expect(text, `${what} shows "${word}"`).not.toContain(word);
  expect(text, `${what} shows the owner's change`).not.toMatch(/Owner changed|SetOwner/);
}

const isStream = (path: string) => /\/events$/.test(path);

describe('a requester walking every route', () => {
  const gets = () =>
    [...new Set(s.app.routes.filter((r) => r.method === 'GET').map((r) => r.path))].filter(
      (p) => !isStream(p) && !p.startsWith('/static/'),
    );

  it('reads nothing staff-only through the JSON API (token), and every answer fits the document', async () => {
    const walked: string[] = [];
    for (const route of gets()) {
      for (const path of [fill(route), route.includes(':id') ? route.replace(':id', String(deletedId)) : null]) {
        if (!path || NOT_API.some((re) => re.test(path))) continue; // redirects and pages, walked below
        const res = await s.api('GET', path, { token: customer.token });
        walked.push(`${res.status} ${path}`);
        expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
        if (path === '/openapi.json') continue; // the document names fields, it holds no data
        expectNothingSecret(path, res.text);
        // What a new ticket asks for: no staff field is theirs to fill.
        if (path === '/tickets/new') {
          expect(res.body).toEqual({ custom_fields: [] });
          continue;
        }
        if (res.status === 200 && typeof res.body === 'object') {
          const keys = keysOf(res.body);
          for (const field of STAFF_FIELDS) expect(keys.has(field), `${path} answers ${field}`).toBe(false);
        }
      }
    }
    // Their own ticket and its public history do answer; its deleted sibling and the note do not.
    expect(walked).toContain(`200 /tickets/${ticketId}`);
    expect(walked).toContain(`200 /tickets/${ticketId}/transactions`);
    expect(walked).toContain(`404 /tickets/${deletedId}`);
    expect(walked).toContain(`404 /tickets/${ticketId}/transactions/${noteTxn}`);
    expect((await s.api('GET', `/queues/${queueId}`, { token: customer.token })).status).toBe(404);
  });

  it('their history is the public entries only, and the ticket has no staff field', async () => {
    const history = await s.api('GET', `/tickets/${ticketId}/transactions`, { token: customer.token });
    expect(history.body.transactions.map((t: { type: string }) => t.type)).toEqual(['Create', 'Correspond']);
    const t = await s.api('GET', `/tickets/${ticketId}`, { token: customer.token });
    expect(Object.keys(t.body).sort()).toEqual(
      [
        'cc',
        'created_at',
        'description',
        'id',
        'queue_id',
        'requester_id',
        'requesters',
        'resolved_at',
        'status',
        'subject',
        'updated_at',
      ].sort(),
    );
    // Staff still read every field of the same ticket.
    const staff = await s.api('GET', `/tickets/${ticketId}`);
    expect(staff.body).toMatchObject({ owner_id: ownerId, priority: 77, admin_cc: [adminCcId] });
    const list = await s.api('GET', '/tickets?status=deleted', { token: customer.token });
    expect(list.body.tickets).toEqual([]);
    expect(
      (await s.api('GET', '/queues', { token: customer.token })).body.queues.map((q: { name: string }) => q.name),
    ).toEqual(['General']);
    for (const q of ['owner_id=me', `team_id=1`, 'sort=-priority', 'cf.internal_ref=x'])
      expect((await s.api('GET', `/tickets?${q}`, { token: customer.token })).status, q).toBe(403);
  });

  it('gets every staff page as the matching portal page (session cookie), which shows nothing staff-only', async () => {
    const html = { accept: 'text/html' };
    for (const route of gets()) {
      const path = fill(route);
      const res = await s.api('GET', path, { token: null, headers: { ...html, cookie: customer.cookie } });
      expect(res.status, path).toBeLessThan(500);
      // The portal, and a rating link's page (SPEC D4: public, its token the credential).
      if (path.startsWith('/portal') || path.startsWith('/csat/') || path === '/openapi.json') {
        if (path !== '/openapi.json') expectNothingSecret(path, res.text);
        continue;
      }
      if (/^\/(attachments\/|healthz$|login$|favicon)/.test(path)) continue;
      expect(res.status, `${path} is not a staff page for them`).toBe(303);
      const to = res.headers.get('location')!;
      expect(to, path).toMatch(/^\/portal/);
      const page = await s.api('GET', to, { token: null, headers: { ...html, cookie: customer.cookie } });
      expect(page.status, to).toBe(200);
      expectNothingSecret(`${path} → ${to}`, page.text);
    }
  });

  it('the issue: a customer with a password opening /tickets, /tickets/:id or /settings gets the portal', async () => {
    const open = async (p: string) =>
      s.api('GET', p, { token: null, headers: { accept: 'text/html', cookie: customer.cookie } });
    expect((await open('/tickets')).headers.get('location')).toBe('/portal');
    expect((await open('/settings')).headers.get('location')).toBe('/portal/settings');
    expect((await open(`/tickets/${ticketId}`)).headers.get('location')).toBe(`/portal/tickets/${ticketId}`);
    expect((await open(`/tickets/${deletedId}`)).headers.get('location')).toBe('/portal');
    expect((await open('/dashboards')).headers.get('location')).toBe('/portal');
    const page = await open(`/portal/tickets/${ticketId}`);
    expect(page.text).toContain('Printer on fire');
    expect(page.text).toContain('We are on it.');
    expectNothingSecret('the portal page', page.text);
    // htmx asking for a staff fragment is sent to the portal page too.
    const frag = await s.api('GET', '/tickets', {
      token: null,
      headers: { 'hx-request': 'true', cookie: customer.cookie },
    });
    expect(frag.headers.get('hx-redirect')).toBe('/portal');
  });
});

describe('writes a requester may not do', () => {
  it('are refused (403/404) and change nothing', async () => {
    const before = {
      ticket: (await s.api('GET', `/tickets/${ticketId}`)).body,
      history: await transactionsOf(s, ticketId),
      tickets: await rawCount(s, 'tickets'),
      users: await rawCount(s, 'users'),
      queues: await rawCount(s, 'queues'),
      outbox: await rawCount(s, 'outbox'),
    };
    const t = customer.token;
    const refused: [string, string, unknown][] = [
      ['PATCH', `/tickets/${ticketId}`, { status: 'resolved' }],
      ['PATCH', `/tickets/${ticketId}`, { owner_id: adminCcId }],
      ['POST', `/tickets/${ticketId}/comment`, { body: 'sneaky note', internal: true }],
      ['POST', `/tickets/${ticketId}/watchers`, { role: 'cc', email: 'friend@customer.example' }],
      ['DELETE', `/tickets/${ticketId}/watchers/admin_cc/${adminCcId}`, undefined],
      ['POST', `/tickets/${ticketId}/typing`, undefined],
      ['POST', `/tickets/${deletedId}/comment`, { body: 'on a deleted one', internal: false }],
      ['POST', `/portal/tickets/${deletedId}/reply`, { body: 'on a deleted one' }],
      ['POST', '/tickets', { queue_id: queueId, subject: 'In a staff queue' }],
      ['POST', '/queues', { name: 'Mine' }],
      ['PATCH', `/queues/${queueId}`, { portal_create: true }],
      ['POST', '/users', { email: 'x@customer.example', name: 'X', role: 'admin' }],
      ['PATCH', `/users/${customer.id}`, { role: 'admin' }],
      ['POST', '/teams', { name: 'Mine' }],
      ['POST', '/custom-fields', { key: 'mine', name: 'Mine', type: 'text' }],
      ['POST', '/saved-views', { name: 'Mine', filters: {} }],
      ['POST', '/dashboards', { name: 'Mine' }],
      ['POST', '/responses', { name: 'Mine', body: 'x' }],
      ['POST', '/templates', { name: 'Mine', subject: 'x', body: 'x' }],
      ['POST', '/scrips', { key: 'mine', condition: 'on_create', action: 'notify_requesters_and_cc' }],
      ['POST', '/outbox/1/retry', undefined],
      ['POST', '/mail/intake/1/replay', undefined],
      ['POST', `/users/${customer.id}/portal-links/revoke`, undefined],
    ];
    for (const [method, path, body] of refused) {
      const res = await fetch(`${s.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect([403, 404, 422], `${method} ${path}: ${res.status} ${await res.text()}`).toContain(res.status);
    }
    // A bulk change is one answer with every ticket refused.
    const bulk = await s.api('PATCH', '/tickets', {
      token: t,
      body: { ids: [ticketId], changes: { status: 'resolved' } },
    });
    expect(bulk.body.results.every((r: { ok: boolean }) => !r.ok)).toBe(true);
    // A staff form posted with their session is refused before it is read.
    const form = await fetch(`${s.url}/tickets/${ticketId}/comment`, {
      method: 'POST',
      headers: {
        cookie: customer.cookie,
        origin: s.url,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'body=from+a+staff+form&internal=false',
    });
    expect(form.status).toBe(403);
    expect(await form.text()).toContain('portal');
    expect({
      ticket: (await s.api('GET', `/tickets/${ticketId}`)).body,
      history: await transactionsOf(s, ticketId),
      tickets: await rawCount(s, 'tickets'),
      users: await rawCount(s, 'users'),
      queues: await rawCount(s, 'queues'),
      outbox: await rawCount(s, 'outbox'),
    }).toEqual(before);
  });
});
