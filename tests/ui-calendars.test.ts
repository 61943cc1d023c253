import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot, settled, signedIn } from './helpers/browser.js';
import { testClock } from '../src/domain/clock.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// SPEC D2 in Chromium (decision 068): calendars and SLA policies in the admin area, made with the
// keyboard only; a wrong field is named in words next to the form and nothing typed is lost; the
// explain view of a due time; at 1280 and 360 px, axe-clean.

const T = 20_000;
let s: TestServer;
let browser: Browser;
let queueId: number;

const active = (p: Page) =>
  p.evaluate(() => {
    const el = (globalThis as any).document.activeElement as any;
    return { name: el?.getAttribute('name') ?? '', text: (el?.innerText ?? '').trim() };
  });

/** Presses Tab until the focused element matches (at most 60 presses): how a keyboard user gets there. */
async function tabTo(p: Page, match: (a: { name: string; text: string }) => boolean) {
  for (let i = 0; i < 60; i++) {
    await p.keyboard.press('Tab');
    if (match(await active(p))) return;
  }
  throw new Error(`never reached by Tab; last: ${JSON.stringify(await active(p))}`);
}
const tabToField = (p: Page, name: string) => tabTo(p, (a) => a.name === name);
/** What describes a field (its aria-describedby): where a refusal is said next to it. */
async function describedBy(p: Page, sel: string) {
  const ids = ((await p.locator(sel).getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
  return (await Promise.all(ids.map((id) => p.locator(`#${id}`).innerText()))).join(' ').trim();
}
const text = async (p: Page, sel: string) => (await p.locator(sel).innerText()).replace(/\s+/g, ' ').trim();

async function admin() {
  const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
  context.setDefaultTimeout(T);
  page.on('dialog', (d) => void d.accept());
  return { context, page };
}

beforeAll(async () => {
  // The store's clock stands at Wed 2026-12-23 16:00 Berlin: what "now" means on the policy page.
  s = await startServer({}, { clock: testClock('2026-12-23T15:00:00Z') });
  queueId = (await s.api('POST', '/queues', { body: { name: 'Support desk' } })).body.id;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('calendars in the admin area', () => {
  it('keyboard only: a calendar with a wrong stretch is refused naming it, then saved; explain shows the due time', async () => {
    const { context, page } = await admin();
    await page.goto('/scrips');
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Calendars' }).click();
    await page.waitForURL('**/calendars');
    await expect.poll(() => page.locator('main h1').innerText()).toBe('Calendars');
    expect((await axeCheck(page)).message).toBe('');

    await tabToField(page, 'name');
    await page.keyboard.type('Berlin office');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Europe/Berlin');
    // A new calendar starts from office hours, Monday to Friday.
    expect(await page.locator('#new-calendar [name="hours.fri"]').inputValue()).toBe('09:00-17:00');
    expect(await page.locator('#new-calendar [name="hours.sat"]').inputValue()).toBe('');
    await tabToField(page, 'hours.mon');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('17:00-09:00');
    for (const d of ['tue', 'wed', 'thu', 'fri']) {
      await tabToField(page, `hours.${d}`);
      await page.keyboard.press('Control+A');
      await page.keyboard.type('09:00-12:30, 13:30-17:00');
    }
    await tabToField(page, 'holidays');
    await page.keyboard.type('2026-12-24\n--12-25\n--12-26');
    await tabTo(page, (a) => a.text === 'Create calendar');
    await page.keyboard.press('Enter');
    // Said in the form's error place (the path, hours.mon.0, is a stretch inside Monday's field).
    const refusal = `Monday's hours 1 ("17:00"–"09:00") must end after they start`;
    await expect.poll(() => page.locator('#new-calendar-error').innerText()).toBe(refusal);
    expect(await page.getByText(refusal).count()).toBe(1);
    // What was typed stays.
    expect(await page.locator('#new-calendar [name="hours.tue"]').inputValue()).toBe('09:00-12:30, 13:30-17:00');
    expect((await axeCheck(page)).message).toBe('');
    await screenshot(page, 'calendar-error');

    await page.locator('#new-calendar [name="hours.mon"]').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('09:00-12:30, 13:30-17:00');
    await tabTo(page, (a) => a.text === 'Create calendar');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/calendars\/\d+\?saved$/);
    await settled(page);
    expect(await page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    expect(await page.locator('main h1').innerText()).toBe('Calendar Berlin office');
    expect(await page.locator('#edit-calendar [name="holidays"]').inputValue()).toBe('--12-25\n--12-26\n2026-12-24');

    // Explain: 240 business minutes from 16:00 on 23 December (issue 29).
    await tabToField(page, 'start');
    await page.locator('#explain-form [name=start]').fill('2026-12-23T16:00');
    await tabToField(page, 'minutes'); // Tab walks through the date-time's parts first
    await page.keyboard.press('Control+A');
    await page.keyboard.type('240');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => text(page, '#explain-result'))
      .toContain(
        '240 business minutes from 2026-12-23 16:00 GMT+1 end at 2026-12-28 12:00 GMT+1 (2026-12-28 11:00 UTC).',
      );
    const stretches = (await page.locator('#explain-result li').allInnerTexts()).map((x) =>
      x.replace(/\s+/g, ' ').trim(),
    );
    expect(stretches).toEqual([
      '2026-12-23 16:00 GMT+1 – 2026-12-23 17:00 GMT+1 (1 h)',
      '2026-12-28 09:00 GMT+1 – 2026-12-28 12:00 GMT+1 (3 h)',
    ]);
    expect((await axeCheck(page)).message).toBe('');
    await screenshot(page, 'calendar-explain');

    // The list shows the week in a line.
    await page.goto('/calendars');
    const row = (await page.locator('tbody tr').first().innerText()).replace(/\s+/g, ' ').trim();
    expect(row).toBe('Berlin office Europe/Berlin Mon–Fri 09:00-12:30, 13:30-17:00 3');
    await screenshot(page, 'calendars');
    await context.close();
  });

  it('keyboard only: an SLA policy with a priority range out of order is refused naming it, then saved', async () => {
    const { context, page } = await admin();
    await page.goto('/sla-policies');
    await expect.poll(() => page.locator('main h1').innerText()).toBe('SLA policies');
    expect((await axeCheck(page)).message).toBe('');
    await tabToField(page, 'name');
    await page.keyboard.type('Support hours');
    await tabTo(page, (a) => a.name === 'match.queue_ids');
    // The first checkbox is the first queue (General); the next is ours.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await tabToField(page, 'match.priority_min');
    await page.keyboard.type('60');
    await page.keyboard.press('Tab');
    await page.keyboard.type('40');
    await tabToField(page, 'calendar_id');
    await page.keyboard.press('ArrowDown'); // Berlin office
    await tabToField(page, 'first_response_minutes');
    await page.keyboard.type('240');
    await tabToField(page, 'resolution_minutes');
    await page.keyboard.type('960');
    await tabToField(page, 'warn_before_minutes');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('30');
    await tabTo(page, (a) => a.text === 'Create policy');
    await page.keyboard.press('Enter');
    const highest = '#new-policy [name="match.priority_max"]';
    await expect
      .poll(() => describedBy(page, highest))
      .toBe('Highest priority (40) must not be below the lowest priority (60)');
    expect(await page.locator(highest).getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#new-policy [name=first_response_minutes]').inputValue()).toBe('240');
    expect((await axeCheck(page)).message).toBe('');
    await screenshot(page, 'sla-policy-error');

    await page.locator('#new-policy [name="match.priority_max"]').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('100');
    await tabTo(page, (a) => a.text === 'Create policy');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/sla-policies\/\d+\?saved$/);
    await settled(page);
    expect(await page.locator('main h1').innerText()).toBe('SLA policy Support hours');
    const policies = (await s.api('GET', '/sla-policies')).body.sla_policies;
    expect(policies).toHaveLength(1);
    expect(policies[0]).toMatchObject({
      match: { queue_ids: [queueId], priority_min: 60, priority_max: 100 },
      first_response_minutes: 240,
      next_response_minutes: null,
      resolution_minutes: 960,
      warn_before_minutes: 30,
    });
    expect(await text(page, '.admin-grid .card:nth-child(2) p.applies')).toBe(
      'Applies to: Queue Support desk; priority 60–100. Counts in: Berlin office (explain a due time).',
    );
    // A ticket that came in now (Wed 23 December, 16:00 in Berlin; 24–26 December off).
    expect(await text(page, '.policy-preview')).toBe(
      'First response (4 h) due 2026-12-28 12:00 GMT+1 Resolution (16 h) due 2026-12-30 10:00 GMT+1',
    );
    expect((await axeCheck(page)).message).toBe('');
    await page.goto('/sla-policies');
    expect((await page.locator('tbody tr').first().innerText()).replace(/\s+/g, ' ').trim()).toBe(
      '0 Support hours Queue Support desk; priority 60–100 Berlin office 4 h — 16 h',
    );
    await screenshot(page, 'sla-policies');
    await context.close();
  });

  it('at 360 px: no sideways scrolling, tables scroll in their own box, axe-clean', async () => {
    const { context, page } = await admin();
    await page.setViewportSize({ width: 360, height: 740 });
    const cal = (await s.api('GET', '/calendars')).body.calendars[0];
    const policy = (await s.api('GET', '/sla-policies')).body.sla_policies[0];
    for (const [path, name] of [
      ['/calendars', 'calendars-360'],
      [`/calendars/${cal.id}/explain?start=2026-12-23T16:00&minutes=240`, 'calendar-explain-360'],
      ['/sla-policies', 'sla-policies-360'],
      [`/sla-policies/${policy.id}`, 'sla-policy-360'],
    ]) {
      await page.goto(path);
      await settled(page);
      expect(
        await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number),
        path,
      ).toBeLessThanOrEqual(360);
      for (const sel of ['main h1', 'form button[type=submit]']) {
        const box = (await page.locator(sel).first().boundingBox())!;
        expect(box.x + box.width, `${path} ${sel}`).toBeLessThanOrEqual(360);
      }
      expect((await axeCheck(page)).message, path).toBe('');
      await screenshot(page, name);
    }
    await context.close();
  });
});
