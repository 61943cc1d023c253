import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, postUnfinished, textFiles } from './helpers/forms.js';
import { mailTo } from './helpers/notify.js';
import { transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';

// SPEC C4: files on a staff reply or note, over real HTTP on both stores: multipart (the reply
// box) or JSON base64 (the API), stored with the transaction, downloadable byte for byte, limited
// to MAX_ATTACHMENT_BYTES in all (413, nothing written), and mailed out with a public reply
// (never with an internal note) through a real SMTP server.

let sink: SmtpSink;
let s: TestServer;
let agent: { id: number; email: string; token: string };
const MAX = 64 * 1024; // MAX_ATTACHMENT_BYTES on this server

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50', MAX_ATTACHMENT_BYTES: String(MAX) });
  agent = await s.user('agent');
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

let seq = 0;
/** A ticket with a requester of its own, owned by nobody. */
async function ticket() {
  const customer = `cust${++seq}.${Date.now().toString(36)}@customer.example`;
  const res = await s.api('POST', '/tickets', {
    body: { queue_id: 1, subject: `Files ${seq}`, description: 'Please see', requesters: [customer] },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.ticket.id as number, customer };
}

function form(fields: Record<string, string>, files: { name: string; type: string; content: Buffer }[] = []): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  for (const file of files)
    f.append('attachments', new Blob([new Uint8Array(file.content)], { type: file.type }), file.name);
  return f;
}
const post = (path: string, body: FormData | string, headers: Record<string, string> = {}) =>
  fetch(s.url + path, {
    method: 'POST',
    body,
    redirect: 'manual',
    headers: { authorization: `Bearer ${agent.token}`, ...headers },
  });
const history = (id: number) => transactionsOf(s, id);
const download = async (id: number) =>
  Buffer.from(
    await (
      await fetch(`${s.url}/attachments/${id}`, { headers: { authorization: `Bearer ${agent.token}` } })
    ).arrayBuffer(),
  );

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 254, 255]);

