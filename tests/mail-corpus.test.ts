import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMail } from '../src/mail/reader.js';
import { sha256 } from './helpers/mail.js';
import { startServer, type TestServer } from './helpers/server.js';

// Mail nobody here wrote (scripts/mail-corpus.sh fetches it from Debian's packages: Request
// Tracker's, CPython's, enmime's and notmuch's test messages) goes through POST /mailgate of a
// real server. Each ticket is compared with what CPython's email package reads in the same
// file (tests/helpers/mail_reference.py): every word of its text, every file byte for byte,
// every forwarded message, the sender.

const ROOT = path.resolve(import.meta.dirname, '..');
const CORPUS = path.join(ROOT, 'tests', '.corpus');
const TOKEN = 'corpus-mailgate-token-0123456789';
const ADDED_FROM = 'From: Corpus Sender <corpus-sender@example.org>\r\n';
/** The message with a From line added (after an mbox `From ` line, if it starts with one). */
function withSender(raw: Buffer): Buffer {
  const at = raw.subarray(0, 5).toString() === 'From ' ? raw.indexOf('\n') + 1 : 0;
  return Buffer.concat([raw.subarray(0, at), Buffer.from(ADDED_FROM), raw.subarray(at)]);
}

interface Ref { file: string; from: string | null; tokens: string[]; files: { sha256: string; size: number }[]; emls: number; messages: number; htmls: number }
interface Kept { body: string; attachments: { filename: string; content_type: string; sha256: string }[] }
interface Outcome { file: string; project: string; status: number; body: any; added?: { status: number; body: any }; kept?: Kept }

/**
 * The messages CPython and hxdesk read differently, each one a nested multipart that reuses its
 * parent's boundary (CPython's own test of that, and an Outlook Express message): a structure
 * two careful readers resolve differently. hxdesk reads every part as a part — so it keeps more
 * as files (`extraFiles`, never fewer: nothing CPython keeps is lost) and CPython reads some part
 * headers, or the unchosen HTML alternative, as text (`words` it has that the ticket's text does not).
 */
const AMBIGUOUS: Record<string, { words: number; extraFiles: number; htmls: [number, number] }> = {
  'python/msg_15.txt': { words: 1, extraFiles: 1, htmls: [0, 1] }, // "text": the unchosen HTML alternative's one other word
  'python/msg_38.txt': { words: 22, extraFiles: 5, htmls: [0, 0] }, // part headers CPython reads as text ("Content-Type: application/octet-stream" …)
  'python/msg_39.txt': { words: 0, extraFiles: 4, htmls: [0, 0] },
};

const project = (file: string) => path.relative(CORPUS, file).split(path.sep)[0];

let s: TestServer;
const refs = new Map<string, Ref>();
const intake = new Map<number, { sender: string | null }>();
const outcomes: Outcome[] = [];

async function post(raw: Buffer) {
  const res = await fetch(`${s.url}/mailgate`, { method: 'POST', body: raw, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' } });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

/** What the ticket holds for a transaction: its text and its files, downloaded. */
async function keptIn(result: any): Promise<Kept> {
  const txns = (await s.api('GET', `/tickets/${result.ticket_id}/transactions`)).body.transactions as any[];
  const t = txns.find((x) => x.id === result.transaction_id);
  const attachments = [];
  for (const a of t.attachments) {
    const res = await fetch(`${s.url}/attachments/${a.id}`, { headers: { authorization: `Bearer ${s.adminToken}` } });
    attachments.push({ filename: a.filename, content_type: a.content_type, sha256: sha256(Buffer.from(await res.arrayBuffer())) });
  }
  return { body: t.body ?? '', attachments };
}

/** What is kept of a message that makes no ticket (a delivery report): what the reader keeps. */
async function keptByReader(raw: Buffer): Promise<Kept> {
  const { mail } = await readMail(raw);
  return { body: mail.text, attachments: mail.attachments.map((a) => ({ filename: a.filename, content_type: a.content_type, sha256: sha256(a.content) })) };
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(CORPUS, '.complete-v1'))) throw new Error('No mail corpus: run scripts/mail-corpus.sh (npm test does)');
  const files = fs.readdirSync(CORPUS, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && !d.name.startsWith('.'))
    .map((d) => path.join(d.parentPath, d.name)).sort();
  const lines = execFileSync('python3', [path.join(ROOT, 'tests/helpers/mail_reference.py')], { input: files.join('\n'), maxBuffer: 1 << 28 }).toString();
  for (const line of lines.trim().split('\n')) { const r = JSON.parse(line) as Ref; refs.set(r.file, r); }

  s = await startServer({ MAILGATE_TOKEN: TOKEN, MAIL_SENDER_MAX_PER_HOUR: '1000000' });
  for (const file of files) {
    const raw = fs.readFileSync(file);
    const o: Outcome = { file: path.relative(CORPUS, file), project: project(file), ...(await post(raw)) };
    // A message without a sender is refused; with a From line added, the rest of it must be kept.
    if (o.status === 422) o.added = await post(withSender(raw));
    const applied = o.added ?? o;
    if (applied.body.transaction_id && !applied.body.duplicate) o.kept = await keptIn(applied.body);
    else if (applied.body.verdict === 'ignored_auto') o.kept = await keptByReader(o.added ? withSender(raw) : raw);
    outcomes.push(o);
  }
  for (let offset = 0; ; offset += 500) {
    const page = (await s.api('GET', `/mail/intake?limit=500&offset=${offset}`)).body.intake as { id: number; sender: string | null }[];
    for (const row of page) intake.set(row.id, row);
    if (page.length < 500) break;
  }
}, 600_000);
afterAll(async () => { await s?.close(); });

