import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/port.js';
import { tickets, timers } from '../src/db/tables.js';
import { testClock } from '../src/domain/clock.js';
import { outboxOf, settle, mailsFor } from './helpers/notify.js';
import { releasePostgres } from './helpers/postgres.js';
import { transactionsOf, ticketOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { until } from './helpers/wait.js';

// SPEC D2 time-based scrips (decision 072): `on_idle` with `{ statuses, hours, business }`, its
// config checked with errors that name the field; `idle_since` kept by each entry; an idle timer
// per ticket and scrip that fires once per idle start (Idle entry by nobody, on which only that
// scrip runs); close_idle mails the "Closing" template to the requesters and resolves with no
// other mail to them; the shipped "Close idle tickets" scrip, off; enabling a scrip fires it on
// the tickets already idle; GET /scrips/:id/preview. Time moves only by the test clock.

const START = Date.parse('2026-11-02T09:00:00.000Z'); // a Monday
const HOUR = 3_600_000;
const clock = testClock(START);
const at = (hours: number) => clock.set(START + hours * HOUR);

let s: TestServer;
let sink: SmtpSink;
let agent: { id: number; token: string };
let customer: { id: number; email: string; token: string };
let closeIdle: { id: number; key: string; enabled: boolean; config: Record<string, unknown> };

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' }, { clock });
  agent = await s.user('agent');
  customer = await s.user('requester');
  closeIdle = (await s.api('GET', '/scrips')).body.scrips.find((x: { key: string }) => x.key === 'close_idle_tickets');
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
  await releasePostgres();
});

const newTicket = async (subject: string) => {
  const r = await s.api('POST', '/tickets', {
    token: customer.token,
    body: { queue_id: 1, subject, description: 'It broke' },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.ticket.id as number;
};
const setStatus = async (id: number, status: string) => {
  const r = await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { status } });
  expect(r.status, r.text).toBe(200);
};
const idleSince = async (id: number) =>
  (await s.db.select({ v: tickets.idle_since }).from(tickets).where(eq(tickets.id, id)))[0].v;
const idleEntries = async (id: number) => (await transactionsOf(s, id)).filter((t) => t.type === 'Idle');
const iso = (ms: number) => new Date(ms).toISOString();

