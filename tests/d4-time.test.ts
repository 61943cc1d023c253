import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { until } from './helpers/wait.js';

// SPEC D4 time worked (decision 081), on both stores: POST /tickets/:id/time (validation in
// words naming the field, who may enter whose time, the TimeWorked entry and the ticket's sum,
// negative corrections), a reply's or note's time_minutes, GET /time ("My week": the ISO week in
// the reader's zone by default, who may read whose), and days at the edges of time zones — all
// at instants of the test clock.

// Wednesday 10 March 2032, 12:00 UTC: the week is Monday 8 – Sunday 14 March.
const clock = testClock('2032-03-10T12:00:00.000Z');
let s: TestServer;
type U = { id: number; email: string; token: string };
let agent: U;
let other: U;
let rq: U;
let kiwi: U;
let weekly: U;
let receiver: http.Server;
let hookUrl: string;
const received: { type: string; new_value: string | null; ticket: number }[] = [];

const make = async (subject: string) => {
  const res = await s.api('POST', '/tickets', { body: { queue_id: 1, subject, requester_id: rq.id } });
  expect(res.status, res.text).toBe(201);
  return res.body.ticket.id as number;
};
const addTime = (id: number, body: Record<string, unknown>, token = agent.token) =>
  s.api('POST', `/tickets/${id}/time`, { token, body });
