// People in the loop (SPEC C2), as an agent works with them: the people search behind the
// Requester, Cc and "add someone" fields (HTTP round trips, and its query plans), then real
// Chromium against a real hxdesk — the new-ticket dialog, the ticket page's People box, the
// reply choice naming who gets mail, a customer's view, a 360 px phone, and no JavaScript.
import { transaction } from '../src/db/port.js';
import { is, SQL } from 'drizzle-orm';
import { poolOf, sqliteOf } from '../src/db/store.js';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peopleSearchQueries, PEOPLE_SEARCH_WINDOW } from '../src/db/sqlite/people.js';
import { setQueueWatchers } from '../src/domain/watchers.js';
import { historyList, launchBrowser, screenshot, settled, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer, okApi } from './helpers/server.js';
import { itOn, onlyOn, testStore } from './helpers/store.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };

let s: TestServer;
let adminName = '';
const ids = { general: 0, support: 0, alice: 0, carol: 0, dan: 0, dora: 0, gone: 0, old: 0, quinn: 0 };
const CUSTOMER_PASSWORD = 'carol-password-123';

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);
const search = (q: string, extra = '', token?: string) =>
  s.api('GET', `/users?q=${encodeURIComponent(q)}${extra}`, token ? { token } : {});
const emails = (res: { body: { users: { email: string }[] } }) => res.body.users.map((u) => u.email);

beforeAll(async () => {
  s = await startServer();
  adminName = (await api('GET', '/me')).name;
  ids.general = (await api('GET', '/queues')).queues.find((q: { name: string }) => q.name === 'General').id;
  // A new install's General has its administrator as AdminCc (decision 019); these tests count the
  // mail of the people they name, on a queue nobody else watches.
  await api('PATCH', `/queues/${ids.general}`, { admin_cc: [] });
  // The oldest requester: beyond the newest PEOPLE_SEARCH_WINDOW users once the fillers are in.
  ids.old = (
    await api('POST', '/users', { email: 'zed.oldtimer@archive.example', name: 'Zed Oldtimer', role: 'requester' })
  ).id;
  // Many requesters, written straight into the file (the API would take minutes for these).
  const now = new Date().toISOString();
  if (testStore() === 'postgres') {
    await poolOf(s.db).query(
      `INSERT INTO users (email, name, role, created_at, updated_at)
      SELECT 'filler' || i || '@bulk.example', 'Filler Person ' || i, 'requester', $1, $1 FROM generate_series(0, $2::int - 1) i`,
      [now, PEOPLE_SEARCH_WINDOW + 1000],
    );
  } else {
    const insert = sqliteOf(s.db).prepare(
      `INSERT INTO users (email, name, role, created_at, updated_at) VALUES (?, ?, 'requester', ?, ?)`,
    );
    sqliteOf(s.db).transaction(() => {
      for (let i = 0; i < PEOPLE_SEARCH_WINDOW + 1000; i++)
        insert.run(`filler${i}@bulk.example`, `Filler Person ${i}`, now, now);
    })();
  }
  ids.support = (await api('POST', '/teams', { name: 'Support' })).id;
  ids.alice = (
    await api('POST', '/users', {
      email: 'alice@example.com',
      name: 'Alice Agent',
      role: 'agent',
      password: 'alice-password-123',
    })
  ).id;
  ids.quinn = (await api('POST', '/users', { email: 'quinn@example.com', name: 'Quinn Queuewatch', role: 'agent' })).id;
  ids.carol = (
    await api('POST', '/users', {
      email: 'carol@customer.example',
      name: 'Carol Customer',
      role: 'requester',
      password: CUSTOMER_PASSWORD,
    })
  ).id;
  ids.dan = (
    await api('POST', '/users', { email: 'dan@customer.example', name: 'Dan Colleague', role: 'requester' })
  ).id;
  ids.dora = (
    await api('POST', '/users', { email: 'dora@customer.example', name: 'Dora Danvers', role: 'requester' })
  ).id;
  await api('POST', '/users', { email: 'emile@customer.example', name: 'Émile Zola', role: 'requester' });
  ids.gone = (
    await api('POST', '/users', {
      email: 'dan.gone@customer.example',
      name: 'Dan Gone',
      role: 'requester',
      disabled: true,
    })
  ).id;
}, 120_000);

