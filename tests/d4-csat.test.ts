import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { rawCount, rawGet } from './helpers/db.js';
import { mailsFor, settle } from './helpers/notify.js';
import { PORTAL_LINK } from './helpers/portal.js';
import { releasePostgres } from './helpers/postgres.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { until } from './helpers/wait.js';

// SPEC D4 satisfaction (decision 082), on both stores: the queue's csat_enabled through the API
// and its form; the "Resolved" mail (read from a real SMTP sink) carries a signed rating link only
// when the queue asks for ratings; opening the link (GET, HEAD, ?rating=) records nothing; only a
// POST records a Rating entry (staff only: never in the portal or a requester's JSON), and rating
// again replaces the current rating; after a reopen the link is 410; forged and expired links are
// 404; on_rating fires for ratings at or below config.max, webhooks included.

const START = Date.parse('2026-11-02T09:00:00.000Z');
const DAY = 86_400_000;
const clock = testClock(START);

let s: TestServer;
let sink: SmtpSink;
let agent: { id: number; token: string };
let rq: { id: number; email: string; token: string };
let rated: { id: number };
let receiver: http.Server;
let hookUrl: string;
const hooks: { event: string; type: string; rating: string | null; ticket: number }[] = [];

const LINK = /\/csat\/\d+\.\d+\.\d+\.\d+\.[A-Za-z0-9_-]{43}/;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const p = JSON.parse(body);
      hooks.push({ event: p.event, type: p.transaction.type, rating: p.transaction.new_value, ticket: p.ticket.id });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' }, { clock });
  agent = await s.user('agent', 'csat-agent@example.com');
  rq = await s.user('requester', 'csat-requester@example.com');
  const q = await s.api('POST', '/queues', { body: { name: 'Rated', csat_enabled: true } });
  expect(q.status, q.text).toBe(201);
  rated = q.body;
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
  await releasePostgres();
});

const make = async (subject: string, queue_id = rated.id) => {
  const r = await s.api('POST', '/tickets', { token: agent.token, body: { queue_id, subject, requester_id: rq.id } });
  expect(r.status, r.text).toBe(201);
  return r.body.ticket.id as number;
};
const setStatus = async (id: number, status: string) => {
  const r = await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { status } });
  expect(r.status, r.text).toBe(200);
};
/** Resolves the ticket and returns the Resolved mails the requester got for it (all of them so far). */
const resolve = async (id: number) => {
  await setStatus(id, 'resolved');
  await settle(s, id);
  return mailsFor(sink, id, rq.email).filter((m) => /\bResolved: /.test(m.parsed.subject ?? ''));
};
/** The rating link of the ticket's latest Resolved mail (a path). */
const linkOf = async (id: number) => {
  const mails = await resolve(id);
  const text = mails.at(-1)?.parsed.text ?? '';
  const m = LINK.exec(text);
  if (!m) throw new Error(`no rating link in: ${text}`);
  return m[0];
};
const noAuth = { token: null } as const;
const ratingEntries = async (id: number) => (await transactionsOf(s, id)).filter((t) => t.type === 'Rating');
const ratingRows = (id: number) => rawCount(s, 'ticket_ratings', 'ticket_id = ?', [id]);
const post = (link: string, body: unknown) => s.api('POST', link, { ...noAuth, body });