const time = (query = '', token = agent.token) => s.api('GET', `/time${query}`, { token });
const named = async (u: U, name: string, timezone = 'UTC') => {
  const res = await s.api('PATCH', '/settings', { token: u.token, body: { name, timezone } });
  expect(res.status, res.text).toBe(200);
};

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const p = JSON.parse(body);
      received.push({
        type: p.transaction.type,
        new_value: p.transaction.new_value,
        ticket: p.ticket.id,
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  s = await startServer({ OUTBOX_POLL_MS: '50' }, { clock });
  agent = await s.user('agent', 'time-agent@example.com');
  other = await s.user('agent', 'time-other@example.com');
  rq = await s.user('requester', 'time-requester@example.com');
  kiwi = await s.user('agent', 'time-kiwi@example.com');
  weekly = await s.user('agent', 'time-weekly@example.com');
  await named(agent, 'Ann Agent');
  await named(other, 'Olly Other');
  await named(kiwi, 'Kiri Kiwi', 'Pacific/Auckland');
});
afterAll(async () => {
  await s?.close();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

describe('POST /tickets/:id/time', () => {
  it('enters minutes with a TimeWorked entry by the one who worked, and adds them to the ticket', async () => {
    const id = await make('Printer jam');
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(0);
    const res = await addTime(id, { minutes: 30, worked_on: '2032-03-09', note: 'Cleared the tray' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      ticket_id: id,
      user_id: agent.id,
      creator_id: agent.id,
      minutes: 30,
      worked_on: '2032-03-09',
      note: 'Cleared the tray',
      created_at: '2032-03-10T12:00:00.000Z',
    });
    const t = await ticketOf(s, id);
    expect(t.time_worked_minutes).toBe(30);
    expect(t.updated_at).toBe('2032-03-10T12:00:00.000Z');
    const entries = (await transactionsOf(s, id)).filter((x) => x.type === 'TimeWorked');
    expect(entries).toMatchObject([
      { type: 'TimeWorked', creator_id: agent.id, field: 'time_worked', new_value: '30', old_value: '2032-03-09' },
    ]);
    // The default date is today (in the caller's zone: UTC here); a second entry adds up.
    const today = await addTime(id, { minutes: 45 });
    expect(today.status, today.text).toBe(201);
    expect(today.body.worked_on).toBe('2032-03-10');
    expect(today.body.note).toBe('');
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(75);
    // The history line on the ticket page names who worked, how long, the day and the note.
    const page = await s.api('GET', `/tickets/${id}`, { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Ann Agent worked 30 min on 9 Mar: Cleared the tray');
    expect(page.text).toContain('Ann Agent worked 45 min on 10 Mar');
    expect(page.text).toContain('1 h 15 min');
  });

  it('refuses bad input with a 422 naming the field, and writes nothing', async () => {
    const id = await make('Validation');
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, 'minutes', 'Minutes must be a whole number between -1440 and 1440'],
      [{ minutes: 0 }, 'minutes', 'Minutes must not be 0 (negative minutes correct earlier time)'],
      [{ minutes: 1441 }, 'minutes', 'Minutes must be between -1440 and 1440'],
      [{ minutes: -1441 }, 'minutes', 'Minutes must be between -1440 and 1440'],
      [{ minutes: 1.5 }, 'minutes', 'Minutes must be a whole number between -1440 and 1440'],
      [{ minutes: 'ten' }, 'minutes', 'Minutes must be a whole number between -1440 and 1440'],
      [{ minutes: 10, worked_on: '2032-02-30' }, 'worked_on', 'Date worked must be a date (YYYY-MM-DD)'],
      [{ minutes: 10, worked_on: '10/03/2032' }, 'worked_on', 'Date worked must be a date (YYYY-MM-DD)'],
      [
        { minutes: 10, worked_on: '2032-03-11' },
        'worked_on',
        'Date worked must not be in the future (today is 2032-03-10 in UTC)',
      ],
      [{ minutes: 10, note: 'x'.repeat(1001) }, 'note', 'Note must be at most 1000 characters long'],
      [{ minutes: 10, user_id: 'me' }, 'user_id', 'User must be an id (a positive whole number)'],
      [{ minutes: 10, hours: 1 }, 'hours', 'Unknown field "hours"'],
    ];
    for (const [body, path, message] of cases) {
      const res = await addTime(id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details, JSON.stringify(body)).toEqual([{ path, message }]);
    }
    // A form's values are read by the same schema.
    const form = await s.api('POST', `/tickets/${id}/time`, {
      token: agent.token,
      form: { minutes: '0', worked_on: '' },
    });
    expect(form.status).toBe(422);
    expect(form.body.error.details).toEqual([
      { path: 'minutes', message: 'Minutes must not be 0 (negative minutes correct earlier time)' },
    ]);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(0);
    expect((await transactionsOf(s, id)).filter((x) => x.type === 'TimeWorked')).toEqual([]);
    expect((await addTime(999_999, { minutes: 5 })).status).toBe(404);
  });

  it('staff only; naming another worker is for administrators, who may name staff', async () => {
    const id = await make('Whose time');
    const byRequester = await addTime(id, { minutes: 5 }, rq.token);
    expect(byRequester.status).toBe(403);
    const forOther = await addTime(id, { minutes: 5, user_id: other.id });
    expect(forOther.status).toBe(403);
    expect(forOther.body.error.message).toBe('Only administrators can enter time worked by someone else');
    // Naming yourself is fine.
    expect((await addTime(id, { minutes: 5, user_id: agent.id })).status).toBe(201);
    const byAdmin = await s.api('POST', `/tickets/${id}/time`, { body: { minutes: 20, user_id: other.id } });
    expect(byAdmin.status, byAdmin.text).toBe(201);
    expect(byAdmin.body.user_id).toBe(other.id);
    expect(byAdmin.body.creator_id).not.toBe(other.id);
    const entry = (await transactionsOf(s, id)).filter((x) => x.type === 'TimeWorked').at(-1);
    expect(entry.creator_id).toBe(other.id);
    const notStaff = await s.api('POST', `/tickets/${id}/time`, { body: { minutes: 20, user_id: rq.id } });
    expect(notStaff.status).toBe(422);
    expect(notStaff.body.error.details[0].path).toBe('user_id');
    const nobody = await s.api('POST', `/tickets/${id}/time`, { body: { minutes: 20, user_id: 987654 } });
    expect(nobody.status).toBe(422);
    expect(nobody.body.error.details).toEqual([{ path: 'user_id', message: 'User 987654 does not exist' }]);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(25);
    // Requesters never see time entries in the history.
    const seen = await s.api('GET', `/tickets/${id}/transactions`, { token: rq.token });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.transactions.map((t: { type: string }) => t.type)).not.toContain('TimeWorked');
  });

  it('a plain form lands back on the ticket (303); a deleted ticket takes no time (409)', async () => {
    const id = await make('Forms and deletion');
    const form = await s.api('POST', `/tickets/${id}/time`, {
      token: agent.token,
      form: { minutes: '12', worked_on: '2032-03-08', note: 'By hand', user_id: '' },
      headers: { accept: 'text/html' },
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe(`/tickets/${id}`);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(12);
    const del = await s.api('PATCH', `/tickets/${id}`, { body: { status: 'deleted' } });
    expect(del.status, del.text).toBe(200);
    const refused = await addTime(id, { minutes: 5 });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe(`Ticket #${id} is deleted: restore it first`);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(12);
  });

  it('negative minutes correct earlier time, never below zero', async () => {
    const id = await make('Corrections');
    expect((await addTime(id, { minutes: 60 })).status).toBe(201);
    const fix = await addTime(id, { minutes: -15, note: 'Counted lunch' });
    expect(fix.status, fix.text).toBe(201);
    expect(fix.body.minutes).toBe(-15);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(45);
    const tooMuch = await addTime(id, { minutes: -46 });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error.details).toEqual([
      { path: 'minutes', message: "Would take the ticket's time worked below zero: it has 45 minutes" },
    ]);
    expect((await addTime(id, { minutes: -45 })).status).toBe(201);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(0);
  });
});

describe('merge and unmerge', () => {
  it('the entries go with the history: the target sums both, an unmerge gives them back', async () => {
    const a = await make('Merged away');
    const b = await make('Merge target');
    expect((await addTime(a, { minutes: 30 })).status).toBe(201);
    const reply = await s.api('POST', `/tickets/${a}/comment`, {
      token: agent.token,
      body: { body: 'On it', internal: true, time_minutes: 5 },
    });
    expect(reply.status, reply.text).toBe(201);
    expect((await addTime(b, { minutes: 10 })).status).toBe(201);
    const merged = await s.api('POST', `/tickets/${a}/merge`, { token: agent.token, body: { into: b } });
    expect(merged.status, merged.text).toBe(200);
    expect((await ticketOf(s, b)).time_worked_minutes).toBe(45);
    const page = await s.api('GET', `/tickets/${b}`, { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.text).toContain('Internal note by Ann Agent · 5 min');
    const back = await s.api('POST', `/tickets/${b}/unmerge`, { token: agent.token, body: { ticket_id: a } });
    expect(back.status, back.text).toBe(200);
    expect((await ticketOf(s, a)).time_worked_minutes).toBe(35);
    expect((await ticketOf(s, b)).time_worked_minutes).toBe(10);
  });
});

describe('scrips and webhooks', () => {
  it('a TimeWorked entry runs the scrips; a webhook sees it and the reply that came with time', async () => {
    const queue = await s.api('POST', '/queues', { body: { name: 'Timed' } });
    expect(queue.status, queue.text).toBe(201);
    const scrip = await s.api('POST', '/scrips', {
      body: {
        key: 'time_hook',
        condition: 'on_transaction',
        action: 'notify_webhook',
        queue_id: queue.body.id,
        config: { url: hookUrl },
      },
    });
    expect(scrip.status, scrip.text).toBe(201);
    const made = await s.api('POST', '/tickets', {
      body: { queue_id: queue.body.id, subject: 'Hooked', requester_id: rq.id },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.ticket.id as number;
    expect((await addTime(id, { minutes: 40 })).status).toBe(201);
    const reply = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Done', internal: false, time_minutes: 5 },
    });
    expect(reply.status, reply.text).toBe(201);
    const entry = (await transactionsOf(s, id)).find((t) => t.type === 'TimeWorked');
    expect(entry.scrip_results.map((r: { key: string }) => r.key)).toEqual(['time_hook']);
    await until('the TimeWorked and the reply delivered', async () =>
      ['TimeWorked', 'Correspond'].every((t) => received.some((r) => r.ticket === id && r.type === t)),
    );
    expect(received.find((r) => r.ticket === id && r.type === 'TimeWorked')?.new_value).toBe('40');
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(45);
  });
});

describe('time_minutes with a reply or note', () => {
  it('enters the time in the message’s unit of work, tied to it, with no TimeWorked entry', async () => {
    const id = await make('Reply with time');
    const reply = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Fixed it', internal: false, time_minutes: 15 },
    });
    expect(reply.status, reply.text).toBe(201);
    const note = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      form: { body: 'Checked the logs', internal: 'true', time_minutes: '10' },
    });
    expect(note.status, note.text).toBe(201);
    // A form's empty field is no time.
    const none = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      form: { body: 'Nothing timed', internal: 'true', time_minutes: '' },
    });
    expect(none.status, none.text).toBe(201);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(25);
    const history = await transactionsOf(s, id);
    expect(history.map((t) => t.type)).not.toContain('TimeWorked');
    const week = await time();
    const mine = week.body.entries.filter((e: { ticket_id: number }) => e.ticket_id === id);
    expect(mine.map((e: { minutes: number }) => e.minutes)).toEqual([15, 10]);
    expect(mine[0]).toMatchObject({ user_id: agent.id, creator_id: agent.id, worked_on: '2032-03-10', note: '' });
    // The reply's and the note's history lines say their minutes.
    const page = await s.api('GET', `/tickets/${id}`, { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.text).toContain('Reply by Ann Agent · 15 min');
    expect(page.text).toContain('Internal note by Ann Agent · 10 min');
    expect(page.text).not.toContain('Internal note by Ann Agent · 0 min');
  });

  it('a reply refused as stale (a plain form) writes no time and keeps the minutes in the box', async () => {
    const id = await make('Stale with time');
    const seen = (await transactionsOf(s, id)).at(-1).id as number;
    const mail = await s.api('POST', `/tickets/${id}/comment`, {
      token: rq.token,
      body: { body: 'Any news?', internal: false },
    });
    expect(mail.status, mail.text).toBe(201);
    const res = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      form: { body: 'Working on it', internal: 'false', time_minutes: '25', seen_transaction_id: String(seen) },
      headers: { accept: 'text/html' },
    });
    expect(res.status).toBe(409);
    expect(res.text).toMatch(/<input id="reply-time-minutes" name="time_minutes"[^>]* value="25"/);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(0);
  });

  it('refuses bad minutes and a requester’s time, writing no message', async () => {
    const id = await make('Reply refused');
    const before = (await transactionsOf(s, id)).length;
    const bad = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Too long', time_minutes: 2000 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([
      { path: 'time_minutes', message: 'Minutes worked must be between -1440 and 1440' },
    ]);
    const below = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Take back', time_minutes: -5 },
    });
    expect(below.status).toBe(422);
    expect(below.body.error.details[0].path).toBe('time_minutes');
    const byRequester = await s.api('POST', `/tickets/${id}/comment`, {
      token: rq.token,
      body: { body: 'I worked too', internal: false, time_minutes: 5 },
    });
    expect(byRequester.status).toBe(403);
    expect((await transactionsOf(s, id)).length).toBe(before);
    expect((await ticketOf(s, id)).time_worked_minutes).toBe(0);
  });
});

