import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';

// Decision 066: configuration a write reads several times (templates, our addresses, queue
// aliases) is read once per unit of work and kept no longer. An admin's change through one
// process is what the very next write in another process uses: two servers, each with its own
// store (pool), on one PostgreSQL database.

let a: TestServer;
let b: TestServer;

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

  const autoreplySubject = async (server: TestServer, customer: string) => {
    const t = await server.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Printer', requesters: [customer] },
    });
    expect(t.status, t.text).toBe(201);
    const out = await server.api('GET', `/outbox?ticket_id=${t.body.ticket.id}`);
    return out.body.outbox.find((o: { recipient: string }) => o.recipient === customer)?.subject as string;
  };

  it("the next write in process A uses a template process B's admin just changed", async () => {
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
});
