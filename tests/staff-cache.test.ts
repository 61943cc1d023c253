import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet } from './helpers/db.js';
import { releasePostgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';
import { testStore } from './helpers/store.js';

// Decision 104: the staff every page shows (owner pickers, the filter bar, names) are kept with
// the configuration, by its version. Each change of a staff member's row reaches the very next
// page, whoever made it; a new requester (a new sender, a Cc) leaves the kept configuration alone.

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
  if (testStore() === 'postgres') await releasePostgres();
});

/** The list page as HTML, after which the process keeps the staff it showed. */
const page = async (): Promise<string> => {
  const res = await s.api('GET', '/tickets', { headers: { accept: 'text/html' } });
  expect(res.status).toBe(200);
  return res.text;
};
const version = async (): Promise<number> =>
  Number((await rawGet<{ version: number }>(s, 'SELECT version FROM config_version WHERE id = 1'))?.version ?? 0);

describe('the staff on pages (decision 104)', () => {
  it('a new agent, a rename by an admin, a rename in their own settings, a demotion: each on the next page', async () => {
    expect(await page()).not.toContain('Freshly Hired');
    const created = await s.api('POST', '/users', {
      body: { email: 'fresh@example.com', name: 'Freshly Hired', role: 'agent', password: 'a long enough password' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    expect(await page()).toContain('Freshly Hired');

    expect((await s.api('PATCH', `/users/${id}`, { body: { name: 'Renamed By Admin' } })).status).toBe(200);
    let html = await page();
    expect(html).toContain('Renamed By Admin');
    expect(html).not.toContain('Freshly Hired');

    const agent = await s.user('agent');
    expect(await page()).toContain(`agent ${agent.email.match(/\d+/)![0]}`);
    const renamed = await s.api('PATCH', '/settings', { token: agent.token, body: { name: 'Self Renamed' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await page()).toContain('Self Renamed');

    expect((await s.api('PATCH', `/users/${id}`, { body: { role: 'requester' } })).status).toBe(200);
    html = await page();
    expect(html).not.toContain('Renamed By Admin');
    expect(html).toContain('Self Renamed');
  });

  it('a new requester, and a staff member changing only their signature, keep the configuration as it was', async () => {
    await page();
    const before = await version();
    const t = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: 'Printer', requesters: ['brand-new-sender@customers.example'] },
    });
    expect(t.status, t.text).toBe(201);
    const agent = await s.user('agent');
    const after = await version();
    // Creating the agent bumped it once; the requester and the signature did not.
    expect(after).toBe(before + 1);
    expect(
      (await s.api('PATCH', '/settings', { token: agent.token, body: { signature: 'Regards, the desk' } })).status,
    ).toBe(200);
    expect(await version()).toBe(after);
  });
});