describe('POST /tickets/:id/comment with files', () => {
  it('multipart: one or many files are stored on the transaction and download byte for byte', async () => {
    const t = await ticket();
    const res = await post(
      `/tickets/${t.id}/comment`,
      form({ body: 'Two files', internal: 'false' }, [
        { name: 'screen.png', type: 'image/png', content: png },
        { name: 'C:\\fakepath\\log.txt', type: 'text/plain', content: Buffer.from('line 1\n') },
      ]),
    );
    expect(res.status).toBe(201);
    const { transaction } = (await res.json()) as any;
    expect(transaction).toMatchObject({ type: 'Correspond' });
    expect(transaction.attachments.map((a: any) => [a.filename, a.content_type, a.size])).toEqual([
      ['screen.png', 'image/png', png.length],
      ['log.txt', 'text/plain', 7],
    ]);
    expect(await download(transaction.attachments[0].id)).toEqual(png);
    expect((await history(t.id)).find((x) => x.id === transaction.id).attachments).toHaveLength(2);
    // A file alone is a message too; a plain form post (no JavaScript) lands back on the ticket.
    const plain = await post(
      `/tickets/${t.id}/comment`,
      form({ body: '' }, [{ name: 'a.txt', type: 'text/plain', content: Buffer.from('a') }]),
      { accept: 'text/html', origin: s.url },
    );
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toBe(`/tickets/${t.id}`);
    expect((await history(t.id)).at(-1)).toMatchObject({
      type: 'Comment',
      body: '',
      attachments: [{ filename: 'a.txt', size: 1 }],
    });
  });

  it('JSON: base64 files are stored and download byte for byte', async () => {
    const t = await ticket();
    const res = await s.api('POST', `/tickets/${t.id}/comment`, {
      token: agent.token,
      body: {
        body: 'See attached',
        internal: true,
        attachments: [
          { filename: 'data.bin', content_type: 'application/octet-stream', content_base64: png.toString('base64') },
        ],
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.transaction.attachments).toEqual([
      { id: expect.any(Number), filename: 'data.bin', content_type: 'application/octet-stream', size: png.length },
    ]);
    expect(await download(res.body.transaction.attachments[0].id)).toEqual(png);
  });

  it('bad base64 or a missing filename is 422 naming the field, and nothing is written', async () => {
    const t = await ticket();
    const before = (await history(t.id)).length;
    const bad = await s.api('POST', `/tickets/${t.id}/comment`, {
      token: agent.token,
      body: { body: 'x', attachments: [{ filename: 'a.txt', content_base64: 'not base64!' }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([
      { path: 'attachments.0.content_base64', message: expect.stringMatching(/^File content must be base64/) },
    ]);
    const unpadded = await s.api('POST', `/tickets/${t.id}/comment`, {
      token: agent.token,
      body: { body: 'x', attachments: [{ filename: 'a.txt', content_base64: 'abc' }] },
    });
    expect(unpadded.status).toBe(422);
    const nameless = await s.api('POST', `/tickets/${t.id}/comment`, {
      token: agent.token,
      body: { body: 'x', attachments: [{ content_base64: 'YQ==' }] },
    });
    expect(nameless.status).toBe(422);
    expect(nameless.body.error.details[0].path).toBe('attachments.0.filename');
    const notFiles = await post(`/tickets/${t.id}/comment`, form({ body: 'x', attachments: 'just text' }));
    expect(notFiles.status).toBe(422);
    expect(((await notFiles.json()) as any).error.details[0].path).toBe('attachments');
    const empty = await post(`/tickets/${t.id}/comment`, form({ body: '  ' }));
    expect(empty.status).toBe(422);
    expect((await history(t.id)).length).toBe(before);
  });

  it('more than MAX_ATTACHMENT_BYTES in all is 413 with a clear error, and no transaction is recorded', async () => {
    const t = await ticket();
    const before = await history(t.id);
    const half = Buffer.alloc(MAX / 2 + 1, 7);
    const res = await post(
      `/tickets/${t.id}/comment`,
      form({ body: 'Too much', internal: 'false' }, [
        { name: 'a.bin', type: 'application/octet-stream', content: half },
        { name: 'b.bin', type: 'application/octet-stream', content: half },
      ]),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error).toEqual({
      code: 'too_large',
      message: 'The attachments are 65,538 bytes in all; at most 65,536 bytes (64 KiB) may be sent with one message',
      details: [
        {
          path: 'attachments',
          message: '65,538 bytes in all; at most 65,536 bytes (64 KiB) may be sent with one message',
        },
      ],
    });
    const viaJson = await s.api('POST', `/tickets/${t.id}/comment`, {
      token: agent.token,
      body: {
        body: 'x',
        attachments: [{ filename: 'big.bin', content_base64: Buffer.alloc(MAX + 1).toString('base64') }],
      },
    });
    expect(viaJson.status).toBe(413);
    expect(viaJson.body.error.code).toBe('too_large');
    // A body far beyond what any allowed message needs is refused before it is read (413, not 500).
    const huge = await post(
      `/tickets/${t.id}/comment`,
      form({ body: 'x' }, [
        { name: 'huge.bin', type: 'application/octet-stream', content: Buffer.alloc(2 * 1024 * 1024) },
      ]),
    );
    expect(huge.status).toBe(413);
    expect(huge.headers.get('connection')).toBe('close');
    // So is a body without a declared length (chunked): counted as it streams, cut off at the bound.
    const chunk = new TextEncoder().encode(
      `{"body":"x","attachments":[{"filename":"a.bin","content_base64":"${'QUFB'.repeat(16 * 1024)}`,
    );
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(ctl) {
        if (sent++ < 40) ctl.enqueue(chunk);
        else ctl.close();
      },
    });
    const chunked = await fetch(`${s.url}/tickets/${t.id}/comment`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
    } as RequestInit).catch((e: Error) => e);
    expect(chunked instanceof Error ? chunked.message : chunked.status).toBe(413);
    // htmx: the error is an HTML fragment for the box under the reply form.
    const htmx = await post(
      `/tickets/${t.id}/comment`,
      form({ body: 'x' }, [{ name: 'c.bin', type: 'application/octet-stream', content: Buffer.alloc(MAX + 1) }]),
      { 'hx-request': 'true', origin: s.url },
    );
    expect(htmx.status).toBe(413);
    expect(await htmx.text()).toContain('at most 65,536 bytes (64 KiB) may be sent with one message');
    expect(await history(t.id)).toEqual(before);
  });
});

describe('how many files a message takes: 100, whichever shape it comes in', () => {
  const TOO_MANY = {
    code: 'validation_failed',
    message: 'Attachments: at most 100 files',
    details: [{ path: 'attachments', message: 'Attachments: at most 100 files' }],
  };

  it('multipart with 101 or 2,000 files is 422 as JSON with 101 is, and nothing is written; 100 are taken', async () => {
    const t = await ticket();
    const before = await history(t.id);
    const viaJson = await s.api('POST', `/tickets/${t.id}/comment`, {
      token: agent.token,
      body: {
        body: 'x',
        attachments: textFiles(101).map((f) => ({ filename: f.name, content_base64: f.content.toString('base64') })),
      },
    });
    expect(viaJson.status).toBe(422);
    expect(viaJson.body.error).toEqual(TOO_MANY);
    for (const n of [101, 2000]) {
      const res = await post(`/tickets/${t.id}/comment`, form({ body: `${n} files`, internal: 'true' }, textFiles(n)));
      expect(res.status, String(n)).toBe(422);
      expect(((await res.json()) as any).error).toEqual(TOO_MANY);
    }
    expect(await history(t.id)).toEqual(before);
    const hundred = await post(
      `/tickets/${t.id}/comment`,
      form({ body: '100 files', internal: 'true' }, textFiles(100)),
    );
    expect(hundred.status).toBe(201);
    expect(((await hundred.json()) as any).transaction.attachments).toHaveLength(100);
  });

  it('is refused at file 101, before the rest of the body has come (and the connection is closed after)', async () => {
    const t = await ticket();
    const before = await history(t.id);
    const { body, contentType } = multipartBody({ body: 'more to come', internal: 'true' }, textFiles(101));
    // The body up to the 101st file's bytes, not its end, nor the body's.
    const head = body.subarray(0, body.indexOf('file 100', body.indexOf('filename="f100.txt"')) + 'file 100'.length);
    const res = await postUnfinished(
      `${s.url}/tickets/${t.id}/comment`,
      { authorization: `Bearer ${agent.token}`, 'content-type': contentType },
      head,
      body.length + 500_000,
    );
    expect(res.status).toBe(422);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.text).error).toEqual(TOO_MANY);
    expect(await history(t.id)).toEqual(before);
  });
});

describe('a multipart body that ends inside a file', () => {
  it('is 400 in words, writes nothing, and the server goes on (no uncaught error from the file count)', async () => {
    const t = await ticket();
    const before = await history(t.id);
    const two = [0, 1].map((i) => ({ name: `f${i}.txt`, type: 'text/plain', content: Buffer.from(`file ${i}`) }));
    const { body, contentType } = multipartBody({ body: 'cut short', internal: 'true' }, two);
    // Complete as far as it goes: the second file's bytes start, and the body ends (no closing boundary).
    const cut = body.subarray(0, body.indexOf('file 1', body.indexOf('filename="f1.txt"')) + 2);
    const res = await post(`/tickets/${t.id}/comment`, new Blob([new Uint8Array(cut)]) as unknown as string, {
      'content-type': contentType,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toEqual({
      code: 'invalid_json',
      message: 'The request body is not valid multipart/form-data',
    });
    expect(await history(t.id)).toEqual(before);
    expect((await s.api('GET', `/tickets/${t.id}`)).status).toBe(200);
  });
});

// Decision 061: the form is taken apart as it streams in (busboy), not parsed whole afterwards;
// what it reads must be what the fetch API's formData() read.
describe('a multipart body read as it streams in', () => {
  const part = (boundary: string, head: string, content: Buffer | string) =>
    Buffer.concat([Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]);
  const multipart = (parts: (b: string) => Buffer[]) => {
    const boundary = `----hxdesk-stream-${Math.random().toString(36).slice(2)}`;
    return {
      body: Buffer.concat([...parts(boundary), Buffer.from(`--${boundary}--\r\n`)]),
      type: `multipart/form-data; boundary=${boundary}`,
    };
  };

  it('keeps every byte of files that arrive in pieces of 7 bytes, and a UTF-8 file name as written', async () => {
    const t = await ticket();
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31) % 256));
    const { body, type } = multipart((b) => [
      part(b, 'Content-Disposition: form-data; name="body"', 'Trickled in'),
      part(b, 'Content-Disposition: form-data; name="internal"', 'true'),
      part(
        b,
        'Content-Disposition: form-data; name="attachments"; filename="naïve résumé.bin"\r\nContent-Type: Application/Octet-Stream',
        bytes,
      ),
      part(b, 'Content-Disposition: form-data; name="attachments"; filename="two.txt"', 'second'),
    ]);
    const trickle = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < body.length; i += 7) controller.enqueue(new Uint8Array(body.subarray(i, i + 7)));
        controller.close();
      },
    });
    const res = await fetch(`${s.url}/tickets/${t.id}/comment`, {
      method: 'POST',
      body: trickle,
      duplex: 'half',
      headers: { authorization: `Bearer ${agent.token}`, 'content-type': type },
    } as RequestInit);
    expect(res.status).toBe(201);
    const { transaction } = (await res.json()) as any;
    expect(transaction).toMatchObject({ type: 'Comment', body: 'Trickled in' });
    expect(transaction.attachments.map((a: any) => [a.filename, a.content_type, a.size])).toEqual([
      ['naïve résumé.bin', 'application/octet-stream', bytes.length],
      ['two.txt', 'text/plain', 6],
    ]);
    expect(await download(transaction.attachments[0].id)).toEqual(bytes);
  });

  it('an empty file input is no file; bytes without a file name are text, so not a file (422), as formData() reads them', async () => {
    const t = await ticket();
    const empty = multipart((b) => [
      part(b, 'Content-Disposition: form-data; name="body"', 'No file chosen'),
      part(
        b,
        'Content-Disposition: form-data; name="attachments"; filename=""\r\nContent-Type: application/octet-stream',
        '',
      ),
    ]);
    const ok = await post(`/tickets/${t.id}/comment`, new Blob([new Uint8Array(empty.body)]) as unknown as string, {
      'content-type': empty.type,
    });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as any).transaction.attachments).toEqual([]);
    const before = await history(t.id);
    const unnamed = multipart((b) => [
      part(b, 'Content-Disposition: form-data; name="body"', 'Bytes without a name'),
      part(b, 'Content-Disposition: form-data; name="attachments"\r\nContent-Type: application/octet-stream', 'xyz'),
    ]);
    const refused = await post(
      `/tickets/${t.id}/comment`,
      new Blob([new Uint8Array(unnamed.body)]) as unknown as string,
      {
        'content-type': unnamed.type,
      },
    );
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as any).error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'attachments', message: 'Attachments must be files (send multipart/form-data)' }],
    });
    expect(await history(t.id)).toEqual(before);
  });
});

