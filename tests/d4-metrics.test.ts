import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textCell } from '../src/domain/reports/csv.js';
import { median, p90 } from '../src/domain/reports/stats.js';
import { rawRun } from './helpers/db.js';
import { releasePostgres } from './helpers/postgres.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D4 reports (decision 079, docs/metrics.md): a small history built at known instants with
// the test clock, and every number of its summary checked by hand — created, resolved (the last
// move into an inactive status in the period), reopened, unanswered, medians (an even count is
// the mean of the two middle values), p90 by nearest rank, SLA met percent, time worked, csat —
// grouped by queue, owner, tag, week and day; the drill-down links list exactly the counted
// tickets; the CSV reproduces the medians and neutralises formulas. Both stores.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let rq: { id: number; email: string; token: string };
let billing: number;
const at = async (iso: string) => {
  const r = await s.api('POST', '/test/clock', { body: { now: iso } });
  expect(r.status, r.text).toBe(200);
};
const create = async (subject: string, queue_id = 1, extra: Record<string, unknown> = {}) => {
  const r = await s.api('POST', '/tickets', {
    token: agent.token,
    body: { queue_id, subject, requester_id: rq.id, description: 'It broke', ...extra },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.ticket.id as number;
};
const reply = async (id: number, internal = false) => {
  const r = await s.api('POST', `/tickets/${id}/comment`, { token: agent.token, body: { body: 'On it', internal } });
  expect(r.status, r.text).toBe(201);
};
const move = async (id: number, status: string) => {
  const r = await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { status } });
  expect(r.status, r.text).toBe(200);
};
const summary = async (query: string, token = agent.token) => {
  const r = await s.api('GET', `/reports/summary?from=2032-03-08&to=2032-03-15&${query}`, { token });
  expect(r.status, r.text).toBe(200);
  return r.body;
};
const listed = async (url: string) => {
  const r = await s.api('GET', `${url}&sort=id&limit=500`, { token: agent.token });
  expect(r.status, r.text).toBe(200);
  return (r.body.tickets as { id: number }[]).map((t) => t.id);
};
const csv = async (query: string) => {
  const r = await fetch(`${s.url}/reports/tickets.csv?from=2032-03-08&to=2032-03-15&${query}`, {
    headers: { authorization: `Bearer ${agent.token}` },
  });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
  return await r.text();
};
/** RFC 4180 parsing, enough for the test: quoted cells with doubled quotes, CRLF line ends. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  return rows;
}

const T: Record<string, number> = {};

beforeAll(async () => {
  s = await startServer({ HXDESK_TEST_CLOCK: '1' });
  agent = await s.user('agent', 'report-agent@example.com');
  rq = await s.user('requester', 'report-rq@example.com');
  await at('2032-02-01T09:00:00.000Z');
  const q = await s.api('POST', '/queues', { body: { name: 'Billing' } });
  expect(q.status, q.text).toBe(201);
  billing = q.body.id;
  // Billing's hours: weekdays 09:00–17:00 UTC (2032-03-08 is a Monday).
  const cal = await s.api('POST', '/calendars', {
    body: {
      name: 'Billing hours',
      time_zone: 'UTC',
      hours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [['09:00', '17:00']]])),
    },
  });
  expect(cal.status, cal.text).toBe(201);
  const policy = await s.api('POST', '/sla-policies', {
    body: {
      name: 'Billing',
      match: { queue_ids: [billing] },
      calendar_id: cal.body.id,
      first_response_minutes: 60,
      resolution_minutes: 240,
    },
  });
  expect(policy.status, policy.text).toBe(201);

  // The history, put in time order below (the test clock only moves forwards).
  const steps: [string, () => Promise<unknown>][] = [
    // P: created a week before the period, resolved in it (12780 min: 8 days 21 h).
    ['2032-03-01T09:00:00.000Z', async () => (T.P = await create('Before the period'))],
    ['2032-03-10T06:00:00.000Z', () => move(T.P, 'resolved')],
    // A: answered after 10 min (an internal note before it does not count), resolved after 120.
    ['2032-03-08T09:00:00.000Z', async () => (T.A = await create('Printer jam', 1, { owner_id: agent.id }))],
    ['2032-03-08T09:05:00.000Z', () => reply(T.A, true)],
    ['2032-03-08T09:10:00.000Z', () => reply(T.A)],
    ['2032-03-08T11:00:00.000Z', () => move(T.A, 'resolved')],
    // B: answered after 30, resolved, reopened, resolved again: counted once, at its last resolve (2880).
    [
      '2032-03-08T10:00:00.000Z',
      async () => (T.B = await create('=HYPERLINK("http://evil.example/","click")', 1, { owner_id: agent.id })),
    ],
    ['2032-03-08T10:30:00.000Z', () => reply(T.B)],
    ['2032-03-09T10:00:00.000Z', () => move(T.B, 'resolved')],
    ['2032-03-09T12:00:00.000Z', () => move(T.B, 'open')],
    ['2032-03-10T10:00:00.000Z', () => move(T.B, 'resolved')],
    // C: answered after 120, resolved, then deleted: its last move into an inactive status is not a resolve.
    ['2032-03-09T09:00:00.000Z', async () => (T.C = await create('-5 apples, "quoted"'))],
    ['2032-03-09T11:00:00.000Z', () => reply(T.C)],
    ['2032-03-09T12:00:00.000Z', () => move(T.C, 'resolved')],
    ['2032-03-09T13:00:00.000Z', () => move(T.C, 'deleted')],
    // D: never answered.
    ['2032-03-09T10:00:00.000Z', async () => (T.D = await create('@SUM(1,2)'))],
    // E (Billing, SLA 60/240 business minutes): answered after 45 (met), resolved after 1440 calendar
    // minutes, 480 business ones (09:00–17:00 on the 10th, nothing of the 11th before 09:00): breached.
    ['2032-03-10T09:00:00.000Z', async () => (T.E = await create('Invoice', billing))],
    ['2032-03-10T09:45:00.000Z', () => reply(T.E)],
    ['2032-03-11T09:00:00.000Z', () => move(T.E, 'resolved')],
    // F: created in the period and merged into A: a tombstone, counted nowhere.
    ['2032-03-08T12:00:00.000Z', async () => (T.F = await create('Same printer'))],
    [
      '2032-03-08T12:30:00.000Z',
      async () => {
        const m = await s.api('POST', `/tickets/${T.F}/merge`, { token: agent.token, body: { into: T.A } });
        expect(m.status, m.text).toBe(200);
      },
    ],
    // G: after the period.
    ['2032-03-15T09:00:00.000Z', async () => (T.G = await create('Next week'))],
  ];
  steps.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [iso, run] of steps) {
    await at(iso);
    await run();
  }
  for (const [id, tag] of [
    [T.A, 'printer'],
    [T.A, 'vip'],
    [T.B, 'printer'],
  ] as const) {
    const r = await s.api('POST', `/tickets/${id}/tags`, { token: agent.token, body: { tag } });
    expect(r.status, r.text).toBe(201);
  }
  // Time worked and ratings written as h-time and h-csat store them (the schema is the seam).
  const entry = (ticket: number, minutes: number, day: string) =>
    rawRun(
      s,
      'INSERT INTO time_entries (ticket_id, user_id, creator_id, minutes, worked_on, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [ticket, agent.id, agent.id, minutes, day, '', `${day}T18:00:00.000Z`],
    );
  await entry(T.A, 30, '2032-03-08');
  await entry(T.A, -10, '2032-03-09');
  await entry(T.E, 60, '2032-03-10');
  await entry(T.D, 15, '2032-03-15');
  const rating = (ticket: number, r: string, iso: string, resolve: number) =>
    rawRun(
      s,
      'INSERT INTO ticket_ratings (ticket_id, resolve_txn_id, requester_id, rating, comment, transaction_id, rated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [ticket, resolve, rq.id, r, '', resolve, iso],
    );
  await rating(T.A, 'good', '2032-03-08T12:00:00.000Z', 1);
  await rating(T.B, 'bad', '2032-03-10T11:00:00.000Z', 2);
  await rating(T.E, 'good', '2032-03-16T12:00:00.000Z', 3);
  await at('2032-03-20T09:00:00.000Z');
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

describe('figures', () => {
  it('median (even count: mean of the two middle) and p90 by nearest rank', () => {
    expect(median([10, 30, 120])).toBe(30);
    expect(median([120, 10, 45, 30])).toBe(38); // (30 + 45) / 2 = 37.5, rounded
    expect(p90([10, 30, 120])).toBe(120); // rank ⌈2.7⌉ = 3
    expect(p90(Array.from({ length: 10 }, (_, i) => i + 1))).toBe(9); // rank 9 of 10
    expect(median([])).toBeNull();
    expect(p90([])).toBeNull();
  });
});

describe('GET /reports/summary', () => {
  it('by queue: every number as worked out by hand', async () => {
    const r = await summary('group_by=queue');
    expect(r.rows.map((x: { label: string }) => x.label)).toEqual(['Billing', 'General']);
    const [b, g] = r.rows;
    expect(g).toMatchObject({
      key: 1,
      created: 4, // A B C D (F merged, G after, P before)
      resolved: 3, // P A B (C's last inactive move was a delete)
      reopened: 1, // B
      unanswered: 1, // D
      first_response_minutes: { median: 30, p90: 120 }, // 10 30 120
      resolution_minutes: { median: 2880, p90: 12780 }, // 120 2880 12780
      // No policy applies to General's tickets.
      first_response_business_minutes: { median: null, p90: null },
      resolution_business_minutes: { median: null, p90: null },
      sla_met_percent: { first_response: null, resolution: null },
      time_worked_minutes: 20, // 30 − 10
      csat: { count: 2, good_percent: 50 },
    });
    expect(b).toMatchObject({
      key: billing,
      created: 1,
      resolved: 1,
      reopened: 0,
      unanswered: 0,
      first_response_minutes: { median: 45, p90: 45 },
      resolution_minutes: { median: 1440, p90: 1440 },
      first_response_business_minutes: { median: 45, p90: 45 },
      resolution_business_minutes: { median: 480, p90: 480 },
      sla_met_percent: { first_response: 100, resolution: 0 },
      time_worked_minutes: 60,
      csat: { count: 0, good_percent: null }, // E's rating is after the period
    });
    expect(r.totals).toMatchObject({
      created: 5,
      resolved: 4,
      reopened: 1,
      unanswered: 1,
      first_response_minutes: { median: 38, p90: 120 }, // 10 30 45 120
      resolution_minutes: { median: 2160, p90: 12780 }, // 120 1440 2880 12780
      first_response_business_minutes: { median: 45, p90: 45 }, // E alone has a policy
      resolution_business_minutes: { median: 480, p90: 480 },
      sla_met_percent: { first_response: 100, resolution: 0 },
      time_worked_minutes: 80,
      csat: { count: 2, good_percent: 50 },
    });
  });

  it('the drill-down links list exactly the tickets counted', async () => {
    const r = await summary('group_by=queue');
    const g = r.rows[1];
    expect(await listed(g.tickets_url)).toEqual([T.A, T.B, T.C, T.D]);
    expect(await listed(g.resolved_url)).toEqual([T.P, T.A, T.B]);
    expect(await listed(r.totals.tickets_url)).toEqual([T.A, T.B, T.C, T.D, T.E]);
    expect(await listed(r.totals.resolved_url)).toEqual([T.P, T.A, T.B, T.E]);
    const byTag = await summary('group_by=tag');
    const untagged = byTag.rows.find((x: { key: string | null }) => x.key === null);
    expect(await listed(untagged.tickets_url)).toEqual([T.C, T.D, T.E]);
    expect(await listed(untagged.resolved_url)).toEqual([T.P, T.E]);
    const byOwner = await summary('group_by=owner');
    for (const row of byOwner.rows) expect((await listed(row.tickets_url)).length).toBe(row.created);
  });

  it('by owner, tag, week and day', async () => {
    const owner = await summary('group_by=owner');
    expect(
      owner.rows.map((x: { label: string; created: number; resolved: number }) => [x.label, x.created, x.resolved]),
    ).toEqual([
      [expect.any(String), 2, 2],
      ['Unassigned', 3, 2],
    ]);
    const tag = await summary('group_by=tag');
    expect(
      tag.rows.map((x: { key: string | null; created: number; resolved: number }) => [x.key, x.created, x.resolved]),
    ).toEqual([
      ['printer', 2, 2],
      ['vip', 1, 1],
      [null, 3, 2],
    ]);
    const week = await summary('group_by=week');
    expect(week.rows).toHaveLength(1);
    expect(week.rows[0]).toMatchObject({ key: '2032-W11', created: 5, resolved: 4, time_worked_minutes: 80 });
    const day = await summary('group_by=day');
    expect(
      day.rows.map(
        (x: { key: string; created: number; resolved: number; reopened: number; time_worked_minutes: number }) => [
          x.key,
          x.created,
          x.resolved,
          x.reopened,
          x.time_worked_minutes,
        ],
      ),
    ).toEqual([
      ['2032-03-08', 2, 1, 0, 30], // A B created; A resolved
      ['2032-03-09', 2, 0, 1, -10], // C D created; B reopened
      ['2032-03-10', 1, 2, 0, 60], // E created; P and B resolved
      ['2032-03-11', 0, 1, 0, 0], // E resolved
    ]);
    expect(await listed(day.rows[1].tickets_url)).toEqual([T.C, T.D]);
    expect(await listed(day.rows[2].resolved_url)).toEqual([T.P, T.B]);
  });

  it('the reader’s zone moves the day boundaries', async () => {
    const tokyo = await s.user('agent', 'report-tokyo@example.com');
    await rawRun(s, 'UPDATE users SET timezone = ? WHERE id = ?', ['Asia/Tokyo', tokyo.id]);
    // In Tokyo (UTC+9) 2032-03-08 09:00Z is 18:00 on the 8th; the period from the 9th starts at 2032-03-08T15:00Z.
    const r = await s.api('GET', '/reports/summary?from=2032-03-09&to=2032-03-10&group_by=day', { token: tokyo.token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.zone).toBe('Asia/Tokyo');
    // Created 2032-03-09 in Tokyo: C (18:00) and D (19:00); A and B were on the 8th there.
    expect(r.body.totals.created).toBe(2);
  });

  it('filters of GET /tickets apply; bad input is 422 naming the field; requesters 403', async () => {
    const r = await summary(`queue_id=${billing}`);
    expect(r.totals.created).toBe(1);
    const bad = await s.api('GET', '/reports/summary?group_by=month', { token: agent.token });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('group_by');
    const backwards = await s.api('GET', '/reports/summary?from=2032-03-10&to=2032-03-09', { token: agent.token });
    expect(backwards.status).toBe(422);
    expect(JSON.stringify(backwards.body)).toContain('to');
    expect((await s.api('GET', '/reports/summary', { token: rq.token })).status).toBe(403);
    const c = await fetch(`${s.url}/reports/tickets.csv`, { headers: { authorization: `Bearer ${rq.token}` } });
    expect(c.status).toBe(403);
  });
});

describe('GET /reports/tickets.csv', () => {
  it('one row per created ticket, medians equal to the summary’s, formulas neutralised', async () => {
    const rows = parseCsv(await csv(''));
    const [head, ...body] = rows;
    expect(head).toEqual([
      'id',
      'subject',
      'queue',
      'team',
      'owner',
      'requester',
      'tags',
      'created_at',
      'first_response_at',
      'first_response_minutes',
      'resolved_at',
      'resolution_minutes',
      'sla_first_response_met',
      'sla_resolution_met',
      'time_worked_minutes',
      'csat',
      'first_response_business_minutes',
      'resolution_business_minutes',
    ]);
    expect(body.map((r) => Number(r[0]))).toEqual([T.A, T.B, T.C, T.D, T.E]);
    const col = (name: string) => body.map((r) => r[(head as string[]).indexOf(name)] as string);
    const fr = col('first_response_minutes')
      .filter((v) => v !== '')
      .map(Number);
    const totals = (await summary('')).totals;
    expect({ median: median(fr), p90: p90(fr) }).toEqual(totals.first_response_minutes);
    expect(col('subject')).toEqual([
      'Printer jam',
      `'=HYPERLINK("http://evil.example/","click")`,
      `'-5 apples, "quoted"`,
      `'@SUM(1,2)`,
      'Invoice',
    ]);
    expect(col('tags')[0]).toBe('printer vip');
    expect(col('requester')[0]).toBe('report-rq@example.com');
    expect(col('queue')).toEqual(['General', 'General', 'General', 'General', 'Billing']);
    expect(col('resolved_at')).toEqual([
      '2032-03-08T11:00:00.000Z',
      '2032-03-10T10:00:00.000Z',
      '',
      '',
      '2032-03-11T09:00:00.000Z',
    ]);
    expect(col('sla_first_response_met')).toEqual(['', '', '', '', 'true']);
    expect(col('sla_resolution_met')).toEqual(['', '', '', '', 'false']);
    expect(col('time_worked_minutes')).toEqual(['20', '0', '0', '0', '60']);
    expect(col('csat')).toEqual(['good', 'bad', '', '', '']);
    expect(col('first_response_business_minutes')).toEqual(['', '', '', '', '45']);
    expect(col('resolution_business_minutes')).toEqual(['', '', '', '', '480']);
    // Where every resolved ticket was created in the period, resolution medians agree too.
    const bill = parseCsv(await csv(`queue_id=${billing}`)).slice(1);
    const billTotals = (await summary(`queue_id=${billing}`)).totals;
    expect(bill.map((r) => Number(r[11]))).toEqual([billTotals.resolution_minutes.median]);
  });

  it('text cells: RFC 4180 quoting and the formula prefix for = + - @ tab and CR', () => {
    expect(textCell('plain')).toBe('plain');
    expect(textCell('a,b')).toBe('"a,b"');
    expect(textCell('say "hi"')).toBe('"say ""hi"""');
    expect(textCell('two\r\nlines')).toBe('"two\r\nlines"');
    expect(textCell('=1+1')).toBe("'=1+1");
    expect(textCell('+1')).toBe("'+1");
    expect(textCell('-1')).toBe("'-1");
    expect(textCell('@A1')).toBe("'@A1");
    expect(textCell('\tx')).toBe("'\tx");
    expect(textCell('\rx')).toBe('"\'\rx"');
  });
});

describe('history that changes', () => {
  it('an unmerge counts the ticket again; a reopen after the period leaves the period’s resolve counted', async () => {
    const before = (await summary('group_by=queue')).rows[1];
    expect(before.created).toBe(4);
    const u = await s.api('POST', `/tickets/${T.A}/unmerge`, { token: agent.token, body: { ticket_id: T.F } });
    expect(u.status, u.text).toBe(200);
    const after = (await summary('group_by=queue')).rows[1];
    expect(after.created).toBe(5);
    expect(await listed(after.tickets_url)).toEqual([T.A, T.B, T.F, T.C, T.D].sort((a, b) => a - b));
    expect(after.unanswered).toBe(2); // F never had a reply
    await move(T.A, 'open'); // 2032-03-20: after the period
    const again = (await summary('group_by=queue')).rows[1];
    expect(again.resolved).toBe(3);
    expect(again.reopened).toBe(1);
    expect(await listed(again.resolved_url)).toEqual([T.P, T.A, T.B]);
  });
});

describe('dashboard widget `report`', () => {
  it('shows the summary of the last n days; its settings are checked', async () => {
    // The clock is at 2032-03-20: the last 14 days are 7–20 March (the whole fixture but P's creation).
    const d = await s.api('POST', '/dashboards', {
      token: agent.token,
      body: { name: 'Weekly', widgets: [{ kind: 'report', config: { group_by: 'week', days: 14 } }] },
    });
    expect(d.status, d.text).toBe(201);
    const got = await s.api('GET', `/dashboards/${d.body.id}`, { token: agent.token });
    expect(got.status, got.text).toBe(200);
    const data = got.body.widgets[0].data;
    expect(data.kind).toBe('report');
    expect(data.report).toMatchObject({ from: '2032-03-07', to: '2032-03-21', group_by: 'week' });
    expect(data.report.rows.map((r: { key: string }) => r.key)).toEqual(['2032-W11', '2032-W12']); // nothing happened on the 7th (W10);
    const html = await fetch(`${s.url}/dashboards/${d.body.id}`, {
      headers: { authorization: `Bearer ${agent.token}`, accept: 'text/html' },
    });
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('2032-W11');
    const bad = await s.api('POST', '/dashboards', {
      token: agent.token,
      body: { name: 'Bad', widgets: [{ kind: 'report', config: { group_by: 'month', days: 0 } }] },
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('config.group_by');
  });
});

describe('GET /reports (HTML)', () => {
  it('draws the summary with its filters in the query string and each count a link', async () => {
    const r = await fetch(`${s.url}/reports?from=2032-03-08&to=2032-03-15&group_by=queue`, {
      headers: { authorization: `Bearer ${agent.token}`, accept: 'text/html' },
    });
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain('<table class="report-table">');
    expect(html).toContain('value="2032-03-08"');
    expect(html).toContain('href="/tickets?queue_id=1&amp;created_from=2032-03-08T00%3A00%3A00.000Z');
    expect(html).toContain('/reports/tickets.csv?');
    // A policy applies to Billing's ticket: the business-hours medians are columns (Billing's row: 45 min, 8 h).
    expect(html).toContain('<th scope="col">Resolution in business hours, median</th>');
    expect(html).toMatch(
      /<th scope="row">Billing<\/th>(?:(?!<\/tr>).)*<td class="num">45 min<\/td><td class="num">8 h<\/td>/s,
    );
    const general = await fetch(`${s.url}/reports?from=2032-03-08&to=2032-03-15&queue_id=1`, {
      headers: { authorization: `Bearer ${agent.token}`, accept: 'text/html' },
    });
    expect(await general.text()).not.toContain('in business hours');
  });
});
