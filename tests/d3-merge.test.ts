import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketTimers } from '../src/domain/time/timers.js';
import { rawGet, rawRun } from './helpers/db.js';
import { expectError } from './helpers/expect.js';
import { postMail } from './helpers/mail.js';
import { signedPath } from './helpers/portal.js';
import { releasePostgres } from './helpers/postgres.js';
import { transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D3 merge and unmerge (decision 076), through real HTTP on a real server (both stores): a
// merge moves entries (dates kept, merged_from), files, people, tags, links and missing custom
// values into the target and leaves a tombstone that reads as { ticket: { id, merged_into } },
// redirects a page, refuses changes (409 merged_into), is in no list, count or search; mail
// threading to it (subject tag, its Message-IDs, our notifications' Message-IDs) lands in the
// target (chains followed); its portal links open the target; unmerge within 30 days gives back
// what was its own, with what came through its thread since.

let s: TestServer;
let agent: { id: number; email: string; token: string };
let ann: { id: number; email: string; token: string };
let bob: { id: number; email: string; token: string };
let clock = Date.parse('2026-12-01T09:00:00.000Z');
const setClock = async (ms: number) => {
  clock = ms;
  const r = await s.api('POST', '/test/clock', { body: { now: new Date(ms).toISOString() } });
  expect(r.status, r.text).toBe(200);
};
const tick = () => setClock(clock + 60_000);

beforeAll(async () => {
  s = await startServer({ HXDESK_TEST_CLOCK: '1', MAIL_SENDER_MAX_PER_HOUR: '1000' });
  agent = await s.user('agent');
  ann = await s.user('requester');
  bob = await s.user('requester');
  await setClock(clock);
});
afterAll(async () => {
  await s?.close();
  await releasePostgres();
});

let n = 0;
/** A ticket of `who` with a description, a reply from the agent, and a file. */
async function ticketOf(who: { token: string }, subject = `Printer ${++n}`) {
  const r = await s.api('POST', '/tickets', { token: who.token, body: { queue_id: 1, subject, description: 'Jams' } });
  expect(r.status, r.text).toBe(201);
  const id = r.body.ticket.id as number;
  await tick();
  const c = await s.api('POST', `/tickets/${id}/comment`, {
    token: agent.token,
    body: {
      body: 'Try this',
      internal: false,
      attachments: [
        { filename: 'fix.txt', content_type: 'text/plain', content_base64: Buffer.from('fix').toString('base64') },
      ],
    },
  });
  expect(c.status, c.text).toBe(201);
  await tick();
  return id;
}
const merge = (id: number, into: number | string, token = agent.token) =>
  s.api('POST', `/tickets/${id}/merge`, { token, body: { into } });
const ids = async (query: string) => {
  const r = await s.api('GET', `/tickets?${query}&limit=500`, { token: agent.token });
  expect(r.status, r.text).toBe(200);
  return { ids: (r.body.tickets as { id: number }[]).map((t) => t.id), total: r.body.total as number };
};
const mail = (headers: Record<string, string>, body = 'More info') =>
  postMail(
    s,
    [
      ...Object.entries({
        'Message-ID': `<m${++n}.${clock}@customer.example>`,
        To: 'support@helpdesk.example',
        'MIME-Version': '1.0',
        'Content-Type': 'text/plain; charset=utf-8',
        ...headers,
      }).map(([k, v]) => `${k}: ${v}`),
      '',
      body,
      '',
    ].join('\r\n'),
  );

describe('merge', () => {
  it('moves entries (dates kept, merged_from), files, people, tags, links and missing values; leaves a tombstone', async () => {
    const a = await ticketOf(ann);
    const b = await ticketOf(bob);
    const c = await ticketOf(bob);
    // Tags and links as their tables hold them (their routes are another part of D3).
    const now = new Date(clock).toISOString();
    await rawRun(s, 'INSERT INTO ticket_tags (ticket_id, tag, created_at) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)', [
      a,
      'printer',
      now,
      a,
      'vip',
      now,
      b,
      'vip',
      now,
    ]);
    await rawRun(
      s,
      'INSERT INTO ticket_links (base_id, type, target_id, created_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?)',
      [a, 'refers_to', c, now, c, 'depends_on', a, now, a, 'refers_to', b, now],
    );
    const before = await transactionsOf(s, a);
    await setClock(clock + 3600_000);

    const r = await merge(a, `#${b}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.merged).toEqual({ id: a, merged_into: b });
    expect(r.body.ticket.id).toBe(b);
    expect(r.body.ticket.requesters).toEqual([bob.id, ann.id]);

    // The tombstone: JSON names the target; a page goes there; its history is there.
    const tomb = await s.api('GET', `/tickets/${a}`, { token: agent.token });
    expect(tomb.status, tomb.text).toBe(200);
    expect(tomb.body).toEqual({ ticket: { id: a, merged_into: b } });
    const page = await fetch(`${s.url}/tickets/${a}`, {
      headers: { authorization: `Bearer ${agent.token}`, accept: 'text/html' },
      redirect: 'manual',
    });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe(`/tickets/${b}`);

    const moved = (await transactionsOf(s, b)).filter((t) => t.merged_from === a);
    expect(moved.map((t) => [t.id, t.type, t.created_at])).toEqual(before.map((t) => [t.id, t.type, t.created_at]));
    const file = moved.flatMap((t) => t.attachments)[0];
    const got = await fetch(`${s.url}/attachments/${file.id}`, { headers: { authorization: `Bearer ${agent.token}` } });
    expect(await got.text()).toBe('fix');
    const entry = (await transactionsOf(s, b)).at(-1);
    expect(entry).toMatchObject({ type: 'Merge', body: `#${a} merged into this ticket`, new_value: String(a) });

    const tags = await rawGet<{ tags: string }>(s, 'SELECT count(*) AS tags FROM ticket_tags WHERE ticket_id = ?', [b]);
    expect(Number(tags!.tags)).toBe(2); // vip once, printer
    const links = await rawGet<{ n: number }>(
      s,
      'SELECT count(*) AS n FROM ticket_links WHERE base_id = ? OR target_id = ?',
      [a, a],
    );
    expect(Number(links!.n)).toBe(0);
    const toB = await rawGet<{ n: number }>(
      s,
      "SELECT count(*) AS n FROM ticket_links WHERE (base_id = ? AND type = 'refers_to' AND target_id = ?) OR (base_id = ? AND type = 'depends_on' AND target_id = ?)",
      [b, c, c, b],
    );
    expect(Number(toB!.n)).toBe(2); // re-pointed; a → b itself was dropped
  });

  it('copies the custom values the target lacks; the target keeps its own', async () => {
    for (const key of ['model', 'site'])
      expect((await s.api('POST', '/custom-fields', { body: { key, name: key, type: 'text' } })).status).toBe(201);
    const a = await ticketOf(ann);
    const b = await ticketOf(bob);
    const set = (id: number, custom_fields: Record<string, string>) =>
      s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { custom_fields } });
    expect((await set(a, { model: 'X200', site: 'Berlin' })).status).toBe(200);
    expect((await set(b, { site: 'Paris' })).status).toBe(200);
    const r = await merge(a, b);
    expect(r.status, r.text).toBe(200);
    expect(r.body.ticket.custom_fields).toEqual({ model: 'X200', site: 'Paris' });
    expect((await s.api('POST', `/tickets/${b}/unmerge`, { token: agent.token, body: { ticket_id: a } })).status).toBe(
      200,
    );
    expect((await s.api('GET', `/tickets/${b}`)).body.custom_fields).toEqual({ site: 'Paris' });
    expect((await s.api('GET', `/tickets/${a}`)).body.custom_fields).toEqual({ model: 'X200', site: 'Berlin' });
  });

  it('refuses what cannot be merged, with errors that say why', async () => {
    const a = await ticketOf(ann);
    const b = await ticketOf(bob);
    expectError(await merge(a, a), 422, 'validation_failed', ['into']);
    expectError(await merge(a, 999_999), 422, 'validation_failed', ['into']);
    expectError(await merge(999_999, a), 404, 'not_found');
    expectError(await merge(a, 'x'), 422, 'validation_failed', ['into']);
    expectError(await merge(a, b, ann.token), 403, 'forbidden');
    expect((await merge(a, b)).status).toBe(200);
    const again = await merge(a, b);
    expectError(again, 409, 'conflict');
    expect(again.body.error.merged_into).toBe(b);
    const c = await ticketOf(bob);
    const intoTomb = await merge(c, a);
    expectError(intoTomb, 409, 'conflict');
    expect(intoTomb.body.error.message).toBe(`Ticket #${a} was merged into #${b}: merge into #${b} instead`);
  });

  it('a merged ticket takes no change: PATCH, comment, watchers, spam are 409 with merged_into', async () => {
    const a = await ticketOf(ann);
    const b = await ticketOf(bob);
    expect((await merge(a, b)).status).toBe(200);
    const message = `Ticket #${a} was merged into #${b}: change #${b} instead (nothing was changed)`;
    for (const [method, path, body] of [
      ['PATCH', `/tickets/${a}`, { status: 'open' }],
      ['POST', `/tickets/${a}/comment`, { body: 'hi' }],
      ['POST', `/tickets/${a}/watchers`, { role: 'cc', user_id: bob.id }],
      ['POST', `/tickets/${a}/spam`, undefined],
      ['GET', `/tickets/${a}/transactions`, undefined],
    ] as const) {
      const r = await s.api(method, path, { token: agent.token, body });
      expectError(r, 409, 'conflict');
      expect(r.body.error).toEqual({ code: 'conflict', message, merged_into: b });
    }
    // A customer of the merged ticket is not told where it went (as any ticket not theirs).
    expectError(await s.api('GET', `/tickets/${a}`, { token: ann.token }), 404, 'not_found');
  });

  it('a tombstone is in no list, count or search', async () => {
    const subject = `Unique-${Date.now().toString(36)}`;
    const a = await ticketOf(ann, subject);
    const b = await ticketOf(bob);
    expect((await ids(`q=${subject}`)).ids).toEqual([a]);
    const all = await ids('status=');
    expect((await merge(a, b)).status).toBe(200);
    // The totals too: a list with no status filter counts as before and takes the tombstones away.
    expect(await ids(`q=${subject}`)).toEqual({ ids: [], total: 0 });
    // `#a` names the target now: its Merge entry says "#a merged into this ticket".
    expect((await ids(`q=%23${a}`)).ids).not.toContain(a);
    const after = await ids('status=');
    expect(after.ids).not.toContain(a);
    expect(after.total).toBe(all.total - 1);
    for (const q of ['status=new,open,stalled,resolved,rejected,deleted', `requester_id=${ann.id}`, 'owner_id=none'])
      expect((await ids(q)).ids).not.toContain(a);
    const anns = await ids(`requester_id=${ann.id}`);
    expect(anns.total).toBe(anns.ids.length);
    const dash = await s.api('GET', '/dashboards', { token: agent.token });
    expect(dash.text).not.toContain('"merged"');
  });
});