afterAll(async () => {
  await s?.close();
});

describe('GET /users?q= (people search)', () => {
  it('finds active people of every role by name or address, any case, best first', async () => {
    const dan = await search('DAN');
    expect(dan.status).toBe(200);
    // dan@ starts with the text; Dora Danvers has a word starting with it; the disabled Dan Gone is left out.
    expect(emails(dan)).toEqual(['dan@customer.example', 'dora@customer.example']);
    expect(dan.body.users[0]).toMatchObject({ id: ids.dan, name: 'Dan Colleague', role: 'requester', disabled: false });
    expect(Object.keys(dan.body.users[0]).sort()).toEqual([
      'blocked',
      'created_at',
      'disabled',
      'email',
      'id',
      'name',
      'role',
      'updated_at',
    ]);

    // Staff too, by any part of the name.
    expect(emails(await search('agent'))).toEqual(['alice@example.com']);
    // Any part of an address.
    expect(emails(await search('customer.EXAMPLE'))).toEqual([
      'carol@customer.example',
      'dan@customer.example',
      'dora@customer.example',
      'emile@customer.example',
    ]);
    // The exact address comes first.
    expect(emails(await search('dora@customer.example'))[0]).toBe('dora@customer.example');
    // Letters beyond ASCII fold too.
    expect(emails(await search('ÉMILE'))).toEqual(['emile@customer.example']);
    expect(emails(await search('zola'))).toEqual(['emile@customer.example']);
    // LIKE's wildcards are plain text.
    expect(emails(await search('%'))).toEqual([]);
    expect(emails(await search('_'))).toEqual([]);
    expect(emails(await search('nobody-by-this-name'))).toEqual([]);
  });

  it('gives at most limit people (default 50, at most 500), paged by offset (SPEC C4, decision 035)', async () => {
    expect((await search('filler')).body.users).toHaveLength(50);
    expect((await search('filler', '&limit=3')).body.users).toHaveLength(3);
    expect((await search('filler', '&limit=50')).body.users).toHaveLength(50);
    for (const bad of ['0', '501', 'ten', '-1']) {
      const res = await search('filler', `&limit=${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['limit']);
    }
    const long = await search('x'.repeat(201));
    expect(long.status).toBe(422);
    expect(long.body.error.details[0].path).toBe('q');
    expect((await s.api('GET', '/users?q=%20%20')).status).toBe(422);
  });

  it('is for staff: a requester gets 403; an agent may search', async () => {
    const requester = await s.user('requester');
    const res = await search('dan', '', requester.token);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    const agent = await s.user('agent');
    expect(emails(await search('dan', '', agent.token))).toEqual(['dan@customer.example', 'dora@customer.example']);
  });

  it('GET /users without q pages everyone (never all at once); role and disabled belong to the list, not to a search', async () => {
    const all = await s.api('GET', '/users');
    expect(all.status).toBe(200);
    expect(all.body.users).toHaveLength(50);
    expect(all.body.total).toBeGreaterThan(PEOPLE_SEARCH_WINDOW + 1000);
    const disabled = await s.api('GET', '/users?disabled=true&limit=500');
    expect(disabled.body.users.some((u: { id: number }) => u.id === ids.gone)).toBe(true); // disabled users are listed
    const agents = await s.api('GET', '/users?role=agent');
    expect(agents.body.users.every((u: { role: string }) => u.role === 'agent')).toBe(true);
    expect((await s.api('GET', '/users?limit=5')).body.users).toHaveLength(5);
    const mixed = await s.api('GET', '/users?q=dan&role=agent');
    expect(mixed.status).toBe(422);
    expect(mixed.body.error.details[0].path).toBe('role');
  });

  itOn('sqlite')(
    'does bounded work: addresses and parts of names through their indexes for everyone, two letters among the newest users',
    async () => {
      // Zed is older than the newest PEOPLE_SEARCH_WINDOW users: found by address, and by a part of
      // the name of three or more letters through the trigram index (decision 090); two letters,
      // which trigrams cannot answer, look among the newest users only.
      expect(emails(await search('zed.old'))).toEqual(['zed.oldtimer@archive.example']);
      expect(emails(await search('Oldtimer'))).toEqual(['zed.oldtimer@archive.example']);
      expect(emails(await search('dt'))).toEqual([]);
      // Every part of the search reads through an index or an id range, never the whole table.
      const dialect = new SQLiteSyncDialect();
      const plansOf = (needle: string) =>
        Object.values(peopleSearchQueries(s.db, needle, 10)).map((q) => {
          const stmt = is(q, SQL) ? dialect.sqlToQuery(q) : q.toSQL();
          const rows = sqliteOf(s.db)
            .prepare(`EXPLAIN QUERY PLAN ${stmt.sql}`)
            .all(...(stmt.params as unknown[])) as { detail: string }[];
          return rows.map((r) => r.detail).join(' / ');
        });
      const plans = plansOf('ann');
      expect(plans[0]).toMatch(/SEARCH users USING INDEX users_email_uq \(email>\? AND email<\?\)/);
      expect(plans[1]).toMatch(/SEARCH users USING INDEX users_role_idx \(role=\?\)/);
      expect(plans[2]).toMatch(
        /SCAN users_people VIRTUAL TABLE INDEX \d+:M.* \/ SEARCH users USING INTEGER PRIMARY KEY \(rowid=\?\)/,
      );
      expect(plansOf('an')[2]).toMatch(/SEARCH users USING INTEGER PRIMARY KEY \(rowid>\?\)/);
      for (const plan of [...plans, ...plansOf('an')]) expect(plan).not.toMatch(/SCAN users\b(?! USING)/);
    },
  );

  it('answers htmx with options carrying the address to fill in', async () => {
    const res = await s.api('GET', '/users?q=dan&limit=8', { headers: { 'HX-Request': 'true' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.text).toContain('data-value="dan@customer.example"');
    expect(res.text).toContain('role="option"');
    expect(res.text).not.toContain('<html');
    const none = await s.api('GET', '/users?q=new.person%40else.example', { headers: { 'HX-Request': 'true' } });
    expect(none.text).toContain('data-value="new.person@else.example"');
    expect(none.text).toContain('New person');
  });
});

// The browser half runs on SQLite only (vitest.config.ts, browserOnly); the search above on both stores.
onlyOn('sqlite')('in the browser', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let ticketId = 0;

  const dialog = () => page.getByRole('dialog', { name: 'New ticket' });
  const peopleBox = (p: Page = page) => p.getByRole('region', { name: 'People' });
  const roleList = (name: 'Requesters' | 'Cc' | 'AdminCc', p: Page = page) => peopleBox(p).getByRole('list', { name });
  const publicReply = (p: Page = page) => p.locator('.reply-kind label').first();

  beforeAll(async () => {
    browser = await launchBrowser();
    ({ context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD));
    context.setDefaultTimeout(T);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('creates a ticket for a customer by typing an address and picking a suggested Cc', async () => {
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'New ticket' }).click();
    await dialog().locator('#new-ticket-form').waitFor();
    const requester = dialog().getByRole('combobox', { name: 'Requester' });
    const cc = dialog().getByRole('combobox', { name: 'Cc' });
    expect(await dialog().locator('#new-requesters-hint').innerText()).toMatch(/Leave empty and you are the requester/);

    await dialog().getByLabel('Subject').fill('VPN drops every hour');
    await requester.fill('erin.new@customer.example');
    // A typo in Cc first: the error is next to the field, and everything typed stays.
    await cc.fill('dan@customer.example, not an address');
    await dialog().getByRole('button', { name: 'Create ticket' }).click();
    const ccError = dialog().locator('#new-cc-error');
    await ccError.waitFor();
    expect(await ccError.innerText()).toBe('"not an address" is not a valid e-mail address');
    expect(await dialog().getByRole('combobox', { name: 'Cc' }).getAttribute('aria-invalid')).toBe('true');
    expect(await dialog().getByRole('combobox', { name: 'Cc' }).inputValue()).toBe(
      'dan@customer.example, not an address',
    );
    expect(await dialog().getByRole('combobox', { name: 'Requester' }).inputValue()).toBe('erin.new@customer.example');
    expect(await dialog().getByLabel('Subject').inputValue()).toBe('VPN drops every hour');
    await screenshot(page, 'new-ticket-people-error');

    // Now pick Cc from the suggestions: type part of a name, click the person.
    const ccAgain = dialog().getByRole('combobox', { name: 'Cc' });
    await ccAgain.fill('');
    await ccAgain.pressSequentially('Colle', { delay: 30 });
    const options = dialog().getByRole('listbox', { name: 'People matching Cc' });
    const dan = options.getByRole('option', { name: /Dan Colleague/ });
    await dan.waitFor();
    expect(await ccAgain.getAttribute('aria-expanded')).toBe('true');
    await screenshot(page, 'new-ticket-people-suggestions');
    await dan.click();
    await expect.poll(() => ccAgain.inputValue(), poll).toBe('dan@customer.example, ');
    expect(await options.isVisible()).toBe(false);
    expect(await ccAgain.getAttribute('aria-expanded')).toBe('false');

    // A second one with the keyboard: the typed part after the comma is what is searched.
    await ccAgain.pressSequentially('dor', { delay: 30 });
    await options.getByRole('option', { name: /Dora Danvers/ }).waitFor();
    // Escape closes the suggestions, not the dialog.
    await ccAgain.press('Escape');
    await expect.poll(() => options.isVisible(), poll).toBe(false);
    expect(await dialog().isVisible()).toBe(true);
    await ccAgain.pressSequentially('a', { delay: 30 });
    await options.getByRole('option', { name: /Dora Danvers/ }).waitFor();
    await ccAgain.press('ArrowDown');
    expect(await options.getByRole('option', { name: /Dora Danvers/ }).getAttribute('aria-selected')).toBe('true');
    await ccAgain.press('Enter'); // picks, does not send the form
    await expect.poll(() => ccAgain.inputValue(), poll).toBe('dan@customer.example, dora@customer.example, ');
    expect(await dialog().isVisible()).toBe(true);

    await dialog().getByRole('button', { name: 'Create ticket' }).click();
    await page.waitForURL((u) => /^\/tickets\/\d+$/.test(u.pathname));
    ticketId = Number(new URL(page.url()).pathname.split('/').pop());
    const t = await api('GET', `/tickets/${ticketId}`);
    expect(t.cc).toEqual([ids.dan, ids.dora]);
    expect(t.requesters).toHaveLength(1);
    const erin = await api('GET', `/users/${t.requesters[0]}`);
    expect(erin).toMatchObject({ email: 'erin.new@customer.example', role: 'requester' });

    // The ticket page names them, and says who a public reply is mailed to.
    await peopleBox().waitFor();
    expect(await roleList('Requesters').innerText()).toContain('erin.new@customer.example');
    expect(await roleList('Cc').innerText()).toMatch(/Dan Colleague\s+dan@customer\.example/);
    expect(await roleList('Cc').innerText()).toContain('Dora Danvers');
    expect(await peopleBox().getByText('None').count()).toBe(1); // no AdminCc yet
    expect(await publicReply().innerText()).toBe(
      'Public reply (mailed to erin.new@customer.example, Cc Dan Colleague, Dora Danvers)',
    );
    expect(await page.getByLabel('Internal note (owner and AdminCc only)').count()).toBe(1);
    await screenshot(page, 'ticket-people');
  }, 120_000);

  it('removes a Cc and adds an AdminCc in place; errors are said next to the form', async () => {
    await page.goto(`/tickets/${ticketId}`);
    await peopleBox().waitFor();
    await peopleBox().getByRole('button', { name: 'Remove Dan Colleague as Cc' }).click();
    await settled(page, T);
    await expect.poll(() => roleList('Cc').innerText(), poll).not.toContain('Dan Colleague');
    expect(await roleList('Cc').innerText()).toContain('Dora Danvers');
    await historyList(page)
      .locator('li.txn')
      .filter({ hasText: `${adminName} removed Dan Colleague from Cc` })
      .waitFor();
    await expect
      .poll(() => publicReply().innerText(), poll)
      .toBe('Public reply (mailed to erin.new@customer.example, Cc Dora Danvers)');
    expect((await api('GET', `/tickets/${ticketId}`)).cc).toEqual([ids.dora]);
    expect(new URL(page.url()).pathname).toBe(`/tickets/${ticketId}`);

    // Add Alice as AdminCc: choose the role, find her by name, add.
    await peopleBox()
      .getByLabel('Role', { exact: true })
      .selectOption({ label: 'AdminCc (staff: replies and internal notes)' });
    const person = peopleBox().getByRole('combobox', { name: 'Person' });
    await person.pressSequentially('alice', { delay: 30 });
    await peopleBox()
      .getByRole('option', { name: /Alice Agent/ })
      .click();
    expect(await person.inputValue()).toBe('alice@example.com');
    await peopleBox().getByRole('button', { name: 'Add' }).click();
    await settled(page, T);
    await expect.poll(() => roleList('AdminCc').innerText(), poll).toContain('Alice Agent');
    await historyList(page)
      .locator('li.txn')
      .filter({ hasText: `${adminName} added Alice Agent as AdminCc` })
      .waitFor();
    expect((await api('GET', `/tickets/${ticketId}`)).admin_cc).toEqual([ids.alice]);
    // AdminCc is staff: the public reply still goes to the same customers.
    expect(await publicReply().innerText()).toBe('Public reply (mailed to erin.new@customer.example, Cc Dora Danvers)');

    // Already there: 409 in words below the box; the typed text stays.
    const error = page.locator('#people-error');
    await peopleBox()
      .getByLabel('Role', { exact: true })
      .selectOption({ label: 'AdminCc (staff: replies and internal notes)' });
    // Enter sends the form (no option is chosen): suggestions that open meanwhile cannot be in the way of a click.
    await peopleBox().getByRole('combobox', { name: 'Person' }).fill('alice@example.com');
    await peopleBox().getByRole('combobox', { name: 'Person' }).press('Enter');
    await expect
      .poll(() => error.innerText(), poll)
      .toBe(`alice@example.com is already an AdminCc of ticket ${ticketId}`);
    expect(await peopleBox().getByRole('combobox', { name: 'Person' }).inputValue()).toBe('alice@example.com');
    // Not an address: 422 in words. Typing clears the words.
    await peopleBox().getByLabel('Role', { exact: true }).selectOption({ label: 'Cc (gets public replies)' });
    await peopleBox().getByRole('combobox', { name: 'Person' }).fill('Frank');
    await peopleBox().getByRole('combobox', { name: 'Person' }).press('Enter');
    await expect.poll(() => error.innerText(), poll).toBe('"Frank" is not a valid e-mail address');
    await peopleBox().getByRole('combobox', { name: 'Person' }).press('End');
    await peopleBox().getByRole('combobox', { name: 'Person' }).pressSequentially('@example.org');
    await expect.poll(() => error.innerText(), poll).toBe('');
    await screenshot(page, 'ticket-people-changed');
  }, 120_000);

  it('picking a suggestion while a search waits for its typing delay asks nothing and keeps the list shut', async () => {
    // A page whose clock stands still: the 200 ms typing delay runs out only when the test moves
    // the clock (runFor), however slowly the machine types and clicks. (A clock belongs to its
    // browser context: this one is the test's own.)
    const own = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
    own.context.setDefaultTimeout(T);
    const p = own.page;
    try {
      await p.clock.install();
      await p.goto(`${s.url}/tickets/${ticketId}`);
      await peopleBox(p).waitFor();
      await p.clock.pauseAt(Date.now() + 1000);
      const tick = async <T>(read: () => Promise<T>) => {
        await p.clock.runFor(50);
        return read();
      };
      await peopleBox(p).getByLabel('Role', { exact: true }).selectOption({ label: 'Cc (gets public replies)' });
      const person = peopleBox(p).getByRole('combobox', { name: 'Person' });
      const asked: string[] = [];
      p.on('request', (r) => {
        if (/\/users\?/.test(r.url())) asked.push(new URL(r.url()).searchParams.get('q') ?? '');
      });
      await person.pressSequentially('qui');
      await p.clock.runFor(250);
      const option = peopleBox(p).getByRole('option', { name: /Quinn Queuewatch/ });
      await expect.poll(() => tick(() => option.isVisible()), poll).toBe(true);
      // More typing starts the delay again; Quinn is picked before it runs out.
      await person.pressSequentially('nn');
      await option.click();
      expect(await person.inputValue()).toBe('quinn@example.com');
      await p.clock.runFor(1000);
      const quiet = () =>
        p.evaluate(() => !(globalThis as any).document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling'));
      await expect.poll(() => tick(quiet), poll).toBe(true);
      // The delay ran out after the pick: no search for the picked address, the list stays shut.
      expect(asked).toEqual(['qui']);
      expect(await person.getAttribute('aria-expanded')).toBe('false');
      expect(await peopleBox(p).locator('.person-options').isHidden()).toBe(true);
      await peopleBox(p).getByRole('button', { name: 'Add' }).click();
      await expect
        .poll(() => tick(() => peopleBox(p).getByRole('list', { name: 'Cc', exact: true }).innerText()), poll)
        .toContain('Quinn Queuewatch');
    } finally {
      await own.context.close();
    }
    await api('DELETE', `/tickets/${ticketId}/watchers/cc/${ids.quinn}`);
  }, 120_000);

  it('shows the queue\'s watchers as "via queue", not removable here; a reply says when nobody is mailed', async () => {
    const network = (await api('POST', '/queues', { name: 'Network' })).id;
    await transaction(s.db, (tx) =>
      setQueueWatchers(tx, network, 'admin_cc', [ids.quinn], s.settings.notify.ownAddresses),
    );
    const own = (await api('POST', '/tickets', { queue_id: ids.general, subject: 'Note to self' })).ticket.id;
    await page.goto(`/tickets/${own}`);
    await peopleBox().waitFor();
    expect(await peopleBox().innerText()).not.toContain('Quinn Queuewatch');
    // The admin is the only requester and writes the reply: nobody gets it.
    expect(await publicReply().innerText()).toBe(
      'Public reply (nobody will be mailed: the ticket has no requester or Cc besides you)',
    );

    // Moving the ticket to a queue with an AdminCc shows them at once.
    await page
      .getByRole('complementary', { name: 'Ticket properties' })
      .getByLabel('Queue')
      .selectOption({ label: 'Network' });
    await settled(page, T);
    const quinn = roleList('AdminCc').getByRole('listitem').filter({ hasText: 'Quinn Queuewatch' });
    await quinn.waitFor();
    expect(await quinn.innerText()).toContain('via queue');
    expect(await quinn.getByRole('button').count()).toBe(0);
  }, 60_000);

  it('a customer sees no People controls', async () => {
    const own = await api('POST', '/tickets', {
      queue_id: ids.general,
      subject: 'Carol asks',
      requesters: [ids.carol],
      cc: [ids.dan],
    });
    const { context: ctx, page: p } = await signedIn(browser, s.url, 'carol@customer.example', CUSTOMER_PASSWORD);
    try {
      ctx.setDefaultTimeout(T);
      await p.goto(`/tickets/${own.ticket.id}`);
      await p.getByRole('textbox', { name: 'Message' }).waitFor();
      expect(await peopleBox(p).count()).toBe(0);
      expect(await p.getByRole('button', { name: /Remove/ }).count()).toBe(0);
      expect(await p.locator('form[action$="/watchers"]').count()).toBe(0);
      expect(await p.locator('.reply-kind').count()).toBe(0);
    } finally {
      await ctx.close();
    }
  }, 60_000);

  it('works on a 360 px phone: the People box and the new-ticket fields fit the screen', async () => {
    const phone = await browser.newContext({
      baseURL: s.url,
      viewport: { width: 360, height: 740 },
      storageState: await context.storageState(),
    });
    phone.setDefaultTimeout(T);
    const p = await phone.newPage();
    try {
      const widthFits = () => p.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
      await p.goto(`/tickets/${ticketId}`);
      await peopleBox(p).waitFor();
      expect(await widthFits()).toBeLessThanOrEqual(360);
      const remove = peopleBox(p).getByRole('button', { name: 'Remove Dora Danvers as Cc' });
      await remove.scrollIntoViewIfNeeded();
      const box = (await remove.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(360);
      expect(box.height).toBeGreaterThanOrEqual(24);
      const add = peopleBox(p).getByRole('combobox', { name: 'Person' });
      await add.scrollIntoViewIfNeeded();
      await add.pressSequentially('dora', { delay: 30 });
      const option = peopleBox(p).getByRole('option', { name: /Dora Danvers/ });
      await option.waitFor();
      const ob = (await option.boundingBox())!;
      expect(ob.x).toBeGreaterThanOrEqual(0);
      expect(ob.x + ob.width).toBeLessThanOrEqual(360);
      await screenshot(p, 'ticket-people-phone');

      await p.goto('/tickets/new');
      const requester = p.getByRole('combobox', { name: 'Requester' });
      await requester.waitFor();
      for (const field of [requester, p.getByRole('combobox', { name: 'Cc' }), p.getByLabel('Subject')]) {
        const b = (await field.boundingBox())!;
        expect(b.x).toBeGreaterThanOrEqual(0);
        expect(b.x + b.width).toBeLessThanOrEqual(360);
        expect(b.width).toBeGreaterThan(200);
      }
      expect(await widthFits()).toBeLessThanOrEqual(360);
      await screenshot(p, 'new-ticket-people-phone');
    } finally {
      await phone.close();
    }
  }, 90_000);

  it('without JavaScript the fields are plain text: errors come back on the page with the text kept', async () => {
    const { context: ctx, page: p } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD, {
      javaScriptEnabled: false,
    });
    try {
      ctx.setDefaultTimeout(T);
      await p.goto('/tickets/new');
      await p.getByLabel('Subject').fill('Printer offline');
      await p.getByRole('combobox', { name: 'Requester' }).fill('frank@customer.example, frank at home');
      await p.getByRole('button', { name: 'Create ticket' }).click();
      await p.locator('#new-requesters-error').waitFor();
      expect(await p.locator('#new-requesters-error').innerText()).toBe(
        '"frank at home" is not a valid e-mail address',
      );
      expect(await p.getByRole('combobox', { name: 'Requester' }).inputValue()).toBe(
        'frank@customer.example, frank at home',
      );
      expect(await p.getByLabel('Subject').inputValue()).toBe('Printer offline');

      await p.getByRole('combobox', { name: 'Requester' }).fill('frank@customer.example');
      await p.getByRole('combobox', { name: 'Cc' }).fill('dan@customer.example');
      await p.getByRole('button', { name: 'Create ticket' }).click();
      await p.waitForURL((u) => /^\/tickets\/\d+$/.test(u.pathname));
      const id = Number(new URL(p.url()).pathname.split('/').pop());
      expect((await api('GET', `/tickets/${id}`)).cc).toEqual([ids.dan]);

      // Remove and add with plain form posts (POST + redirect back to the ticket).
      await peopleBox(p).getByRole('button', { name: 'Remove Dan Colleague as Cc' }).click();
      await p.waitForURL((u) => u.pathname === `/tickets/${id}`);
      expect((await api('GET', `/tickets/${id}`)).cc).toEqual([]);
      await peopleBox(p).getByRole('combobox', { name: 'Person' }).fill('dora@customer.example');
      await peopleBox(p).getByRole('button', { name: 'Add' }).click();
      await p.waitForURL((u) => u.pathname === `/tickets/${id}`);
      expect(await roleList('Cc', p).innerText()).toContain('Dora Danvers');
      expect((await api('GET', `/tickets/${id}`)).cc).toEqual([ids.dora]);
    } finally {
      await ctx.close();
    }
  }, 90_000);
});