describe('files in notifications', () => {
  it('a public reply mails its files to the requester (name, type, bytes); an internal note never does', async () => {
    const t = await ticket();
    const note = await post(
      `/tickets/${t.id}/comment`,
      form({ body: 'Internal: see the log', internal: 'true' }, [
        { name: 'internal.log', type: 'text/plain', content: Buffer.from('secret') },
      ]),
    );
    expect(note.status).toBe(201);
    const reply = await post(
      `/tickets/${t.id}/comment`,
      form({ body: 'Here is the fixed driver', internal: 'false' }, [
        { name: 'driver.png', type: 'image/png', content: png },
        { name: 'readme.txt', type: 'text/plain', content: Buffer.from('Install it.\n') },
      ]),
    );
    expect(reply.status).toBe(201);
    const mail = await mailTo(sink, t.customer, (m) => (m.parsed.text ?? '').includes('Here is the fixed driver'));
    expect(mail.parsed.attachments.map((a) => [a.filename, a.contentType, a.content.toString('base64')])).toEqual([
      ['driver.png', 'image/png', png.toString('base64')],
      ['readme.txt', 'text/plain', Buffer.from('Install it.\n').toString('base64')],
    ]);
    // The note went to nobody outside the staff: no mail to the customer carries its words or file.
    const theirs = sink.messages.filter((m) => m.envelope.to.includes(t.customer));
    for (const m of theirs) {
      expect(m.parsed.text ?? '').not.toContain('Internal: see the log');
      expect(m.parsed.attachments.map((a) => a.filename)).not.toContain('internal.log');
    }
    const outbox = (await s.api('GET', `/outbox?ticket_id=${t.id}&limit=100`)).body;
    const rows = outbox.outbox as any[];
    expect(rows.length).toBeGreaterThan(0);
    const noteId = ((await note.json()) as any).transaction.id;
    for (const r of rows.filter((x) => x.transaction_id === noteId)) expect(r.audience).toBe('staff');
  });
});
