import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetWriteStatements, writeStatements } from '../src/db/postgres/statements.js';
import { rawGet } from './helpers/db.js';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';

// Decision 067: each process keeps the configuration every write reads (scrips, templates, queues
// and their watchers and aliases, our own addresses, custom fields and their queues, teams and
// their members) between units of work, for as long as `config_version` is the one it was read
// under. An admin's change through one process is what the very next write in another process
// uses: two servers, each with its own store (pool and cache), on one PostgreSQL database. For
// each kind, process A writes first (so it has the configuration kept), then B's admin changes
// it, then A's next write must use the change.

let a: TestServer;
let b: TestServer;

type Outbox = { recipient: string; subject: string }[];
const outboxOf = async (server: TestServer, ticketId: number): Promise<Outbox> =>
  (await server.api('GET', `/outbox?ticket_id=${ticketId}`)).body.outbox;

/** A ticket created through `server` (201 expected), and its outbox. */
async function created(server: TestServer, body: object): Promise<{ id: number; outbox: Outbox }> {
  const t = await server.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Printer', ...body } });
  expect(t.status, t.text).toBe(201);
  return { id: t.body.ticket.id, outbox: await outboxOf(server, t.body.ticket.id) };
}
const recipients = (o: Outbox) => o.map((m) => m.recipient);