describe('the queue asks for ratings', () => {
  it('csat_enabled is set and read through the API and the form (default false), staff only', async () => {
    expect(rated).toMatchObject({ name: 'Rated', csat_enabled: true });
    const plain = await s.api('POST', '/queues', { body: { name: 'Unrated' } });
    expect(plain.body.csat_enabled).toBe(false);
    // The admin form: a checkbox after its hidden "false".
    const form = await s.api('POST', `/queues/${plain.body.id}`, {
      form: { _method: 'PATCH', csat_enabled: ['false', 'true'] },
      headers: { accept: 'text/html' },
    });
    expect(form.status).toBe(303);
    expect((await s.api('GET', `/queues/${plain.body.id}`)).body.csat_enabled).toBe(true);
    const off = await s.api('PATCH', `/queues/${plain.body.id}`, { body: { csat_enabled: false } });
    expect(off.body.csat_enabled).toBe(false);
    const bad = await s.api('PATCH', `/queues/${plain.body.id}`, { body: { csat_enabled: 'maybe' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].path).toBe('csat_enabled');
    const page = await s.api('GET', `/queues/${rated.id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toMatch(/name="csat_enabled"[^>]*checked/);
  });

  it('the Resolved mail carries a rating link only when the queue asks for ratings', async () => {
    const plain = await make('No survey here', 1);
    const mails = await resolve(plain);
    expect(mails).toHaveLength(1);
    expect(mails[0].parsed.text).not.toMatch(/csat|How did we do/);
    expect(mails[0].parsed.text).toMatch(PORTAL_LINK);

    const id = await make('Survey please');
    const [mail] = await resolve(id);
    const text = mail.parsed.text ?? '';
    expect(text).toContain('How did we do?');
    const link = LINK.exec(text)![0];
    for (const r of ['good', 'okay', 'bad']) expect(text).toContain(`${link}?rating=${r}`);
    // Bound to this ticket, the resolve (its Status entry) and the requester mailed.
    const resolveEntry = (await transactionsOf(s, id)).filter((t) => t.type === 'Status').at(-1);
    expect(link).toMatch(new RegExp(`^/csat/${id}\\.${resolveEntry.id}\\.${rq.id}\\.`));
    // Valid 30 days from now (the store's clock).
    const expires = Number(link.split('.')[3]);
    expect(expires).toBe(Math.floor(START / 1000) + 30 * 86_400);
  });
});

describe('ticket.csat_url in templates', () => {
  it('every template may name it (checked at save against the sample); empty where there is no rating to ask', async () => {
    const t = await s.api('POST', '/templates', {
      body: { name: 'Rate us', subject: 'Rate #{{ ticket.id }}', body: 'Link: [{{ ticket.csat_url }}]' },
    });
    expect(t.status, t.text).toBe(201);
    const sc = await s.api('POST', '/scrips', {
      body: {
        key: 'rate_us_on_reply',
        condition: 'on_correspond',
        action: 'notify_requester',
        template_id: t.body.id,
        queue_id: rated.id,
      },
    });
    expect(sc.status, sc.text).toBe(201);
    const id = await make('Not resolved yet');
    const reply = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'Working on it', internal: false },
    });
    expect(reply.status, reply.text).toBe(201);
    await settle(s, id);
    const mail = mailsFor(sink, id, rq.email).find((m) => /Rate #/.test(m.parsed.subject ?? ''));
    expect(mail?.parsed.text).toContain('Link: []');
    expect((await s.api('DELETE', `/scrips/${sc.body.id}`)).status).toBe(204);
  });
});

describe('a rating link', () => {
  let id: number;
  let link: string;
  beforeAll(async () => {
    id = await make('Rate me');
    link = await linkOf(id);
  });

  it('GET and HEAD record nothing, whoever opens it; ?rating= only pre-selects', async () => {
    const json = await s.api('GET', link, noAuth);
    expect(json.status, json.text).toBe(200);
    expect(json.body).toEqual({
      ticket: { id, subject: 'Rate me' },
      rating: null,
      expires_at: new Date(START + 30 * DAY).toISOString(),
    });
    const page = await s.api('GET', `${link}?rating=bad`, { ...noAuth, headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/value="bad"[^>]*checked/);
    expect(page.text).not.toMatch(/value="good"[^>]*checked/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const head = await fetch(`${s.url}${link}?rating=good`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    // A signed-in requester opening it stays on the page (not sent to the portal).
    const theirs = await s.api('GET', `${link}?rating=good`, { token: rq.token, headers: { accept: 'text/html' } });
    expect(theirs.status).toBe(200);
    expect(await ratingEntries(id)).toEqual([]);
    expect(await ratingRows(id)).toBe(0);
    expect((await ticketOf(s, id)).csat).toBeNull();
  });

  it('refuses a rating that is not good, okay or bad (422 naming the field), recording nothing', async () => {
    for (const body of [{ rating: 'great' }, {}, { rating: 'bad', comment: 'x'.repeat(4001) }]) {
      const r = await post(link, body);
      expect(r.status, r.text).toBe(422);
      expect(r.body.error.details[0].path).toBe('rating' in body && body.rating === 'bad' ? 'comment' : 'rating');
    }
    expect(await ratingEntries(id)).toEqual([]);
  });

  it('POST records a Rating entry by the requester, the rating of the resolve and the ticket’s csat', async () => {
    clock.set(START + 1000);
    const r = await post(link, { rating: 'good', comment: ' Quick and kind ' });
    expect(r.status, r.text).toBe(201);
    const at = new Date(START + 1000).toISOString();
    expect(r.body).toMatchObject({
      ticket: { id },
      rating: { rating: 'good', comment: 'Quick and kind', rated_at: at },
    });
    const [entry] = await ratingEntries(id);
    expect(entry).toMatchObject({
      id: r.body.transaction_id,
      creator_id: rq.id,
      new_value: 'good',
      body: 'Quick and kind',
    });
    expect((await ticketOf(s, id)).csat).toEqual({ rating: 'good', comment: 'Quick and kind', rated_at: at });
    expect(await ratingRows(id)).toBe(1);
    // The page now shows the current rating selected.
    const page = await s.api('GET', link, { ...noAuth, headers: { accept: 'text/html' } });
    expect(page.text).toMatch(/value="good"[^>]*checked/);
    expect(page.text).toContain('Quick and kind');
  });

  it('rating again (the form) replaces the current rating, each one an entry of its own', async () => {
    clock.set(START + 2000);
    const r = await s.api('POST', link, {
      ...noAuth,
      form: { rating: 'bad', comment: 'Actually it broke again' },
      headers: { accept: 'text/html', origin: s.url },
    });
    expect(r.status, r.text).toBe(303);
    expect(r.headers.get('location')).toBe(`${link}?rated`);
    const thanks = await s.api('GET', `${link}?rated`, { ...noAuth, headers: { accept: 'text/html' } });
    expect(thanks.text).toContain('Thank you');
    expect((await ratingEntries(id)).map((e) => e.new_value)).toEqual(['good', 'bad']);
    expect(await ratingRows(id)).toBe(1);
    const row = await rawGet<{ rating: string; comment: string }>(
      s,
      'SELECT rating, comment FROM ticket_ratings WHERE ticket_id = ?',
      [id],
    );
    expect(row).toEqual({ rating: 'bad', comment: 'Actually it broke again' });
    expect((await ticketOf(s, id)).csat.rating).toBe('bad');
    // A form from another site is refused.
    const foreign = await s.api('POST', link, {
      ...noAuth,
      form: { rating: 'good' },
      headers: { accept: 'text/html', origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect((await ticketOf(s, id)).csat.rating).toBe('bad');
  });

  it('staff see the Rating in the history; the requester and the portal never do', async () => {
    const page = await s.api('GET', `/tickets/${id}`, { token: agent.token, headers: { accept: 'text/html' } });
    expect(page.text).toContain('rated the answer: Bad');
    expect(page.text).toContain('Actually it broke again');
    expect(page.text).toMatch(/<span class="label">Rating<\/span> <strong>Bad<\/strong>/);
    // The requester's own API: no Rating entry, no csat.
    const theirs = await s.api('GET', `/tickets/${id}/transactions`, { token: rq.token });
    expect(theirs.status, theirs.text).toBe(200);
    expect((theirs.body.transactions as { type: string }[]).some((t) => t.type === 'Rating')).toBe(false);
    const ticket = await s.api('GET', `/tickets/${id}`, { token: rq.token });
    expect(ticket.body.ticket ?? ticket.body).not.toHaveProperty('csat');
    // Nor can they find the ticket by the comment's words; staff can (it is staff-only text, as a note is).
    const search = async (token: string) =>
      ((await s.api('GET', '/tickets?q=broke%20again', { token })).body.tickets as { id: number }[]).map((t) => t.id);
    expect(await search(agent.token)).toContain(id);
    expect(await search(rq.token)).not.toContain(id);
    // The portal (by the link of their mail, and signed in).
    const [mail] = mailsFor(sink, id, rq.email).filter((m) => /\bResolved: /.test(m.parsed.subject ?? ''));
    const portal = PORTAL_LINK.exec(mail.parsed.text ?? '')![0];
    for (const path of [portal, `/portal/tickets/${id}`]) {
      const view = await s.api('GET', path, { token: path === portal ? null : rq.token });
      expect(view.status, view.text).toBe(200);
      expect(JSON.stringify(view.body)).not.toMatch(/Rating|broke again/);
      const html = await s.api('GET', path, {
        token: path === portal ? null : rq.token,
        headers: { accept: 'text/html' },
      });
      expect(html.text).not.toMatch(/rated|broke again/);
    }
  });

  it('after the ticket reopens the link records nothing (410); the next resolve brings a new link', async () => {
    await setStatus(id, 'open');
    const get = await s.api('GET', link, noAuth);
    expect(get.status).toBe(410);
    expect(get.body.error.code).toBe('gone');
    const page = await s.api('GET', link, { ...noAuth, headers: { accept: 'text/html' } });
    expect(page.status).toBe(410);
    expect(page.text).toContain('This request was reopened');
    const r = await post(link, { rating: 'good' });
    expect(r.status).toBe(410);
    expect(await ratingEntries(id)).toHaveLength(2);
    expect((await ticketOf(s, id)).csat.rating).toBe('bad');

    const next = await linkOf(id);
    expect(next).not.toBe(link);
    expect((await s.api('GET', next, noAuth)).body.rating).toBeNull();
    expect((await post(next, { rating: 'okay' })).status).toBe(201);
    expect(await ratingRows(id)).toBe(2);
    expect((await ticketOf(s, id)).csat.rating).toBe('okay');
    expect((await post(link, { rating: 'good' })).status).toBe(410);
  });
});

describe('on_rating', () => {
  it('refuses a config.max other than bad or okay', async () => {
    const r = await s.api('POST', '/scrips', {
      body: {
        key: 'rating_bad_max',
        condition: 'on_rating',
        action: 'set_status',
        config: { max: 'good', status: 'open' },
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual(['config.max']);
  });

  it('fires for ratings at or below config.max, and webhooks see it', async () => {
    const mk = async (key: string, max?: string) => {
      const r = await s.api('POST', '/scrips', {
        body: {
          key,
          condition: 'on_rating',
          action: 'notify_webhook',
          queue_id: rated.id,
          config: { url: hookUrl, ...(max ? { max } : {}) },
        },
      });
      expect(r.status, r.text).toBe(201);
      return r.body.id as number;
    };
    const onBad = await mk('rating_bad', 'bad');
    const onOkay = await mk('rating_okay', 'okay');
    const byDefault = await mk('rating_default');
    const fired: Record<string, number[]> = {};
    for (const rating of ['good', 'okay', 'bad']) {
      const id = await make(`Rated ${rating}`);
      const r = await post(await linkOf(id), { rating });
      expect(r.status, r.text).toBe(201);
      const [entry] = await ratingEntries(id);
      // No other entry of the ticket (its Create, its resolve) set them off.
      const others = (await transactionsOf(s, id)).filter((t) => t.type !== 'Rating');
      const mine = new Set([onBad, onOkay, byDefault]);
      expect(others.flatMap((t) => t.scrip_results.filter((x: { scrip_id: number }) => mine.has(x.scrip_id)))).toEqual(
        [],
      );
      fired[rating] = (entry.scrip_results as { scrip_id: number; ok: boolean }[])
        .filter((x) => x.ok)
        .map((x) => x.scrip_id)
        .sort((a, b) => a - b);
    }
    expect(fired).toEqual({ good: [], okay: [onOkay], bad: [onBad, onOkay, byDefault].sort((a, b) => a - b) });
    await until('webhooks', () => hooks.length >= 4);
    expect(hooks.every((h) => h.event === 'on_rating' && h.type === 'Rating')).toBe(true);
    expect(hooks.map((h) => h.rating).sort()).toEqual(['bad', 'bad', 'bad', 'okay']);
    for (const x of [onBad, onOkay, byDefault]) await s.api('DELETE', `/scrips/${x}`);
  });
});

describe('links that are not ours', () => {
  it('a forged link is 404 (another ticket, requester or resolve; a changed MAC; not a token)', async () => {
    const id = await make('Forgery');
    const link = await linkOf(id);
    const [, , ticket, resolveId, user, expires, macPart] = /^\/csat\/((\d+)\.(\d+)\.(\d+)\.(\d+))\.(.+)$/.exec(link)!;
    const forged = [
      `/csat/${Number(ticket) + 1}.${resolveId}.${user}.${expires}.${macPart}`,
      `/csat/${ticket}.${Number(resolveId) + 1}.${user}.${expires}.${macPart}`,
      `/csat/${ticket}.${resolveId}.${agent.id}.${expires}.${macPart}`,
      `/csat/${ticket}.${resolveId}.${user}.${Number(expires) + 86_400}.${macPart}`,
      `/csat/${ticket}.${resolveId}.${user}.${expires}.${macPart.slice(0, -1)}${macPart.endsWith('A') ? 'B' : 'A'}`,
      '/csat/not-a-token',
    ];
    for (const path of forged) {
      expect((await s.api('GET', path, noAuth)).status, path).toBe(404);
      expect((await post(path, { rating: 'bad' })).status, path).toBe(404);
    }
    expect(await ratingEntries(id)).toEqual([]);
  });

  it('a link is valid 30 days: after that it is 404 and records nothing', async () => {
    const id = await make('Late rating');
    const link = await linkOf(id);
    clock.set(START + 29 * DAY);
    expect((await s.api('GET', link, noAuth)).status).toBe(200);
    clock.set(START + 31 * DAY);
    expect((await s.api('GET', link, noAuth)).status).toBe(404);
    expect((await post(link, { rating: 'good' })).status).toBe(404);
    expect(await ratingEntries(id)).toEqual([]);
  });
});