describe('a corpus of real mail from four mail projects, through POST /mailgate', () => {
  it('holds at least 150 messages from each of RT, CPython, enmime and notmuch, and none is answered 5xx', () => {
    expect([...new Set(outcomes.map((o) => o.project))].sort()).toEqual(['enmime', 'notmuch', 'python', 'rt']);
    expect(outcomes.length).toBeGreaterThanOrEqual(150);
    expect(outcomes.filter((o) => o.status >= 500 || (o.added?.status ?? 0) >= 500).map((o) => [o.file, o.status, o.body])).toEqual([]);
  });

  it('keeps every message: a ticket or a reply, a duplicate of an earlier one, a logged delivery report, or 422 only without a sender', () => {
    const verdicts = (o: Outcome) => `${o.status} ${o.body.verdict ?? o.body.error?.code}`;
    const unexpected = outcomes.filter((o) => !['201 created', '200 appended', '200 ignored_auto', '422 validation_failed'].includes(verdicts(o))
      && !(o.status === 200 && o.body.duplicate === true));
    expect(unexpected.map((o) => [o.file, verdicts(o)])).toEqual([]);
    // Refused only for having no sender, as CPython sees it too; with a sender the same bytes are kept.
    const refused = outcomes.filter((o) => o.status === 422);
    expect(refused.filter((o) => refs.get(path.join(CORPUS, o.file))!.from !== null).map((o) => o.file)).toEqual([]);
    expect(refused.filter((o) => !/^The message has no valid From address/.test(o.body.error.message)).map((o) => o.file)).toEqual([]);
    expect(refused.filter((o) => !(o.added!.status === 201 || o.added!.status === 200)).map((o) => [o.file, o.added!.status, o.added!.body])).toEqual([]);
  });

  it('finds the sender CPython finds', () => {
    const differ = outcomes.filter((o) => o.status !== 422 && !o.body.duplicate)
      .map((o) => ({ file: o.file, ours: intake.get(o.body.intake_id)?.sender, cpython: refs.get(path.join(CORPUS, o.file))!.from }))
      .filter((x) => x.ours !== x.cpython);
    expect(differ).toEqual([]);
  });

  it('keeps every word of the text CPython reads (text/plain, or the HTML where a message has only HTML)', () => {
    const missing = outcomes.filter((o) => o.kept).map((o) => {
      const ref = refs.get(path.join(CORPUS, o.file))!;
      const text = o.kept!.body.toLowerCase();
      return { file: o.file, missing: ref.tokens.filter((t) => !text.includes(t)) };
    }).filter((m) => m.missing.length > 0);
    expect(Object.fromEntries(missing.map((m) => [m.file, m.missing.length]))).toEqual(
      Object.fromEntries(Object.entries(AMBIGUOUS).filter(([, d]) => d.words).map(([f, d]) => [f, d.words])));
    expect(outcomes.filter((o) => o.kept).length).toBeGreaterThanOrEqual(300);
  });

  it('keeps every file byte for byte, every forwarded message as .eml, every HTML body as a file — and nothing else', () => {
    const wrong = outcomes.filter((o) => o.kept).map((o) => {
      const ref = refs.get(path.join(CORPUS, o.file))!;
      const kept = o.kept!.attachments;
      const emls = kept.filter((a) => a.content_type === 'message/rfc822');
      const messages = kept.filter((a) => a.content_type.startsWith('message/') && !emls.includes(a));
      const htmls = kept.filter((a) => /^message(-\d+)?\.html$/.test(a.filename) && a.content_type.startsWith('text/html'));
      const files = kept.filter((a) => !emls.includes(a) && !messages.includes(a) && !htmls.includes(a));
      const left = files.map((a) => a.sha256);
      const lost = ref.files.filter((f) => { const i = left.indexOf(f.sha256); if (i < 0) return true; left.splice(i, 1); return false; });
      return { file: o.file, lost: lost.length, extra: left.length, emls: [emls.length, ref.emls], messages: [messages.length, ref.messages], htmls: [htmls.length, ref.htmls] };
    }).filter((r) => r.lost || r.extra || r.emls[0] !== r.emls[1] || r.messages[0] !== r.messages[1] || r.htmls[0] !== r.htmls[1]);
    expect(wrong.map(({ file, ...rest }) => [file, rest])).toEqual(
      Object.entries(AMBIGUOUS).map(([f, d]) => [f, { lost: 0, extra: d.extraFiles, emls: [0, 0], messages: [0, 0], htmls: d.htmls }]));
    const files = outcomes.reduce((n, o) => n + (o.kept?.attachments.length ?? 0), 0);
    expect(files).toBeGreaterThanOrEqual(100);
  });
});
