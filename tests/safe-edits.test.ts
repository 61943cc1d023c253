import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { releasePostgres } from './helpers/postgres.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D6 (decision 052), over HTTP on both stores: Take from a colleague asks first (the server
// refuses it unless confirmed for the owner it is now); a bulk change to deleted asks first and
// changes nothing until confirmed; a deleted ticket takes no public reply and Restore gives back
// the status it had; every refused field is said in words with its label — never a raw key or a
// library's wording — once.

let s: TestServer;
let agent: { id: number; token: string; email: string };
let olga: { id: number; token: string };
let ivan: { id: number; token: string };

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  olga = await s.user('agent');
  ivan = await s.user('agent');
  await s.api('PATCH', `/users/${olga.id}`, { body: { name: 'Olga Owner' } });
  await s.api('PATCH', `/users/${ivan.id}`, { body: { name: 'Ivan Other' } });
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

const make = async (subject: string, extra: Record<string, unknown> = {}) => {
  const r = await s.api('POST', '/tickets', { body: { queue_id: 1, subject, ...extra } });
  expect(r.status, r.text).toBe(201);
  return r.body.ticket.id as number;
};
const HTMX = { 'hx-request': 'true', accept: 'text/html' };

describe('Take from a colleague', () => {
  it('is refused (409, nothing changed) unless confirmed for the owner it is now; a changed owner is asked about again', async () => {
    const id = await make('Olga’s printer', { owner_id: olga.id });
    const asked = await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { owner_id: agent.id } });
    expectError(asked, 409, 'conflict');
    expect(asked.body.error.message).toMatch(/^Take from Olga Owner\? /);
    expect(asked.body.error.message).toContain(`confirm_owner_id: ${olga.id}`);
    expect((await ticketOf(s, id)).owner_id).toBe(olga.id);
    expect((await transactionsOf(s, id)).map((t) => t.type)).toEqual(['Create']);

    // Meanwhile the ticket went to Ivan: the answer about Olga is not enough; the question is about Ivan.
    await s.api('PATCH', `/tickets/${id}`, { body: { owner_id: ivan.id } });
    const stale = await s.api('PATCH', `/tickets/${id}`, {
      token: agent.token,
      body: { owner_id: agent.id, confirm_owner_id: olga.id },
    });
    expectError(stale, 409, 'conflict');
    expect(stale.body.error.message).toMatch(/^Take from Ivan Other\? /);
    expect((await ticketOf(s, id)).owner_id).toBe(ivan.id);

    const taken = await s.api('PATCH', `/tickets/${id}`, {
      token: agent.token,
      body: { owner_id: agent.id, confirm_owner_id: ivan.id },
    });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.ticket.owner_id).toBe(agent.id);
  });

  it('an unowned ticket, one already mine, or someone else assigned by me: no question', async () => {
    const free = await make('Nobody’s');
    expect(
      (await s.api('PATCH', `/tickets/${free}`, { token: agent.token, body: { owner_id: agent.id } })).status,
    ).toBe(200);
    expect(
      (await s.api('PATCH', `/tickets/${free}`, { token: agent.token, body: { owner_id: agent.id } })).status,
    ).toBe(200);
    const owned = await make('Olga’s other', { owner_id: olga.id });
    expect(
      (await s.api('PATCH', `/tickets/${owned}`, { token: agent.token, body: { owner_id: ivan.id } })).status,
    ).toBe(200);
  });

  it('htmx gets the question with its answer button; a plain form gets it as a page', async () => {
    const id = await make('Olga’s monitor', { owner_id: olga.id });
    const frag = await s.api('PATCH', `/tickets/${id}`, {
      token: agent.token,
      headers: HTMX,
      form: { owner_id: String(agent.id) },
    });
    expect(frag.status).toBe(409);
    expect(frag.text).toContain('Take from Olga Owner?');
    expect(frag.text).toContain(
      `hx-vals="{&quot;owner_id&quot;:&quot;${agent.id}&quot;,&quot;confirm_owner_id&quot;:&quot;${olga.id}&quot;}"`,
    );
    expect(frag.text).not.toMatch(/<html/i);
    const page = await s.api('POST', `/tickets/${id}`, {
      token: agent.token,
      headers: { accept: 'text/html' },
      form: { _method: 'PATCH', owner_id: String(agent.id) },
    });
    expect(page.status).toBe(409);
    expect(page.text).toMatch(/<h1>Take from Olga Owner\?<\/h1>/);
    expect(page.text).toContain(`name="confirm_owner_id" value="${olga.id}"`);
    expect((await ticketOf(s, id)).owner_id).toBe(olga.id);
  });
});

