import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, postUnfinished } from './helpers/forms.js';
import { replyForm, signedPath } from './helpers/portal.js';
import { startServer, type TestServer } from './helpers/server.js';

// The portal's brakes (docs/decisions/041), over real HTTP on both stores: how many files one
// reply takes, counted before the body is read to its end.

let s: TestServer;

beforeAll(async () => {
  s = await startServer();
  await fetch(`${s.url}/portal/not-a-link`); // the server makes its link key on first use
});
afterAll(async () => { await s?.close(); });

let seq = 0;
/** A customer with a ticket of their own and a link to it. */
async function customer() {
  const u = await s.user('requester');
  const res = await s.api('POST', '/tickets', { body: { queue_id: 1, subject: `Brakes ${++seq}`, description: 'Hello', requesters: [u.id] } });
  expect(res.status, res.text).toBe(201);
  const id = res.body.ticket.id as number;
  return { ...u, ticketId: id, link: await signedPath(s, { ticketId: id, userId: u.id }) };
}
const history = async (id: number) => (await s.api('GET', `/tickets/${id}/transactions`)).body.transactions as { id: number }[];
const files = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}.txt`, type: 'text/plain', content: Buffer.from(`file ${i}`) }));
const post = (path: string, body: FormData | string, headers: Record<string, string> = {}) =>
  fetch(s.url + path, { method: 'POST', body, redirect: 'manual', headers: { origin: s.url, ...headers } });

describe('files on a portal reply: at most 20', () => {
  const TOO_MANY = { code: 'validation_failed', message: 'Invalid attachments', details: [{ path: 'attachments', message: 'At most 20 files' }] };

  it('21 files are 422 in every shape, in words on the page, and nothing is written; 20 are taken', async () => {
    const c = await customer();
    const before = await history(c.ticketId);
    const multipart = await post(`${c.link}/reply`, replyForm('21 files', files(21)));
    expect(multipart.status).toBe(422);
    expect((await multipart.json() as any).error).toEqual(TOO_MANY);
    const json = await post(`${c.link}/reply`, JSON.stringify({ body: '21 files', attachments: files(21).map((f) => ({ filename: f.name, content_base64: f.content.toString('base64') })) }),
      { 'content-type': 'application/json' });
    expect(json.status).toBe(422);
    expect((await json.json() as any).error).toEqual(TOO_MANY);
    const page = await post(`${c.link}/reply`, replyForm('21 files', files(21)), { accept: 'text/html' });
    expect(page.status).toBe(422);
    const html = await page.text();
    expect(html).toContain('Please check your message');
    expect(html).toContain('At most 20 files');
    expect(await history(c.ticketId)).toEqual(before);
    const twenty = await post(`${c.link}/reply`, replyForm('20 files', files(20)));
    expect(twenty.status).toBe(201);
    expect((await twenty.json() as any).transaction.attachments).toHaveLength(20);
  });

  it('is refused at file 21, before the rest of the body has come', async () => {
    const c = await customer();
    const before = await history(c.ticketId);
    const { body, contentType } = multipartBody({ body: 'more to come' }, files(21));
    // The body up to the 21st file's bytes, not its end, nor the body's.
    const head = body.subarray(0, body.indexOf('file 20', body.indexOf('filename="f20.txt"')) + 'file 20'.length);
    const res = await postUnfinished(`${s.url}${c.link}/reply`, { origin: s.url, 'content-type': contentType }, head, body.length + 500_000);
    expect(res.status).toBe(422);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.text).error).toEqual(TOO_MANY);
    expect(await history(c.ticketId)).toEqual(before);
  });
});