describe('on_idle config and the shipped scrip', () => {
  it('refuses an on_idle scrip whose config is wrong, naming the field', async () => {
    const base = { key: 'idle_bad', condition: 'on_idle', action: 'set_status' };
    for (const [config, path] of [
      [{ hours: 4 }, 'config.statuses'],
      [{ statuses: [], hours: 4 }, 'config.statuses'],
      [{ statuses: ['sleeping'], hours: 4 }, 'config.statuses'],
      [{ statuses: ['open'] }, 'config.hours'],
      [{ statuses: ['open'], hours: 0 }, 'config.hours'],
      [{ statuses: ['open'], hours: '4' }, 'config.hours'],
      [{ statuses: ['open'], hours: 4, business: 'yes' }, 'config.business'],
    ] as const) {
      const r = await s.api('POST', '/scrips', { body: { ...base, config: { ...config, status: 'resolved' } } });
      expect(r.status, JSON.stringify(config)).toBe(422);
      expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
    const r = await s.api('POST', '/scrips', {
      body: {
        key: 'idle_bad',
        condition: 'on_idle',
        action: 'close_idle',
        config: { statuses: ['stalled'], hours: 4, template: 'No such template' },
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([
      { path: 'config.template', message: expect.stringContaining('No such template') },
    ]);
    // Nothing was stored.
    expect((await s.api('GET', '/scrips')).body.scrips.some((x: { key: string }) => x.key === 'idle_bad')).toBe(false);
  });

  it('a new install has "Close idle tickets" (off: stalled 40 business hours, close_idle) and the Closing template', async () => {
    expect(closeIdle).toMatchObject({
      condition: 'on_idle',
      action: 'close_idle',
      enabled: false,
      template_id: null,
      config: { statuses: ['stalled'], hours: 40, business: true, template: 'Closing' },
    });
    const templates = (await s.api('GET', '/templates')).body.templates as { name: string; subject: string }[];
    expect(templates.find((t) => t.name === 'Closing')?.subject).toBe('Closing: {{ ticket.subject }}');
  });

  it('a preview is for on_idle scrips only', async () => {
    const other = (await s.api('GET', '/scrips')).body.scrips.find(
      (x: { key: string }) => x.key === 'autoreply_on_create',
    );
    const r = await s.api('GET', `/scrips/${other.id}/preview`);
    expect(r.status).toBe(422);
    expect(r.body.error.details[0].path).toBe('condition');
    expect((await s.api('GET', `/scrips/${closeIdle.id}/preview`, { token: agent.token })).status).toBe(403);
  });
});

describe('idle timers', () => {
  it('keeps idle_since while an idle scrip is enabled: a public message or status change starts it, an internal note does not', async () => {
    at(0.5);
    const before = await newTicket('Before any idle scrip');
    expect(await idleSince(before)).toBe(null); // nothing kept, nothing written, while no idle scrip is on
    const keeper = await s.api('POST', '/scrips', {
      body: {
        key: 'idle_keeper',
        condition: 'on_idle',
        action: 'set_status',
        config: { statuses: ['rejected'], hours: 1000, status: 'rejected' },
      },
    });
    expect(keeper.status, keeper.text).toBe(201);
    at(1);
    const id = await newTicket('Keeps idle since');
    expect(await idleSince(id)).toBe(iso(START + HOUR));
    at(2);
    await s.api('POST', `/tickets/${id}/comment`, { token: agent.token, body: { body: 'Note', internal: true } });
    expect(await idleSince(id)).toBe(iso(START + HOUR));
    at(3);
    await s.api('POST', `/tickets/${id}/comment`, { token: agent.token, body: { body: 'On it', internal: false } });
    expect(await idleSince(id)).toBe(iso(START + 3 * HOUR));
    at(4);
    await setStatus(id, 'stalled');
    expect(await idleSince(id)).toBe(iso(START + 4 * HOUR));
    expect((await s.api('DELETE', `/scrips/${keeper.body.id}`)).status).toBe(204);
    // With no idle scrip on, it is no longer kept …
    await setStatus(before, 'open');
    expect(await idleSince(before)).toBe(null);
    at(4.5);
    await setStatus(id, 'open');
    expect(await idleSince(id)).toBe(iso(START + 4 * HOUR));
    // … and when one is enabled again, what it held is forgotten: the idle start comes from the history.
    const again = await s.api('POST', '/scrips', {
      body: {
        key: 'idle_keeper_again',
        condition: 'on_idle',
        action: 'set_status',
        config: { statuses: ['open'], hours: 1000, status: 'open' },
      },
    });
    expect(again.status, again.text).toBe(201);
    expect(await idleSince(id)).toBe(null);
    const armed = await s.db
      .select()
      .from(timers)
      .where(eq(timers.key, String(again.body.id)));
    expect(armed.map((t) => [t.ticket_id, t.cycle]).sort()).toEqual(
      [
        [before, iso(START + 4 * HOUR)],
        [id, iso(START + 4.5 * HOUR)],
      ].sort(),
    );
    expect((await s.api('DELETE', `/scrips/${again.body.id}`)).status).toBe(204);
  });

  it('enabling close_idle fires within 2 s on what is idle long enough: Closing mailed to the requesters, resolved, no Resolved mail', async () => {
    at(5);
    const old = await newTicket('Idle for ages');
    await setStatus(old, 'stalled'); // idle since START+5h
    const fresh = await newTicket('Stalled only lately');
    const open = await newTicket('Open and quiet');
    await setStatus(open, 'open');
    at(45);
    await setStatus(fresh, 'stalled'); // idle since START+45h
    at(45.5);

    // The preview of the disabled scrip: the stalled tickets idle 40 h or more (around the
    // clock: there is no calendar), oldest first; not the fresh one, not the open one.
    const preview = await s.api('GET', `/scrips/${closeIdle.id}/preview`);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ scrip_id: closeIdle.id, enabled: false, now: iso(START + 45.5 * HOUR) });
    const listed = preview.body.tickets.map((t: { id: number }) => t.id);
    expect(listed).toContain(old);
    expect(listed).not.toContain(fresh);
    expect(listed).not.toContain(open);
    expect(preview.body.count).toBe(listed.length);
    expect(preview.body.tickets.find((t: { id: number }) => t.id === old)).toEqual({
      id: old,
      subject: 'Idle for ages',
      status: 'stalled',
      queue_id: 1,
      idle_since: iso(START + 5 * HOUR),
      idle_due_at: iso(START + 45 * HOUR),
    });
    // The same on the scrip's page.
    const page = await s.api('GET', `/scrips/${closeIdle.id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('id="scrip-preview"');
    expect(page.text).toContain(`#${old} Idle for ages`);
    expect(page.text).not.toContain('Stalled only lately');

    const before = sink.messages.length;
    const on = await s.api('PATCH', `/scrips/${closeIdle.id}`, { body: { enabled: true } });
    expect(on.status, on.text).toBe(200);
    // No pass is asked for: the worker wakes on its own.
    await until('the idle ticket to be resolved', async () => (await ticketOf(s, old)).status === 'resolved');

    const history = await transactionsOf(s, old);
    const idle = history.filter((t) => t.type === 'Idle');
    expect(idle).toHaveLength(1);
    expect(idle[0]).toMatchObject({
      creator_id: null,
      field: 'idle_since',
      old_value: iso(START + 5 * HOUR),
      new_value: String(closeIdle.id),
      created_at: iso(START + 45.5 * HOUR),
    });
    // Only that scrip ran on it.
    expect(idle[0].scrip_results).toEqual([
      { scrip_id: closeIdle.id, key: 'close_idle_tickets', action: 'close_idle', ok: true, notifications: 1 },
    ]);
    const after = history.slice(history.indexOf(idle[0]) + 1);
    expect(after.map((t) => [t.type, t.old_value, t.new_value, t.creator_id, t.scrip_results])).toEqual([
      ['Status', 'stalled', 'resolved', null, []],
    ]);
    // The requester's mail: the Closing template, and nothing about the resolve.
    await settle(s, old);
    const rows = (await outboxOf(s, old)).filter((r) => r.transaction_id >= idle[0].id);
    expect(rows.map((r) => [r.recipient, r.scrip_id])).toEqual([[customer.email, closeIdle.id]]);
    const mails = mailsFor(sink, old, customer.email).map((m) => m.parsed.subject);
    expect(mails).toContain(`[hxdesk #${old}] Closing: Idle for ages`);
    expect(mails.filter((m) => m?.includes('Resolved'))).toEqual([]);
    const closing = mailsFor(sink, old, customer.email).find((m) => m.parsed.subject?.includes('Closing'))!;
    expect(closing.parsed.text).toContain(`ticket #${old} ("Idle for ages")`);
    expect(sink.messages.length).toBeGreaterThan(before);

    // The others: untouched.
    expect((await ticketOf(s, fresh)).status).toBe('stalled');
    expect(await idleEntries(fresh)).toEqual([]);
    expect((await ticketOf(s, open)).status).toBe('open');
    // Fired once: another pass, and the preview, find nothing more for it.
    await s.workers.timers.runDue();
    expect(await idleEntries(old)).toHaveLength(1);
    const now = (await s.api('GET', `/scrips/${closeIdle.id}/preview`)).body;
    expect(now.tickets.map((t: { id: number }) => t.id)).not.toContain(old);

    // The fresh one falls due 40 h after it stalled: not a moment before.
    at(84.99);
    await s.workers.timers.runDue();
    expect((await ticketOf(s, fresh)).status).toBe('stalled');
    at(85);
    await s.workers.timers.runDue();
    expect((await ticketOf(s, fresh)).status).toBe('resolved');
    expect(await idleEntries(fresh)).toHaveLength(1);

    const off = await s.api('PATCH', `/scrips/${closeIdle.id}`, { body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(
      await s.db
        .select()
        .from(timers)
        .where(eq(timers.key, String(closeIdle.id))),
    ).toEqual([]);
  });

  it('fires once per idle start: a public message starts it again, and it fires again only after as long', async () => {
    at(100);
    const watch = await s.api('POST', '/scrips', {
      body: {
        key: 'idle_open_tell_staff',
        condition: 'on_idle',
        action: 'notify_staff_watchers',
        template_id: (await s.api('GET', '/templates')).body.templates.find(
          (t: { name: string }) => t.name === 'Staff note',
        ).id,
        config: { statuses: ['open'], hours: 4, business: false },
      },
    });
    expect(watch.status, watch.text).toBe(201);
    const id = await newTicket('Open, then quiet');
    await setStatus(id, 'open'); // idle since 100h: due 104h
    at(103);
    await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Still on it', internal: false },
    });
    at(104);
    await s.workers.timers.runDue();
    expect(await idleEntries(id)).toEqual([]); // the reply at 103h started it again: due 107h
    at(107);
    await s.workers.timers.runDue();
    const idle = await idleEntries(id);
    expect(idle.map((t) => [t.old_value, t.new_value])).toEqual([[iso(START + 103 * HOUR), String(watch.body.id)]]);
    expect(idle[0].scrip_results).toEqual([
      expect.objectContaining({ scrip_id: watch.body.id, key: 'idle_open_tell_staff', ok: true }),
    ]);
    expect((await ticketOf(s, id)).status).toBe('open');
    at(200);
    await s.workers.timers.runDue();
    expect(await idleEntries(id)).toHaveLength(1); // once per idle start, however long it stays idle
    // A new idle start (a requester writes in) fires once more, 4 h later.
    await s.api('POST', `/tickets/${id}/comment`, { token: customer.token, body: { body: 'Any news?' } });
    at(204);
    await s.workers.timers.runDue();
    expect((await idleEntries(id)).map((t) => t.old_value)).toEqual([iso(START + 103 * HOUR), iso(START + 200 * HOUR)]);
    expect((await s.api('DELETE', `/scrips/${watch.body.id}`)).status).toBe(204);
    expect(
      await s.db
        .select()
        .from(timers)
        .where(eq(timers.key, String(watch.body.id))),
    ).toEqual([]);
  });

  it("watches its own queue only (a ticket moved in is watched), never a snoozed ticket; an older ticket's idle start comes from its history", async () => {
    at(300);
    const q2 = (await s.api('POST', '/queues', { body: { name: 'Idle queue' } })).body.id as number;
    const inQueue = async (subject: string, queue_id: number) => {
      const id = await newTicket(subject);
      if (queue_id !== 1) await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { queue_id } });
      await setStatus(id, 'open');
      return id;
    };
    const elsewhere = await inQueue('In General', 1);
    const watched = await inQueue('In the idle queue', q2);
    const snoozed = await inQueue('Snoozed in the idle queue', q2);
    const older = await inQueue('From before idle_since', q2);
    // An open ticket with snoozed_until set, and one whose idle_since is not kept (written here directly).
    await transaction(s.db, async (tx) => {
      await tx
        .update(tickets)
        .set({ snoozed_until: iso(START + 1000 * HOUR) })
        .where(eq(tickets.id, snoozed));
      await tx.update(tickets).set({ idle_since: null }).where(eq(tickets.id, older));
    });
    const scrip = await s.api('POST', '/scrips', {
      body: {
        key: 'idle_queue_stall',
        condition: 'on_idle',
        action: 'set_status',
        queue_id: q2,
        config: { statuses: ['open'], hours: 2, business: false, status: 'stalled' },
      },
    });
    expect(scrip.status, scrip.text).toBe(201);
    at(301.5);
    await s.workers.timers.runDue();
    for (const id of [elsewhere, watched, snoozed, older]) expect(await idleEntries(id)).toEqual([]);
    at(302);
    const preview = (await s.api('GET', `/scrips/${scrip.body.id}/preview`)).body;
    expect(preview.tickets.map((t: { id: number }) => t.id).sort()).toEqual([watched, older].sort());
    await s.workers.timers.runDue();
    expect((await idleEntries(watched)).map((t) => t.old_value)).toEqual([iso(START + 300 * HOUR)]);
    expect((await idleEntries(older)).map((t) => t.old_value)).toEqual([iso(START + 300 * HOUR)]);
    expect((await ticketOf(s, watched)).status).toBe('stalled');
    expect((await ticketOf(s, older)).status).toBe('stalled');
    expect(await idleEntries(snoozed)).toEqual([]);
    expect((await ticketOf(s, snoozed)).status).toBe('open');
    expect(await idleEntries(elsewhere)).toEqual([]);
    // Moved into the queue: watched from then on, by its idle start (300 h): due already.
    await s.api('PATCH', `/tickets/${elsewhere}`, { token: agent.token, body: { queue_id: q2 } });
    await s.workers.timers.runDue();
    expect((await ticketOf(s, elsewhere)).status).toBe('stalled');
    // The ticket page says what happened.
    const page = await s.api('GET', `/tickets/${watched}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain(`Idle long enough for scrip #${scrip.body.id}: no public message or status change`);
  });

  it("counts business hours in the ticket's policy's calendar, else in the default calendar", async () => {
    const week = {
      mon: [['09:00', '17:00']],
      tue: [['09:00', '17:00']],
      wed: [['09:00', '17:00']],
      thu: [['09:00', '17:00']],
      fri: [['09:00', '17:00']],
    };
    const berlin = await s.api('POST', '/calendars', {
      body: { name: 'Berlin office', time_zone: 'Europe/Berlin', hours: week, holidays: [], default: true },
    });
    expect(berlin.status, berlin.text).toBe(201);
    const ny = await s.api('POST', '/calendars', {
      body: { name: 'New York office', time_zone: 'America/New_York', hours: week, holidays: [] },
    });
    expect(ny.status, ny.text).toBe(201);
    const q3 = (await s.api('POST', '/queues', { body: { name: 'US customers' } })).body.id as number;
    const policy = await s.api('POST', '/sla-policies', {
      body: { name: 'US hours', match: { queue_ids: [q3] }, calendar_id: ny.body.id, resolution_minutes: 100_000 },
    });
    expect(policy.status, policy.text).toBe(201);
    const scrip = await s.api('POST', '/scrips', {
      body: {
        key: 'idle_business_hours',
        condition: 'on_idle',
        action: 'set_status',
        config: { statuses: ['stalled'], hours: 4, business: true, status: 'open' },
      },
    });
    expect(scrip.status, scrip.text).toBe(201);

    clock.set('2026-11-20T13:00:00.000Z'); // a Friday
    const europe = await newTicket('Berlin hours');
    const us = await newTicket('New York hours');
    await s.api('PATCH', `/tickets/${us}`, { token: agent.token, body: { queue_id: q3 } });
    // The policy applies to it (the SLA clocks store it when the ticket moves into the queue; written here only if they did not).
    await transaction(s.db, async (tx) => {
      await tx
        .update(tickets)
        .set({ sla: JSON.stringify({ policy_id: policy.body.id }) })
        .where(and(eq(tickets.id, us), isNull(tickets.sla)));
    });
    clock.set('2026-11-20T14:00:00.000Z'); // 15:00 in Berlin, 09:00 in New York
    await setStatus(europe, 'stalled');
    await setStatus(us, 'stalled');
    const due = async (id: number) =>
      (
        await s.db
          .select()
          .from(timers)
          .where(and(eq(timers.ticket_id, id), eq(timers.key, String(scrip.body.id))))
      )[0]?.due_at;
    // Berlin: Friday 15:00–17:00, then Monday 09:00–11:00 (CET, UTC+1).
    expect(await due(europe)).toBe('2026-11-23T10:00:00.000Z');
    // New York: Friday 09:00–13:00 (EST, UTC−5).
    expect(await due(us)).toBe('2026-11-20T18:00:00.000Z');

    clock.set('2026-11-20T17:59:59.999Z');
    await s.workers.timers.runDue();
    expect([(await ticketOf(s, europe)).status, (await ticketOf(s, us)).status]).toEqual(['stalled', 'stalled']);
    clock.set('2026-11-20T18:00:00.000Z');
    await s.workers.timers.runDue();
    expect([(await ticketOf(s, europe)).status, (await ticketOf(s, us)).status]).toEqual(['stalled', 'open']);
    // Saturday and Sunday count for nothing in Berlin.
    clock.set('2026-11-23T09:59:59.999Z');
    expect((await s.api('GET', `/scrips/${scrip.body.id}/preview`)).body.tickets).toEqual([]);
    await s.workers.timers.runDue();
    expect((await ticketOf(s, europe)).status).toBe('stalled');
    clock.set('2026-11-23T10:00:00.000Z');
    expect(
      (await s.api('GET', `/scrips/${scrip.body.id}/preview`)).body.tickets.map((t: { id: number }) => t.id),
    ).toEqual([europe]);
    await s.workers.timers.runDue();
    expect((await ticketOf(s, europe)).status).toBe('open');
    expect((await idleEntries(europe)).map((t) => t.created_at)).toEqual(['2026-11-23T10:00:00.000Z']);
  });

  it('a notify_webhook scrip on on_idle delivers the Idle entry as a webhook', async () => {
    const received: { event: string; transaction: { type: string; new_value: string }; ticket: { id: number } }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = await s.api('POST', '/scrips', {
        body: {
          key: 'idle_hook',
          condition: 'on_idle',
          action: 'notify_webhook',
          config: { url, statuses: ['new'], hours: 1 },
        },
      });
      expect(hook.status, hook.text).toBe(201);
      clock.set('2026-11-24T09:00:00.000Z');
      const id = await newTicket('Nobody looked at it');
      clock.set('2026-11-24T10:00:00.000Z');
      await s.workers.timers.runDue();
      await until('the webhook', () => received.length > 0);
      expect(received.map((r) => [r.event, r.transaction.type, r.transaction.new_value, r.ticket.id])).toEqual([
        ['on_idle', 'Idle', String(hook.body.id), id],
      ]);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('a snoozed ticket is not idle; its wake-up starts its idle time', async () => {
    const scrip = await s.api('POST', '/scrips', {
      body: {
        key: 'idle_snooze_check',
        condition: 'on_idle',
        action: 'set_status',
        config: { statuses: ['stalled', 'open'], hours: 1, status: 'rejected' },
      },
    });
    expect(scrip.status, scrip.text).toBe(201);
    clock.set('2026-11-25T09:00:00.000Z');
    const id = await newTicket('Snoozed until Friday');
    const snooze = await s.api('PATCH', `/tickets/${id}`, {
      token: agent.token,
      body: { snoozed_until: '2026-11-27T09:00:00.000Z' },
    });
    expect(snooze.status, snooze.text).toBe(200);
    expect((await ticketOf(s, id)).status).toBe('stalled');
    clock.set('2026-11-26T09:00:00.000Z'); // stalled for a day, but snoozed
    const listed = (await s.api('GET', `/scrips/${scrip.body.id}/preview`)).body.tickets.map(
      (t: { id: number }) => t.id,
    );
    expect(listed).not.toContain(id);
    await s.workers.timers.runDue();
    expect(await idleEntries(id)).toEqual([]);
    clock.set('2026-11-27T09:00:00.000Z'); // it wakes: open, and idle from now
    await s.workers.timers.runDue();
    expect((await ticketOf(s, id)).status).toBe('open');
    expect(await idleEntries(id)).toEqual([]);
    clock.set('2026-11-27T09:59:59.999Z');
    await s.workers.timers.runDue();
    expect(await idleEntries(id)).toEqual([]);
    clock.set('2026-11-27T10:00:00.000Z');
    await s.workers.timers.runDue();
    expect((await idleEntries(id)).map((t) => t.old_value)).toEqual(['2026-11-27T09:00:00.000Z']);
    expect((await ticketOf(s, id)).status).toBe('rejected');
  });
});