describe('bulk change to deleted', () => {
  it('asks first: without confirm nothing changes (JSON 409, htmx the question in the bar, a plain form a page)', async () => {
    const a = await make('Spam A');
    const b = await make('Spam B');
    const json = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [a, b], changes: { status: 'deleted' } },
    });
    expectError(json, 409, 'conflict');
    expect(json.body.error.message).toMatch(/^Delete 2 tickets\? Nothing was changed/);
    const htmx = await s.api('PATCH', '/tickets', {
      token: agent.token,
      headers: HTMX,
      form: { ids: [String(a), String(b)], 'changes.status': 'deleted', return_to: '?status=new' },
    });
    expect(htmx.status).toBe(200);
    expect(htmx.headers.get('hx-retarget')).toBe('#bulk-error');
    expect(htmx.text).toContain('Delete 2 tickets?');
    expect(htmx.text).toContain('name="confirm" value="true"');
    const form = await s.api('POST', '/tickets', {
      token: agent.token,
      headers: { accept: 'text/html' },
      form: { _method: 'PATCH', ids: [String(a), String(b)], 'changes.status': 'deleted', 'changes.priority': '5' },
    });
    expect(form.status).toBe(200);
    expect(form.text).toMatch(/<h1>Delete 2 tickets\?<\/h1>/);
    expect(form.text).toContain('name="changes.priority" value="5"');
    for (const id of [a, b]) expect((await ticketOf(s, id)).status).toBe('new');

    const done = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [a, b], changes: { status: 'deleted' }, confirm: true },
    });
    expect(done.status, done.text).toBe(200);
    for (const id of [a, b]) expect((await ticketOf(s, id)).status).toBe('deleted');
  });

  it('other bulk changes do not ask', async () => {
    const a = await make('Resolve me');
    const r = await s.api('PATCH', '/tickets', {
      token: agent.token,
      body: { ids: [a], changes: { status: 'resolved' } },
    });
    expect(r.status, r.text).toBe(200);
  });
});

describe('a deleted ticket', () => {
  it('takes no public reply (409, nothing written); a note is kept; the page says so, offers Restore to the status it had, and no reply box', async () => {
    const id = await make('Deleted by mistake');
    await s.api('PATCH', `/tickets/${id}`, { body: { status: 'stalled' } });
    await s.api('PATCH', `/tickets/${id}`, { body: { status: 'deleted' } });
    const reply = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Hello?', internal: false },
    });
    expectError(reply, 409, 'conflict');
    expect(reply.body.error.message).toBe(`Ticket #${id} is deleted: restore it before replying (nothing was sent)`);
    const note = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Deleted: spam', internal: true },
    });
    expect(note.status, note.text).toBe(201);
    expect((await transactionsOf(s, id)).map((t) => t.type)).toEqual(['Create', 'Status', 'Status', 'Comment']);

    const page = await s.api('GET', `/tickets/${id}`, { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.text).toContain('This ticket is deleted.');
    expect(page.text).toMatch(
      /<input type="hidden" name="status" value="stalled"\/>\s*<button type="submit" class="primary">Restore<\/button>/,
    );
    expect(page.text).not.toContain('id="reply-form"');

    // Restore through the page's own form (htmx): the status it had, and the page reloads for its reply box.
    const restored = await s.api('PATCH', `/tickets/${id}`, {
      token: agent.token,
      headers: HTMX,
      form: { status: 'stalled' },
    });
    expect(restored.status).toBe(200);
    expect(restored.headers.get('hx-refresh')).toBe('true');
    expect((await ticketOf(s, id)).status).toBe('stalled');
    const again = await s.api('GET', `/tickets/${id}`, { token: agent.token, headers: { accept: 'text/html' } });
    expect(again.text).toContain('id="reply-form"');
    expect(again.text).not.toContain('This ticket is deleted.');
  });

  it('deleted without a status before it in the history (made deleted): Restore offers open', async () => {
    const id = await make('Born deleted', { status: 'deleted' });
    const page = await s.api('GET', `/tickets/${id}`, { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.text).toContain('<input type="hidden" name="status" value="open"/>');
  });
});

// ---- Errors in words ----

/** A library's wording (zod's defaults) or a comparison sign: never what a person reads. */
const LIBRARY =
  /Too (big|small)|expected (number|string|boolean|array|object)|Invalid (input|option|type)|Unrecognized key|received|[<>]=|NaN|nonoptional/i;