describe.skipIf(!pgAvailable())('configuration changed through another process', () => {
  beforeAll(async () => {
    const url = await createMigratedDatabase();
    a = await startServer({ DATABASE_URL: url });
    b = await startServer({ DATABASE_URL: url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await releasePostgres();
  });

  const autoreplySubject = async (server: TestServer, customer: string) =>
    (await created(server, { requesters: [customer] })).outbox.find((o) => o.recipient === customer)?.subject;

  it('templates, and queue aliases (our own addresses)', async () => {
    const templates = (await a.api('GET', '/templates')).body.templates as { id: number; name: string }[];
    const autoreply = templates.find((t) => t.name === 'Autoreply')!;
    expect(await autoreplySubject(a, 'first@customers.example')).not.toContain('Received');

    const changed = await b.api('PATCH', `/templates/${autoreply.id}`, {
      body: { subject: 'Received: {{ ticket.subject }}' },
    });
    expect(changed.status).toBe(200);
    expect(await autoreplySubject(a, 'second@customers.example')).toContain('Received: Printer');

    // And a queue's new alias is one of our own addresses at once in A: no requester, no mail.
    const q = await b.api('PATCH', '/queues/1', { body: { mail_alias: 'third@customers.example' } });
    expect(q.status).toBe(200);
    const refused = await a.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Printer', requesters: ['third@customers.example'] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toBe("third@customers.example is one of hxdesk's own addresses");
  });

  it("the staff on A's pages (decision 104): an agent B's admin creates, then renames", async () => {
    const page = async () => (await a.api('GET', '/tickets', { headers: { accept: 'text/html' } })).text;
    expect(await page()).not.toContain('Hired Through B');
    const agent = await b.api('POST', '/users', { body: { email: 'through-b@example.com', name: 'Hired Through B' } });
    expect(agent.status, agent.text).toBe(201);
    expect(await page()).toContain('Hired Through B');
    expect((await b.api('PATCH', `/users/${agent.body.id}`, { body: { name: 'Renamed Through B' } })).status).toBe(200);
    const html = await page();
    expect(html).toContain('Renamed Through B');
    expect(html).not.toContain('Hired Through B');
  });

  it("scrips: one B's admin disables no longer runs in A", async () => {
    const scrips = (await b.api('GET', '/scrips')).body.scrips as { id: number; key: string }[];
    const autoreply = scrips.find((s) => s.key === 'autoreply_on_create')!;
    expect(recipients((await created(a, { requesters: ['s1@customers.example'] })).outbox)).toContain(
      's1@customers.example',
    );
    expect((await b.api('PATCH', `/scrips/${autoreply.id}`, { body: { enabled: false } })).status).toBe(200);
    expect(recipients((await created(a, { requesters: ['s2@customers.example'] })).outbox)).not.toContain(
      's2@customers.example',
    );
    expect((await b.api('PATCH', `/scrips/${autoreply.id}`, { body: { enabled: true } })).status).toBe(200);
    expect(recipients((await created(a, { requesters: ['s3@customers.example'] })).outbox)).toContain(
      's3@customers.example',
    );
  });

  it("the admins' list of our own addresses (app settings)", async () => {
    await created(a, { requesters: ['fourth@customers.example'] });
    const saved = await b.api('PATCH', '/mail-settings', { body: { mail_addresses: ['fifth@customers.example'] } });
    expect(saved.status, saved.text).toBe(200);
    const refused = await a.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Printer', requesters: ['fifth@customers.example'] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toBe("fifth@customers.example is one of hxdesk's own addresses");
  });

  it("a queue's row (its signature) and its watchers", async () => {
    const t = await created(a, {});
    const reply = () => a.api('POST', `/tickets/${t.id}/comment`, { body: { body: 'On its way', internal: false } });
    const first = await reply();
    expect(first.status, first.text).toBe(201);
    expect(first.body.transaction.body).not.toContain('The General desk');
    expect((await b.api('PATCH', '/queues/1', { body: { signature: 'The General desk' } })).status).toBe(200);
    const second = await reply();
    expect(second.body.transaction.body).toContain('The General desk');

    const watcher = await b.user('agent', 'queue-watcher@example.test');
    expect(recipients((await created(a, {})).outbox)).not.toContain(watcher.email);
    const q = await b.api('PATCH', '/queues/1', { body: { admin_cc: [watcher.id] } });
    expect(q.status, q.text).toBe(200);
    expect(recipients((await created(a, {})).outbox)).toContain(watcher.email);
  });

  it('custom fields and the queues they apply to', async () => {
    await created(a, {});
    const field = await b.api('POST', '/custom-fields', {
      body: { key: 'asset', name: 'Asset', type: 'text', required: true },
    });
    expect(field.status, field.text).toBe(201);
    const missing = await a.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Printer' } });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('Asset is required');
    await created(a, { custom_fields: { asset: 'PR-1' } });

    const other = await b.api('POST', '/queues', { body: { name: 'Facilities' } });
    expect(other.status).toBe(201);
    const limited = await b.api('PATCH', `/custom-fields/${field.body.id}`, { body: { queue_ids: [other.body.id] } });
    expect(limited.status, limited.text).toBe(200);
    const elsewhere = await a.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Printer', custom_fields: { asset: 'PR-2' } },
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.text).toContain('does not apply to queue 1');
    expect((await b.api('DELETE', `/custom-fields/${field.body.id}`)).status).toBe(204);
    await created(a, {});
  });

  it('teams and their members', async () => {
    const team = await b.api('POST', '/teams', { body: { name: 'Facilities desk' } });
    expect(team.status).toBe(201);
    const one = await b.user('agent', 'member-one@example.test');
    const two = await b.user('agent', 'member-two@example.test');
    expect((await b.api('POST', `/teams/${team.body.id}/members`, { body: { user_id: one.id } })).status).toBe(201);
    const queue = await b.api('POST', '/queues', { body: { name: 'Building', team_id: team.body.id } });
    expect(queue.status).toBe(201);
    // A new ticket in the team's queue tells its members (the staff watchers).
    const before = recipients((await created(a, { queue_id: queue.body.id })).outbox);
    expect(before).toContain(one.email);
    expect(before).not.toContain(two.email);
    expect((await b.api('POST', `/teams/${team.body.id}/members`, { body: { user_id: two.id } })).status).toBe(201);
    expect(recipients((await created(a, { queue_id: queue.body.id })).outbox)).toContain(two.email);

    // A team B deletes is gone for A's next write.
    await created(a, { team_id: team.body.id });
    expect((await b.api('DELETE', `/teams/${team.body.id}`)).status).toBe(204);
    const gone = await a.api('POST', '/tickets', { body: { queue_id: 1, subject: 'Printer', team_id: team.body.id } });
    expect(gone.status).toBe(422);
    expect(gone.body.error.message).toContain(`Team ${team.body.id} does not exist`);
  });

  // Issue 32: a GET reads configuration through the cache too, its version read once a request.
  it("a page's names: a queue B renames is A's next page's", async () => {
    const page = async () => (await a.api('GET', '/tickets', { headers: { accept: 'text/html' } })).text;
    const q = await b.api('POST', '/queues', { body: { name: 'Loading dock' } });
    expect(q.status).toBe(201);
    expect(await page()).toContain('Loading dock'); // now kept by A
    expect((await b.api('PATCH', `/queues/${q.body.id}`, { body: { name: 'Goods in' } })).status).toBe(200);
    const html = await page();
    expect(html).toContain('Goods in');
    expect(html).not.toContain('Loading dock');
  });

  // Decision 094: the lifecycles in use (a list's status_category) and every lifecycle (the list
  // page's statuses) are read through the cache too.
  it("lifecycles: a queue B gives a new lifecycle is A's next list's and page's", async () => {
    const active = async () =>
      ((await a.api('GET', '/tickets?status_category=active&limit=500')).body.tickets as { id: number }[]).map(
        (t) => t.id,
      );
    const page = async () => (await a.api('GET', '/tickets', { headers: { accept: 'text/html' } })).text;
    const before = await active(); // now kept by A
    expect(await page()).not.toContain('value="triaging"');
    const l = await b.api('POST', '/lifecycles', {
      body: {
        name: 'Triage',
        statuses: [
          { name: 'new', category: 'initial', color: '#1d4ed8' },
          { name: 'triaging', category: 'active', color: '#15803d' },
          { name: 'done', category: 'inactive', color: '#4b5563' },
        ],
      },
    });
    expect(l.status, l.text).toBe(201);
    const q = await b.api('POST', '/queues', { body: { name: 'Triage desk', lifecycle_id: l.body.id } });
    expect(q.status, q.text).toBe(201);
    const t = await created(b, { queue_id: q.body.id });
    const moved = await b.api('PATCH', `/tickets/${t.id}`, { body: { status: 'triaging' } });
    expect(moved.status, moved.text).toBe(200);
    expect(before).not.toContain(t.id);
    expect(await active()).toContain(t.id);
    expect(await page()).toContain('value="triaging"');
  });

  it('a change of configuration that rolls back changes nothing and leaves the cache working', async () => {
    const version = async () =>
      Number((await rawGet<{ version: number }>(a, 'SELECT version FROM config_version WHERE id = 1'))?.version ?? 0);
    await created(a, {});
    resetWriteStatements();
    await created(a, {});
    const warm = writeStatements().createTicket.last;
    const before = await version();
    // A failing admin request in A itself: the queue name is taken (409), after its unit of work bumped the version.
    const taken = await a.api('PATCH', '/queues/1', { body: { name: 'Building' } });
    expect(taken.status, taken.text).toBe(409);
    expect(await version()).toBe(before);
    expect((await a.api('GET', '/queues/1')).body.name).toBe('General');
    // A's writes still use what is committed, and keep it again: the second create sends what a warm one sends.
    const after = await created(a, { requesters: ['after@customers.example'] });
    expect(after.outbox.find((o) => o.recipient === 'after@customers.example')?.subject).toContain('Received: Printer');
    resetWriteStatements();
    await created(a, {});
    expect(writeStatements().createTicket.last).toBe(warm);
    // And a change A makes itself is what its next write uses.
    expect((await a.api('PATCH', '/queues/1', { body: { signature: 'The desk, again' } })).status).toBe(200);
    expect(await version()).toBe(before + 1);
  });
});