describe('search after a merge', () => {
  it('words of a moved message find the target, and the merged ticket again after an unmerge', async () => {
    const a = await ticketOf(ann);
    const b = await ticketOf(bob);
    const word = `zebrafish${Date.now().toString(36)}`;
    const c = await s.api('POST', `/tickets/${a}/comment`, {
      token: agent.token,
      body: { body: `Check the ${word} cable`, internal: false },
    });
    expect(c.status, c.text).toBe(201);
    expect((await ids(`q=${word}`)).ids).toEqual([a]);
    expect((await merge(a, b)).status).toBe(200);
    expect((await ids(`q=${word}`)).ids).toEqual([b]);
    expect((await s.api('POST', `/tickets/${b}/unmerge`, { token: agent.token, body: { ticket_id: a } })).status).toBe(
      200,
    );
    expect((await ids(`q=${word}`)).ids).toEqual([a]);
  });
});

describe('mail and portal links of a merged ticket', () => {
  it('the subject tag, a Message-ID of its mail and of our notification all land in the target, with merged_from', async () => {
    const first = await mail({ From: ann.email, Subject: 'Scanner broken' });
    expect(first.status, first.text).toBe(201);
    const a = first.body.ticket_id as number;
    const mid = (await transactionsOf(s, a))[0].message_id as string;
    const b = await ticketOf(bob);
    // A notification we sent about A (its Message-ID is in the outbox).
    const out = await rawGet<{ message_id: string }>(
      s,
      'SELECT message_id FROM outbox WHERE ticket_id = ? AND message_id IS NOT NULL ORDER BY id LIMIT 1',
      [a],
    );
    expect((await merge(a, b)).status).toBe(200);

    const byTag = await mail({ From: ann.email, Subject: `Re: [hxdesk #${a}] Scanner broken` }, 'by tag');
    const byMid = await mail({ From: ann.email, Subject: 'Re: Scanner', 'In-Reply-To': mid }, 'by message id');
    for (const r of [byTag, byMid]) {
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ verdict: 'appended', ticket_id: b });
    }
    expect(byTag.body.rule).toBe(`ticket by subject tag #${a} (merged into #${b})`);
    const got = [byTag, byMid];
    if (out) {
      const byOurs = await mail({ From: ann.email, Subject: 'Re: hi', References: out.message_id }, 'by ours');
      expect(byOurs.body).toMatchObject({ verdict: 'appended', ticket_id: b });
      got.push(byOurs);
    }
    const history = await transactionsOf(s, b);
    for (const r of got)
      expect(history.find((t) => t.id === r.body.transaction_id)).toMatchObject({ merged_from: a, type: 'Correspond' });
  });

  it('follows a chain of merges', async () => {
    const a = await ticketOf(ann);
    const b = await ticketOf(bob);
    const c = await ticketOf(bob);
    expect((await merge(a, b)).status).toBe(200);
    expect((await merge(b, c)).status).toBe(200);
    expect((await s.api('GET', `/tickets/${a}`)).body).toEqual({ ticket: { id: a, merged_into: b } });
    const r = await mail({ From: ann.email, Subject: `Re: [hxdesk #${a}]` }, 'chain');
    expect(r.body).toMatchObject({ verdict: 'appended', ticket_id: c });
    const entries = await transactionsOf(s, c);
    expect(entries.find((t) => t.id === r.body.transaction_id)?.merged_from).toBe(a);
    // A's entries keep their origin through the second merge.
    expect(entries.filter((t) => t.merged_from === a && t.type === 'Create')).toHaveLength(1);
  });

  it('a portal link of the merged ticket opens the target', async () => {
    const a = await ticketOf(ann, 'Portal merged');
    const b = await ticketOf(bob, 'Portal target');
    const path = await signedPath(s, { ticketId: a, userId: ann.id, expires: Math.floor(clock / 1000) + 86_400 * 90 });
    expect((await merge(a, b)).status).toBe(200);
    const r = await s.api('GET', path, { token: null });
    expect(r.status, r.text).toBe(200);
    expect(r.body.ticket).toMatchObject({ id: b, subject: 'Portal target' });
  });
});

