import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { MAILGATE_TOKEN, postMail, rawMail } from './helpers/mail.js';
import { outboxOf } from './helpers/notify.js';
import { releasePostgres } from './helpers/postgres.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D2 end to end, as a team lives it (issue 29's "day in the life"), on both stores: a
// Berlin calendar and a policy; five tickets by mail; replies; a snooze that wakes the next
// morning; a first response that is warned of and breached (its scrip mails the owner); a
// customer's follow-up that starts the next response; a ticket left waiting on its customer that
// the shipped auto-close closes 40 business hours later. Time moves only by the test clock, and
// each move fires what fell due (the timer worker's pass). With HXDESK_DAY_LOG=<file> the test
// writes the day — every ticket's history and every mail it produced — to that file.

const clock = testClock('2026-12-07T07:30:00.000Z'); // Monday, 08:30 in Berlin
const log: string[] = [];
const say = (line: string) => log.push(line);
let s: TestServer;
let agent: { id: number; email: string; token: string };

/** The clock to `iso`, and everything due by then fired. */
async function at(iso: string, what: string) {
  clock.set(iso);
  const fired = await s.workers.timers.runDue();
  say(`\n${iso.slice(0, 16).replace('T', ' ')}Z  ${what}${fired ? ` (timers fired: ${fired})` : ''}`);
}
const customers = ['ada', 'ben', 'cleo', 'dev', 'eve'].map((n) => `${n}@customer.example`);
const ids: number[] = [];
const agentSays = async (id: number, body: string) => {
  const r = await s.api('POST', `/tickets/${id}/comment`, { token: agent.token, body: { body, internal: false } });
  expect(r.status, r.text).toBe(201);
};
const patch = async (id: number, body: Record<string, unknown>) => {
  const r = await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body });
  expect(r.status, r.text).toBe(200);
  return r.body.ticket ?? r.body;
};

beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN }, { clock });
  agent = await s.user('agent', 'agent.smith@helpdesk.example');
  const cal = await s.api('POST', '/calendars', {
    body: {
      name: 'Berlin office',
      time_zone: 'Europe/Berlin',
      hours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [['09:00', '17:00']]])),
      holidays: ['--12-25', '--12-26'],
      default: true,
    },
  });
  expect(cal.status, cal.text).toBe(201);
  const policy = await s.api('POST', '/sla-policies', {
    body: {
      name: 'Standard',
      position: 10,
      match: {},
      calendar_id: cal.body.id,
      first_response_minutes: 120,
      next_response_minutes: 240,
      resolution_minutes: 4800,
      warn_before_minutes: 30,
    },
  });
  expect(policy.status, policy.text).toBe(201);
  const tpl = await s.api('POST', '/templates', {
    body: {
      name: 'SLA breached',
      subject: 'Breached: {{ ticket.subject }}',
      body: 'The {{ transaction.field }} clock of ticket #{{ ticket.id }} was due at {{ transaction.old_value }}.\n{{ ticket.url }}',
    },
  });
  expect(tpl.status, tpl.text).toBe(201);
  const scrip = await s.api('POST', '/scrips', {
    body: {
      key: 'owner_hears_of_breach',
      condition: 'on_sla_breach',
      action: 'notify_owner',
      template_id: tpl.body.id,
    },
  });
  expect(scrip.status, scrip.text).toBe(201);
  say('Calendar "Berlin office": Mon–Fri 09:00–17:00 Europe/Berlin, 25/26 Dec off (default).');
  say('Policy "Standard" (every ticket): first response 2 business h, next response 4 business h,');
  say('  resolution 80 business h, warning 30 min before; scrip: owner mailed on a breach.');
});
afterAll(async () => {
  const file = process.env.HXDESK_DAY_LOG;
  if (file && s) {
    say('\n== Each ticket at the end of the day, its history and its mails');
    for (const id of ids) {
      const t = await ticketOf(s, id);
      say(`\n#${id} "${t.subject}": ${t.status}; next due ${t.next_due_at ?? '—'}`);
      for (const [name, c] of Object.entries((t.sla ?? {}) as Record<string, any>)) {
        if (c && typeof c === 'object')
          say(`  clock ${name}: due ${c.due_at ?? '—'}, met ${c.met_at ?? '—'}, breached ${c.breached_at ?? '—'}`);
      }
      for (const x of await transactionsOf(s, id))
        say(
          `  ${x.created_at.slice(5, 16).replace('T', ' ')} ${x.type}${x.field ? ` ${x.field}` : ''}${x.new_value ? ` → ${x.new_value}` : ''}${x.creator_id ? ` (user ${x.creator_id})` : ' (nobody)'}${x.scrip_results.length ? `; scrips: ${x.scrip_results.map((r: { key: string; notifications: number }) => `${r.key}×${r.notifications}`).join(', ')}` : ''}`,
        );
      for (const m of await outboxOf(s, id)) say(`  mail → ${m.recipient}: "${m.subject}"`);
    }
    fs.writeFileSync(file, `${log.join('\n')}\n`);
  }
  await s?.close();
  await releasePostgres();
});

