import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestServer } from './server.js';
import { uniq } from './unique.js';

// Helpers for tests that send mail through POST /mailgate and read what it became.

export const MAILGATE_TOKEN = 'mailgate-secret-for-tests-0123456789';
export const CORPUS = path.resolve(import.meta.dirname, '..', '.corpus');

/** A message of the fetched corpus (scripts/mail-corpus.sh), e.g. `rt/notes-uuencoded`. */
export function corpus(name: string): Buffer {
  const file = path.join(CORPUS, name);
  if (!fs.existsSync(file)) throw new Error(`${name}: no such corpus message (run scripts/mail-corpus.sh)`);
  return fs.readFileSync(file);
}

/** POST /mailgate with the raw bytes of a message. */
export async function postMail(
  s: TestServer,
  raw: string | Buffer,
  opts: { contentType?: string; body?: Buffer | string } = {},
) {
  const res = await fetch(`${s.url}/mailgate`, {
    method: 'POST',
    body: opts.body ?? raw,
    headers: { authorization: `Bearer ${MAILGATE_TOKEN}`, 'content-type': opts.contentType ?? 'message/rfc822' },
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
  };
}

/** GET `p` as the admin, expecting 200: the body. */
export async function get(s: Pick<TestServer, 'api'>, p: string) {
  const res = await s.api('GET', p);
  expect(res.status, `${p}: ${res.text}`).toBe(200);
  return res.body;
}

/** What a mail must not change unless it is taken: how many tickets, intake entries and users exist. */
export async function totals(s: Pick<TestServer, 'api'>) {
  return {
    tickets: (await get(s, '/tickets?limit=1')).total as number,
    intake: (await get(s, '/mail/intake?limit=1')).total as number,
    users: ((await get(s, '/users')).users as unknown[]).length,
  };
}

/**
 * The tickets whose subject is exactly `subject`, read from an in-process server (`get` as its
 * admin) or through `read` (a path's body: a server process read with a session of its own).
 */
export async function ticketsTitled(
  from: Pick<TestServer, 'api'> | ((path: string) => Promise<any>),
  subject: string,
): Promise<any[]> {
  const p = `/tickets?q=${encodeURIComponent(subject)}&limit=500`;
  const body = typeof from === 'function' ? await from(p) : await get(from, p);
  return (body.tickets as any[]).filter((t) => t.subject === subject);
}

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** What one applied message left on its ticket: the transaction's text and its files, downloaded. */
export async function keptOf(s: TestServer, result: { ticket_id: number; transaction_id: number }) {
  const txns = (await get(s, `/tickets/${result.ticket_id}/transactions`)).transactions as any[];
  const t = txns.find((x) => x.id === result.transaction_id);
  if (!t) throw new Error(`transaction ${result.transaction_id} not on ticket ${result.ticket_id}`);
  const files: { filename: string; content_type: string; content: Buffer }[] = [];
  for (const a of t.attachments) {
    const res = await fetch(`${s.url}/attachments/${a.id}`, { headers: { authorization: `Bearer ${s.adminToken}` } });
    files.push({ filename: a.filename, content_type: a.content_type, content: Buffer.from(await res.arrayBuffer()) });
  }
  return { body: (t.body ?? '') as string, files, transaction: t };
}

/** A MIME entity: header lines, a blank line, the body (CRLF line ends). */
export function entity(headers: Record<string, string>, body: string | Buffer): Buffer {
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}

/** A multipart body of the given entities. */
export function multipart(boundary: string, parts: Buffer[]): Buffer {
  return Buffer.concat([
    ...parts.flatMap((p) => [Buffer.from(`--${boundary}\r\n`), p, Buffer.from('\r\n')]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
}

let seq = 0;
/** Top-level headers of a fresh message from a customer. */
export function envelope(extra: Record<string, string> = {}): Record<string, string> {
  return {
    From: 'Carla Rossi <carla.rossi@customer.example>',
    To: 'support@helpdesk.example',
    Subject: `Test ${++seq}`,
    'Message-ID': `<lossless.${seq}.${Date.now().toString(36)}@customer.example>`,
    'MIME-Version': '1.0',
    ...extra,
  };
}

export const base64Lines = (b: Buffer) => b.toString('base64').replace(/.{76}/g, '$&\r\n');

/** `begin 644 name` … `` ` `` `end`: a file uuencoded as uuencode(1) writes it (45 bytes a line, CRLF between lines). */
export function uuencode(name: string, data: Buffer): string {
  const lines = [`begin 644 ${name}`];
  const ch = (n: number) => String.fromCharCode(n === 0 ? 96 : n + 32);
  for (let i = 0; i < data.length; i += 45) {
    const chunk = data.subarray(i, i + 45);
    let line = ch(chunk.length);
    for (let j = 0; j < chunk.length; j += 3) {
      const [a, b = 0, c = 0] = chunk.subarray(j, j + 3);
      line += ch(a >> 2) + ch(((a << 4) | (b >> 4)) & 63) + ch(((b << 2) | (c >> 6)) & 63) + ch(c & 63);
    }
    lines.push(line);
  }
  return [...lines, '`', 'end'].join('\r\n');
}

/** The fields of `rawMail`'s message; an address field takes one value or a list. */
export interface RawMail {
  from?: string;
  to?: string | string[];
  cc?: string | string[];
  subject?: string;
  inReplyTo?: string;
  /** Added last: adds headers or replaces any of the above. */
  headers?: Record<string, string>;
}
const addressList = (v: string | string[]) => [v].flat().join(', ');

/**
 * A message as a mail program writes it: From, To (support@helpdesk.example unless `to` says
 * otherwise), Cc when there is any, Subject, a fresh Message-ID, Date, `inReplyTo` as In-Reply-To
 * and References, then `headers`; a plain-text body, or with `file` a multipart/mixed one with
 * that PDF attached.
 */
export function rawMail(h: RawMail, body: string, file?: { name: string; content: Buffer }): Buffer {
  const cc = h.cc === undefined ? '' : addressList(h.cc);
  const head: Record<string, string> = {
    ...(h.from === undefined ? {} : { From: h.from }),
    To: addressList(h.to ?? 'support@helpdesk.example'),
    ...(cc ? { Cc: cc } : {}),
    ...(h.subject === undefined ? {} : { Subject: h.subject }),
    'Message-ID': `<${uniq('m.')}@customer.example>`,
    Date: new Date().toUTCString(),
    'MIME-Version': '1.0',
    ...(h.inReplyTo ? { 'In-Reply-To': h.inReplyTo, References: h.inReplyTo } : {}),
    ...h.headers,
  };
  if (!file) return entity({ ...head, 'Content-Type': 'text/plain; charset=utf-8' }, `${body}\r\n`);
  const text = entity({ 'Content-Type': 'text/plain; charset=utf-8' }, `${body}\r\n`);
  return entity(
    { ...head, 'Content-Type': 'multipart/mixed; boundary="b1"' },
    multipart('b1', [
      text,
      entity(
        {
          'Content-Type': `application/pdf; name="${file.name}"`,
          'Content-Disposition': `attachment; filename="${file.name}"`,
          'Content-Transfer-Encoding': 'base64',
        },
        base64Lines(file.content),
      ),
    ]),
  );
}