describe('unmerge', () => {
  it('within 30 days gives back its own entries (and mail through its thread since), people, tags, links and status', async () => {
    const a = await ticketOf(ann);
    const b = await ticketOf(bob);
    const c = await ticketOf(bob);
    expect((await s.api('PATCH', `/tickets/${a}`, { token: agent.token, body: { status: 'stalled' } })).status).toBe(
      200,
    );
    const now = new Date(clock).toISOString();
    await rawRun(s, 'INSERT INTO ticket_tags (ticket_id, tag, created_at) VALUES (?, ?, ?)', [a, 'scanner', now]);
    await rawRun(s, 'INSERT INTO ticket_links (base_id, type, target_id, created_at) VALUES (?, ?, ?, ?)', [
      a,
      'refers_to',
      c,
      now,
    ]);
    const own = (await transactionsOf(s, a)).map((t) => t.id);
    const bOwn = (await transactionsOf(s, b)).map((t) => t.id);
    expect((await merge(a, b)).status).toBe(200);
    await setClock(clock + 29 * 86_400_000);
    const late = await mail({ From: ann.email, Subject: `Re: [hxdesk #${a}]` }, 'arrived since');
    expect(late.body.ticket_id).toBe(b);

    const r = await s.api('POST', `/tickets/${b}/unmerge`, { token: agent.token, body: { ticket_id: a } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.ticket).toMatchObject({ id: a, status: 'stalled', requesters: [ann.id] });
    const back = await transactionsOf(s, a);
    expect(back.map((t) => t.id)).toEqual([...own, late.body.transaction_id, back.at(-1).id]);
    expect(back.every((t) => t.merged_from === null)).toBe(true);
    expect(back.at(-1)).toMatchObject({ type: 'Unmerge', body: `Unmerged from #${b}` });
    const onB = await transactionsOf(s, b);
    // B keeps its own entries and what the merge and the mail did to it (the reopening by that mail's scrip).
    expect(onB.filter((t) => t.id <= bOwn.at(-1)).map((t) => t.id)).toEqual(bOwn);
    expect(onB.some((t) => t.merged_from !== null)).toBe(false);
    expect(onB.at(-1)).toMatchObject({ type: 'Unmerge', body: `#${a} unmerged from this ticket` });
    const bNow = await s.api('GET', `/tickets/${b}`);
    expect(bNow.body.requesters).toEqual([bob.id]);
    const tag = await rawGet<{ ticket_id: number }>(s, "SELECT ticket_id FROM ticket_tags WHERE tag = 'scanner'");
    expect(tag?.ticket_id).toBe(a);
    const link = await rawGet<{ base_id: number }>(s, 'SELECT base_id FROM ticket_links WHERE target_id = ?', [c]);
    expect(link?.base_id).toBe(a);
    expect((await ids(`requester_id=${ann.id}`)).ids).toContain(a);
    // Once undone, there is nothing more to undo.
    const again = await s.api('POST', `/tickets/${b}/unmerge`, { token: agent.token, body: { ticket_id: a } });
    expectError(again, 409, 'conflict');
    expect(again.body.error.message).toBe(`Ticket #${a} is not merged into #${b}: nothing to unmerge`);
  });

  it('gives back the clocks and the snooze: their timers are armed again as they were before the merge', async () => {
    const policy = await s.api('POST', '/sla-policies', {
      body: {
        name: 'Merge: every ticket',
        position: 1,
        match: {},
        calendar_id: null,
        first_response_minutes: 240,
        next_response_minutes: 480,
        resolution_minutes: 2880,
        warn_before_minutes: 30,
      },
    });
    expect(policy.status, policy.text).toBe(201);
    try {
      const a = await ticketOf(ann);
      const b = await ticketOf(bob);
      const until = new Date(clock + 86_400_000).toISOString();
      const snooze = await s.api('PATCH', `/tickets/${a}`, { token: agent.token, body: { snoozed_until: until } });
      expect(snooze.status, snooze.text).toBe(200);
      const armed = async () =>
        (await ticketTimers(s.db, a)).map((t) => `${t.kind}:${t.key} ${t.due_at} ${t.fired_at ?? 'pending'}`).sort();
      const before = await armed();
      expect(before).toContain(`unsnooze: ${until} pending`);
      expect(before.filter((t) => t.startsWith('sla:'))).toHaveLength(2); // first response (met) and resolution
      expect((await merge(a, b)).status).toBe(200);
      expect(await armed()).toEqual([]);
      const r = await s.api('POST', `/tickets/${b}/unmerge`, { token: agent.token, body: { ticket_id: a } });
      expect(r.status, r.text).toBe(200);
      expect(await armed()).toEqual(before);
    } finally {
      expect((await s.api('DELETE', `/sla-policies/${policy.body.id}`)).status).toBe(204);
    }
  });

  it('after 30 days it is 409 naming the limit', async () => {
    const a = await ticketOf(ann);
    const b = await ticketOf(bob);
    expect((await merge(a, b)).status).toBe(200);
    const day = new Date(clock).toISOString().slice(0, 10);
    await setClock(clock + 30 * 86_400_000 + 60_000);
    const r = await s.api('POST', `/tickets/${b}/unmerge`, { token: agent.token, body: { ticket_id: a } });
    expectError(r, 409, 'conflict');
    expect(r.body.error.message).toBe(
      `Ticket #${a} was merged into #${b} on ${day}: a merge can be undone only within 30 days`,
    );
    expectError(
      await s.api('POST', `/tickets/${b}/unmerge`, { token: ann.token, body: { ticket_id: a } }),
      403,
      'forbidden',
    );
  });
});

describe('concurrency', () => {
  it('mail to the merged ticket arriving while the merge runs lands exactly once, in the target', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await ticketOf(ann, `Race ${round}`);
      const b = await ticketOf(bob);
      const mids = Array.from({ length: 16 }, (_, i) => `<race.${round}.${i}.${clock}@customer.example>`);
      // Every request at once against the real server: eight mails, the merge, eight more.
      const send = (mid: string, i: number) =>
        mail({ From: ann.email, Subject: `Re: [hxdesk #${a}] Race`, 'Message-ID': mid }, `race ${round} ${i}`);
      const early = mids.slice(0, 8).map(send);
      const merging = merge(a, b);
      const late = mids.slice(8).map((mid, i) => send(mid, i + 8));
      const [merged, ...answers] = await Promise.all([merging, ...early, ...late]);
      expect(merged.status, merged.text).toBe(200);
      for (const r of answers) {
        expect(r.status, r.text).toBe(200);
        expect(r.body.verdict).toBe('appended');
      }
      const inB = (await transactionsOf(s, b)).filter((t) => mids.includes(t.message_id));
      expect(inB.map((t) => t.message_id).sort()).toEqual([...mids].sort());
      expect(inB.every((t) => t.merged_from === a)).toBe(true);
      const rows = await rawGet<{ n: number }>(
        s,
        `SELECT count(*) AS n FROM transactions WHERE message_id IN (${mids.map(() => '?').join(', ')})`,
        mids,
      );
      expect(Number(rows!.n)).toBe(mids.length);
      const left = await rawGet<{ n: number }>(s, 'SELECT count(*) AS n FROM transactions WHERE ticket_id = ?', [a]);
      expect(Number(left!.n)).toBe(0);
    }
  });
});