describe('a day in the life of a support team on the clock', () => {
  it('five tickets by mail start their first-response clocks in business time', async () => {
    await at('2026-12-07T08:40:00.000Z', 'five customers write in (09:40 in Berlin)');
    const subjects = ['VPN drops', 'Invoice is wrong', 'Printer on fire', 'Password reset', 'New laptop'];
    for (const [i, from] of customers.entries()) {
      const r = await postMail(
        s,
        rawMail({ from, to: s.env.MAIL_FROM, subject: subjects[i] }, `Hello, about: ${subjects[i]}`),
      );
      expect(r.status, r.text).toBe(201);
      ids.push(r.body.ticket_id);
    }
    for (const id of ids) {
      const t = await ticketOf(s, id);
      // 09:40 Berlin + 120 business minutes = 11:40 Berlin = 10:40Z.
      expect(t.sla.first_response).toEqual({ due_at: '2026-12-07T10:40:00.000Z', met_at: null, breached_at: null });
      expect(t.next_due_at).toBe('2026-12-07T10:40:00.000Z');
    }
  });

  it('replies meet the first response; a snooze, a wait on the customer and a resolve', async () => {
    const [vpn, invoice, printer, password, laptop] = ids;
    await at('2026-12-07T09:30:00.000Z', 'the agent answers the VPN ticket');
    await agentSays(vpn, 'Which client version do you run?');
    await at('2026-12-07T09:35:00.000Z', 'the agent takes the invoice, answers and snoozes it until tomorrow 09:00');
    await patch(invoice, { owner_id: agent.id });
    await agentSays(invoice, 'Accounting is back tomorrow morning; I will check with them then.');
    const snoozed = await patch(invoice, { snoozed_until: '2026-12-08T08:00:00.000Z' });
    expect(snoozed).toMatchObject({ status: 'stalled', snoozed_until: '2026-12-08T08:00:00.000Z' });
    await at('2026-12-07T09:40:00.000Z', 'the agent answers the password ticket and waits on the customer');
    await agentSays(password, 'Please try the reset link I just sent.');
    await patch(password, { status: 'stalled' });
    await at('2026-12-07T09:45:00.000Z', 'the agent answers the laptop ticket and resolves it');
    await agentSays(laptop, 'Your laptop ships today.');
    const resolved = await patch(laptop, { status: 'resolved' });
    expect(resolved.sla.resolution.met_at).toBe('2026-12-07T09:45:00.000Z');
    await at('2026-12-07T09:50:00.000Z', 'the agent takes the printer ticket, but does not answer yet');
    await patch(printer, { owner_id: agent.id });
    expect((await ticketOf(s, vpn)).sla.first_response.met_at).toBe('2026-12-07T09:30:00.000Z');
  });

  it("the customer's follow-up starts the next response; the unanswered ticket is warned of, then breached", async () => {
    const [vpn, , printer] = ids;
    await at('2026-12-07T10:00:00.000Z', 'Ada answers the VPN question by mail');
    const r = await postMail(
      s,
      rawMail(
        { from: customers[0], to: s.env.MAIL_FROM, subject: `Re: [hxdesk #${vpn}] VPN drops` },
        'Version 5.2, on Windows.',
      ),
    );
    expect(r.status, r.text).toBe(200);
    // 11:00 Berlin + 240 business minutes = 15:00 Berlin.
    expect((await ticketOf(s, vpn)).sla.next_response.due_at).toBe('2026-12-07T14:00:00.000Z');
    await at('2026-12-07T10:10:01.000Z', 'the printer ticket enters its warning window');
    const warned = (await transactionsOf(s, printer)).filter((x) => x.type === 'SLA');
    expect(warned.map((x) => [x.field, x.new_value])).toEqual([['first_response', 'warning']]);
    await at('2026-12-07T10:40:01.000Z', 'its first response falls due unanswered');
    const breached = (await transactionsOf(s, printer)).filter((x) => x.type === 'SLA');
    expect(breached.map((x) => [x.field, x.new_value])).toEqual([
      ['first_response', 'warning'],
      ['first_response', 'breached'],
    ]);
    expect(breached[1].scrip_results).toEqual([
      expect.objectContaining({ key: 'owner_hears_of_breach', ok: true, notifications: 1 }),
    ]);
    const mails = (await outboxOf(s, printer)).filter((m) => m.recipient === agent.email);
    expect(mails.map((m) => m.subject)).toContainEqual(expect.stringContaining('Breached: Printer on fire'));
    // Only the printer was late: every other ticket was answered in time, and nothing fired twice.
    for (const id of ids.filter((x) => x !== printer))
      expect((await transactionsOf(s, id)).filter((x) => x.type === 'SLA')).toEqual([]);
    await at('2026-12-07T11:00:00.000Z', 'the agent answers the printer ticket (late) and Ada’s follow-up');
    await agentSays(printer, 'Sorry for the wait: please unplug it.');
    await agentSays(vpn, 'Please update to 5.3.');
    const p = await ticketOf(s, printer);
    expect(p.sla.first_response).toEqual({
      due_at: '2026-12-07T10:40:00.000Z',
      met_at: '2026-12-07T11:00:00.000Z',
      breached_at: '2026-12-07T10:40:00.000Z',
    });
    expect((await ticketOf(s, vpn)).sla.next_response.met_at).toBe('2026-12-07T11:00:00.000Z');
  });

  it('the snoozed ticket wakes the next morning and its owner hears of it', async () => {
    const invoice = ids[1];
    await at('2026-12-08T08:00:00.000Z', 'Tuesday 09:00 in Berlin: the invoice ticket wakes');
    const t = await ticketOf(s, invoice);
    expect(t).toMatchObject({ status: 'open', snoozed_until: null });
    expect((await transactionsOf(s, invoice)).filter((x) => x.type === 'Unsnooze')).toHaveLength(1);
    const mails = (await outboxOf(s, invoice)).filter((m) => m.recipient === agent.email);
    expect(mails.map((m) => m.subject)).toContainEqual(expect.stringContaining('Woke up: Invoice is wrong'));
  });

  it('the shipped auto-close, once enabled, closes the ticket left waiting 40 business hours later', async () => {
    const password = ids[3];
    await at('2026-12-08T08:05:00.000Z', 'the admin enables "Close idle tickets"');
    const scrip = (await s.api('GET', '/scrips')).body.scrips.find(
      (x: { key: string }) => x.key === 'close_idle_tickets',
    );
    const on = await s.api('PATCH', `/scrips/${scrip.id}`, { body: { enabled: true } });
    expect(on.status, on.text).toBe(200);
    // Stalled since Monday 10:40 Berlin: 40 business hours end on the next Monday at 10:40 Berlin.
    await at('2026-12-14T09:39:00.000Z', 'a minute before the 40 business hours are up');
    expect((await ticketOf(s, password)).status).toBe('stalled');
    await at('2026-12-14T09:40:01.000Z', '40 business hours after the password ticket began to wait');
    const t = await ticketOf(s, password);
    expect(t.status).toBe('resolved');
    const history = await transactionsOf(s, password);
    expect(history.filter((x) => x.type === 'Idle')).toHaveLength(1);
    const toCustomer = (await outboxOf(s, password)).filter((m) => m.recipient === customers[3]);
    // The reply and the closing notice, and no "Resolved" mail besides.
    expect(toCustomer.map((m) => m.subject)).toEqual([
      expect.stringContaining('Password reset'),
      expect.stringContaining('Password reset'),
      expect.stringContaining('Closing: Password reset'),
    ]);
  });
});