describe('GET /time', () => {
  it('defaults to the current ISO week in the reader’s zone, with the total', async () => {
    const id = await make('Week');
    // Monday and Sunday of this week, and the Sunday before and the Monday after (not counted).
    for (const [worked_on, minutes] of [
      ['2032-03-07', 11],
      ['2032-03-08', 20],
      ['2032-03-10', 30],
    ] as const)
      expect((await addTime(id, { minutes, worked_on }, weekly.token)).status).toBe(201);
    const week = await time('', weekly.token);
    expect(week.status, week.text).toBe(200);
    expect(week.body).toMatchObject({ user_id: weekly.id, from: '2032-03-08', to: '2032-03-15', total_minutes: 50 });
    expect(week.body.entries.map((e: { worked_on: string }) => e.worked_on)).toEqual(['2032-03-08', '2032-03-10']);
    expect(week.body.entries[0]).toMatchObject({ ticket_id: id, ticket_subject: 'Week', minutes: 20 });
    // The week before, by from/to ([from, to)).
    const before = await time('?from=2032-03-01&to=2032-03-08', weekly.token);
    expect(before.body.total_minutes).toBe(11);
    // Only `from`: a week from it.
    expect((await time('?from=2032-03-07', weekly.token)).body).toMatchObject({ to: '2032-03-14', total_minutes: 61 });
    // Sunday night becomes Monday: the clock moves on, the default week with it.
    clock.set('2032-03-15T00:30:00.000Z');
    const next = await time('', weekly.token);
    expect(next.body).toMatchObject({ from: '2032-03-15', to: '2032-03-22', total_minutes: 0, entries: [] });
  });

  it('agents read their own; administrators anyone’s; requesters nothing', async () => {
    const forbidden = await time(`?user_id=${other.id}`);
    expect(forbidden.status).toBe(403);
    expect((await time(`?user_id=${agent.id}`)).status).toBe(200);
    expect((await time('', rq.token)).status).toBe(403);
    const asAdmin = await s.api('GET', `/time?user_id=${weekly.id}&from=2032-03-08&to=2032-03-15`);
    expect(asAdmin.status, asAdmin.text).toBe(200);
    expect(asAdmin.body.total_minutes).toBe(50);
  });

  it('refuses a bad period with a 422 naming the parameter', async () => {
    const cases: [string, string, string][] = [
      ['?from=2032-13-01', 'from', 'From must be a date (YYYY-MM-DD)'],
      ['?from=2032-03-10&to=2032-03-10', 'to', 'To must come after from (the period is [from, to))'],
      ['?from=2031-01-01&to=2032-03-10', 'to', 'To: at most 366 days in one period'],
      ['?week=2', 'week', 'Unknown parameter: week'],
    ];
    for (const [query, path, message] of cases) {
      const res = await time(query);
      expect(res.status, query).toBe(422);
      expect(res.body.error.details, query).toEqual([{ path, message }]);
    }
  });

  it('days are the reader’s: today, the future and the week at the edges of time zones', async () => {
    const id = await make('Zones');
    // 2032-03-15T00:30Z is Monday 13:30 in Auckland; the clock moves to Monday 23:30 UTC, which
    // is Tuesday 12:30 there: Tuesday is today for Kiri, still in the future for a UTC reader.
    clock.set('2032-03-15T23:30:00.000Z');
    const kiri = await addTime(id, { minutes: 25 }, kiwi.token);
    expect(kiri.status, kiri.text).toBe(201);
    expect(kiri.body.worked_on).toBe('2032-03-16');
    expect((await addTime(id, { minutes: 5, worked_on: '2032-03-16' }, kiwi.token)).status).toBe(201);
    const utc = await addTime(id, { minutes: 5, worked_on: '2032-03-16' });
    expect(utc.status).toBe(422);
    expect(utc.body.error.details[0].message).toBe(
      'Date worked must not be in the future (today is 2032-03-15 in UTC)',
    );
    // Sunday 21 March 12:30 UTC is Monday 22 March 01:30 in Auckland: Kiri's week is the next one.
    clock.set('2032-03-21T12:30:00.000Z');
    expect((await time('', kiwi.token)).body).toMatchObject({ from: '2032-03-22', to: '2032-03-29', total_minutes: 0 });
    expect((await time('')).body).toMatchObject({ from: '2032-03-15', to: '2032-03-22' });
    expect((await time('?from=2032-03-15', kiwi.token)).body.total_minutes).toBe(30);
  });

  it('is the "My week" page for a browser: entries by day with ticket links, totals, other weeks', async () => {
    const res = await s.api('GET', '/time?from=2032-03-08&to=2032-03-15', {
      token: weekly.token,
      headers: { accept: 'text/html' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>My week</h1>');
    expect(res.text).toContain('Mon 8 Mar');
    expect(res.text).toContain('Tue 9 Mar');
    expect(res.text).toMatch(/<a href="\/tickets\/\d+">#\d+ Week<\/a>/);
    expect(res.text).toContain('50 min');
    expect(res.text).toContain('href="/time?from=2032-03-01&amp;to=2032-03-08"');
    expect(res.text).toContain('href="/time?from=2032-03-15&amp;to=2032-03-22"');
    expect(res.text).toContain('href="/time">My week</a>');
  });
});
