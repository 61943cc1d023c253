import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C4 "every long list has a pager": the outbox and the mail intake log, as HTML, say which
// part of the whole a page shows and link the previous and next pages with their filters kept
// (the outbox said "73 notifications" and showed 50, with no way to the rest).

const TOKEN = 'mailgate-secret-for-pager-tests-0123456789';
let s: TestServer;

const html = async (path: string) => {
  const res = await s.api('GET', path, { headers: { accept: 'text/html' } });
  expect(res.status, res.text).toBe(200);
  return res.text;
};
/** The pager's text and its links, in order. */
const pager = (page: string) => {
  const nav = /<nav class="pager" aria-label="Pages">(.*?)<\/nav>/s.exec(page)?.[1];
  expect(nav, 'a pager').toBeDefined();
  return {
    text: /<span>(.*?)<\/span>/.exec(nav!)![1],
    links: [...nav!.matchAll(/<a href="([^"]+)" rel="(prev|next)">/g)].map(
      (m) => `${m[2]} ${m[1].replace(/&amp;/g, '&')}`,
    ),
  };
};

beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN: TOKEN });
  const rq = await s.user('requester', 'pager-customer@example.com');
  // Each ticket with a requester queues an acknowledgement (no SMTP here: they stay queued).
  for (let i = 0; i < 5; i++) {
    expect(
      (await s.api('POST', '/tickets', { body: { queue_id: 1, subject: `Pager ticket ${i}`, requester_id: rq.id } }))
        .status,
    ).toBe(201);
  }
  for (let i = 0; i < 5; i++) {
    const raw = [
      `From: Sender ${i} <sender${i}@example.org>`,
      'To: support@example.com',
      `Subject: Pager mail ${i}`,
      `Message-ID: <pager-${i}@example.org>`,
      'Date: Mon, 23 Nov 2026 10:00:00 +0000',
      '',
      `Body ${i}`,
      '',
    ].join('\r\n');
    const res = await s.api('POST', '/mailgate', {
      token: null,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
      body: raw,
    });
    expect(res.status, res.text).toBe(201);
  }
});
afterAll(async () => {
  await s?.close();
});

describe('admin list pagers', () => {
  it('the outbox: where the page is in the whole, and the next and previous pages with the filter kept', async () => {
    const total = (await s.api('GET', '/outbox?status=queued')).body.total as number;
    expect(total).toBeGreaterThanOrEqual(5);
    expect(pager(await html('/outbox?status=queued&limit=2'))).toEqual({
      text: `1–2 of ${total}`,
      links: ['next /outbox?status=queued&limit=2&offset=2'],
    });
    expect(pager(await html('/outbox?status=queued&limit=2&offset=2'))).toEqual({
      text: `3–4 of ${total}`,
      links: ['prev /outbox?status=queued&limit=2', 'next /outbox?status=queued&limit=2&offset=4'],
    });
    const last = Math.floor((total - 1) / 2) * 2;
    expect(pager(await html(`/outbox?status=queued&limit=2&offset=${last}`))).toEqual({
      text: `${last + 1}–${total} of ${total}`,
      links: [`prev /outbox?status=queued&limit=2&offset=${last - 2}`.replace(/&offset=0$/, '')],
    });
    // Following the links visits every row once.
    const ids: number[] = [];
    for (let offset = 0; offset < total; offset += 2) {
      ids.push(
        ...(await s.api('GET', `/outbox?status=queued&limit=2&offset=${offset}`)).body.outbox.map(
          (o: { id: number }) => o.id,
        ),
      );
    }
    expect(new Set(ids).size).toBe(total);
  });

  it('one page of everything has no links; past the end says so and links back', async () => {
    const total = (await s.api('GET', '/outbox')).body.total as number;
    expect(pager(await html('/outbox'))).toEqual({ text: `1–${total} of ${total}`, links: [] });
    expect(pager(await html('/outbox?offset=500'))).toEqual({
      text: `0 of ${total}`,
      links: [`prev /outbox?offset=${Math.max(0, total - 50) || ''}`.replace(/\?offset=$/, '')],
    });
  });

  it('the mail intake log pages the same way, its verdict filter kept', async () => {
    expect(pager(await html('/mail/intake?verdict=created&limit=3'))).toEqual({
      text: '1–3 of 5',
      links: ['next /mail/intake?verdict=created&limit=3&offset=3'],
    });
    expect(pager(await html('/mail/intake?verdict=created&limit=3&offset=3'))).toEqual({
      text: '4–5 of 5',
      links: ['prev /mail/intake?verdict=created&limit=3'],
    });
  });
});