/** One refused write per field: the field it names and the words it must say. */
const CASES: [string, string, Record<string, unknown>, string, string | RegExp][] = [
  ['PATCH', '/tickets/$t', { priority: 101 }, 'priority', 'Priority must be between 0 and 100'],
  ['PATCH', '/tickets/$t', { priority: -1 }, 'priority', 'Priority must be between 0 and 100'],
  ['PATCH', '/tickets/$t', { priority: 'high' }, 'priority', 'Priority must be a whole number between 0 and 100'],
  ['PATCH', '/tickets/$t', { priority: 2.5 }, 'priority', 'Priority must be a whole number between 0 and 100'],
  [
    'PATCH',
    '/tickets/$t',
    { status: 'closed' },
    'status',
    'Status must be one of: new, open, stalled, resolved, rejected, deleted',
  ],
  ['PATCH', '/tickets/$t', { subject: '   ' }, 'subject', 'Subject must not be empty'],
  ['PATCH', '/tickets/$t', { subject: 'x'.repeat(501) }, 'subject', 'Subject must be at most 500 characters long'],
  ['PATCH', '/tickets/$t', { owner_id: 'me' }, 'owner_id', 'Owner must be an id (a positive whole number), or empty'],
  ['PATCH', '/tickets/$t', { queue_id: 99999 }, 'queue_id', 'Queue 99999 does not exist'],
  ['PATCH', '/tickets/$t', { colour: 'red' }, 'colour', 'Unknown field "colour"'],
  ['POST', '/tickets', { queue_id: 1, subject: 'x', priority: 500 }, 'priority', 'Priority must be between 0 and 100'],
  ['POST', '/tickets', { queue_id: 1 }, 'subject', 'Subject is required'],
  ['POST', '/tickets/$t/comment', { body: '', internal: false }, 'body', 'Message must not be empty'],
  [
    'PATCH',
    '/tickets',
    { ids: ['$t'], changes: { priority: 101 } },
    'changes.priority',
    'Priority must be between 0 and 100',
  ],
  ['PATCH', '/tickets', { ids: ['$t'], changes: { status: 'closed' } }, 'changes.status', /^Status must be one of: /],
  [
    'PATCH',
    '/tickets',
    { ids: ['$t'], changes: { owner_id: 'x' } },
    'changes.owner_id',
    'Owner must be an id, null or "none"',
  ],
  ['PATCH', '/tickets', { ids: [], changes: { status: 'open' } }, 'ids', 'Select at least one ticket'],
  [
    'PATCH',
    '/tickets',
    { ids: ['$t'], changes: {} },
    'changes',
    'Choose at least one change (status, owner, queue, team, priority or tags)',
  ],
  ['PATCH', '/settings', { timezone: 'x'.repeat(101) }, 'timezone', 'Timezone must be at most 100 characters long'],
  ['PATCH', '/settings', { notify_replies: 'sometimes' }, 'notify_replies', 'Notify replies must be true or false'],
  ['PATCH', '/settings', { password: 'short' }, 'password', 'Password: at least 12 characters'],
  ['POST', '/queues', { name: '' }, 'name', 'Name must not be empty'],
  [
    'POST',
    '/queues',
    { name: 'Q words', mail_cc_per_message: 0 },
    'mail_cc_per_message',
    /^Mail cc per message must be between 1 and \d+$/,
  ],
  [
    'POST',
    '/queues',
    { name: 'Q words', keep_mail_cc: 'perhaps' },
    'keep_mail_cc',
    'Keep mail cc must be true or false',
  ],
  ['POST', '/queues', { name: 'Q words', team_id: 'x' }, 'team_id', /^Team must be /],
];

describe('errors in words', () => {
  it('every refused field is said in words with its label, no raw key, no library wording; the message is what the details say', async () => {
    const t = await make('Words');
    for (const [method, rawPath, rawBody, field, words] of CASES) {
      const path = rawPath.replace('$t', String(t));
      const body = JSON.parse(JSON.stringify(rawBody).replaceAll('"$t"', String(t)));
      // Queues are the admin's (the default token); the rest the agent's.
      const res = await s.api(method, path, { token: path.startsWith('/queues') ? undefined : agent.token, body });
      const what = `${method} ${path} ${JSON.stringify(rawBody).slice(0, 80)}`;
      expect(res.status, `${what}: ${res.text}`).toBe(422);
      const details = res.body.error.details as { path: string; message: string }[];
      const d = details.find((x) => x.path === field);
      expect(d, `${what}: ${res.text}`).toBeDefined();
      if (typeof words === 'string') expect(d!.message, what).toBe(words);
      else expect(d!.message, what).toMatch(words);
      for (const x of details) {
        expect(x.message, what).not.toMatch(LIBRARY);
        expect(x.message, what).toMatch(/^[A-Z]/);
        // A key with a separator is never read out (an unknown field is named as sent, in quotes).
        if (/[._]/.test(x.path) && !x.message.startsWith('Unknown field'))
          expect(x.message, what).not.toContain(x.path);
      }
      expect(res.body.error.message, what).not.toMatch(/^Invalid /);
      expect(res.body.error.message, what).not.toMatch(LIBRARY);
    }
  });

  it('an htmx form gets each message once, in words, without a raw key', async () => {
    const t = await make('Words in a fragment');
    const res = await s.api('PATCH', `/tickets/${t}`, { token: agent.token, headers: HTMX, form: { priority: '150' } });
    expect(res.status).toBe(422);
    expect(res.text.split('Priority must be between 0 and 100').length - 1).toBe(2); // the line and its data-message
    expect(res.text).toBe(
      '<div class="inline-error"><p data-field="priority" data-message="Priority must be between 0 and 100">Priority must be between 0 and 100</p></div>',
    );
    const page = await s.api('POST', `/tickets/${t}`, {
      token: agent.token,
      headers: { accept: 'text/html' },
      form: { _method: 'PATCH', priority: '150' },
    });
    expect(page.status).toBe(422);
    expect(page.text).not.toContain('<code>priority</code>');
    expect(page.text.match(/>Priority must be between 0 and 100</g)).toHaveLength(1);
  });
});
