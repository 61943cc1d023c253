import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMail } from '../src/mail/reader.js';
import { sha256 } from './helpers/mail.js';
import { startServer, type TestServer } from './helpers/server.js';

// Mail nobody here wrote (scripts/mail-corpus.sh fetches it from Debian's packages: the test
// messages of Request Tracker, CPython, enmime, notmuch, Perl's MIME-tools, GMime and GNU
// Mailutils) goes through POST /mailgate of a real server. Each ticket is compared with what CPython's email package reads in the same
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

interface Ref {
  file: string;
  from: string | null;
  tokens: string[];
  files: { sha256: string; size: number }[];
  emls: number;
  messages: number;
  htmls: number;
}
interface Kept {
  body: string;
  attachments: { filename: string; content_type: string; sha256: string }[];
}
interface Outcome {
  file: string;
  project: string;
  status: number;
  body: any;
  added?: { status: number; body: any };
  kept?: Kept;
}

/**
 * The messages CPython and hxdesk read differently: structures two careful readers resolve
 * differently. Where hxdesk reads more parts as parts, it keeps more as files (`extraFiles`) and
 * CPython reads some part headers, a preamble, or the unchosen HTML alternative as text (`words`
 * it has that the ticket's text does not). A file CPython has that hxdesk does not (`lost`) is
 * only ever one whose bytes both keep, read differently.
 */
/** `emls` and `htmls`: how many hxdesk keeps, how many CPython reads (emls [0, 0] unless given). */
interface Difference {
  words: number;
  lost?: number;
  extraFiles: number;
  emls?: [number, number];
  htmls: [number, number];
}
const AMBIGUOUS: Record<string, Difference> = {
  // `name="7DDA4_foo_9E5D72.zip"` under a Content-Type ending in `;`, without its indent: a header
  // to enmime and hxdesk (the file is the 7 bytes of its base64), the start of the body to
  // CPython (its "file" is the 63 bytes it decodes from the header lines below).
  'enmime/low-quality__bad-header-wrap.raw': { words: 0, lost: 1, extraFiles: 1, htmls: [0, 0] },
  // A nested multipart that reuses its parent's boundary (an Outlook Express message): hxdesk
  // reads every part as a part. "text": the unchosen HTML alternative's one other word.
  'python/msg_15.txt': { words: 1, extraFiles: 1, htmls: [0, 1] },
  'python/msg_39.txt': { words: 0, extraFiles: 4, htmls: [0, 0] },
  // `boundary="simple\r\n boundary"`: RFC 5322 unfolds it to "simple boundary" (RFC 2046's own
  // example); CPython keeps the line break in it, so no delimiter matches and it reads the whole
  // body, preamble and part headers included, as text. hxdesk reads the parts.
  'mime-tools/multi-simple.msg': { words: 22, extraFiles: 0, htmls: [0, 0] },
  'mime-tools/multi-clen.msg': { words: 28, extraFiles: 2, htmls: [0, 0] }, // its text/x-numbers and text/x-alphabet parts: files
  'mime-tools/multi-digest.msg': { words: 43, extraFiles: 0, emls: [2, 0], htmls: [0, 0] }, // a digest's parts are messages
  // Two boundary parameters (a test of ambiguity): CPython takes the first, mailsplit the last.
  // The part CPython reads as a file is text inside the part hxdesk reads, base64 and all.
  'mime-tools/double-boundary.msg': { words: 0, lost: 1, extraFiles: 0, htmls: [0, 0] },
  // An inner multipart closed by a mangled line (`XXXXXX--unique-boundary-2--`): its last GIF
  // runs on to the outer delimiter in both readers, whose lenient base64 decoders disagree on the
  // trailing junk (405 bytes against 401).
  'mime-tools/multi-frag.msg': { words: 0, lost: 1, extraFiles: 1, emls: [1, 1], htmls: [0, 0] },
};

const project = (file: string) => path.relative(CORPUS, file).split(path.sep)[0];

let s: TestServer;
const refs = new Map<string, Ref>();
const intake = new Map<number, { sender: string | null }>();
const outcomes: Outcome[] = [];

async function post(raw: Buffer) {
  const res = await fetch(`${s.url}/mailgate`, {
    method: 'POST',
    body: raw,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
  });
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
    attachments.push({
      filename: a.filename,
      content_type: a.content_type,
      sha256: sha256(Buffer.from(await res.arrayBuffer())),
    });
  }
  return { body: t.body ?? '', attachments };
}

/** What is kept of a message that makes no ticket (a delivery report, a duplicate): what the reader keeps. */
async function keptByReader(raw: Buffer): Promise<Kept> {
  const { mail } = await readMail(raw, 15_000);
  return {
    body: mail.text,
    attachments: mail.attachments.map((a) => ({
      filename: a.filename,
      content_type: a.content_type,
      sha256: sha256(a.content),
    })),
  };
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(CORPUS, '.complete-v2')))
    throw new Error('No mail corpus: run scripts/mail-corpus.sh (npm test does)');
  const files = fs
    .readdirSync(CORPUS, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && !d.name.startsWith('.'))
    .map((d) => path.join(d.parentPath, d.name))
    .sort();
  const lines = execFileSync('python3', [path.join(ROOT, 'tests/helpers/mail_reference.py')], {
    input: files.join('\n'),
    maxBuffer: 1 << 28,
  }).toString();
  for (const line of lines.trim().split('\n')) {
    const r = JSON.parse(line) as Ref;
    refs.set(r.file, r);
  }

  s = await startServer({ MAILGATE_TOKEN: TOKEN, MAIL_SENDER_MAX_PER_HOUR: '1000000' });
  for (const file of files) {
    const raw = fs.readFileSync(file);
    const o: Outcome = { file: path.relative(CORPUS, file), project: project(file), ...(await post(raw)) };
    // A message without a sender is refused; with a From line added, the rest of it must be kept.
    if (o.status === 422) o.added = await post(withSender(raw));
    const applied = o.added ?? o;
    if (applied.body.transaction_id && !applied.body.duplicate) o.kept = await keptIn(applied.body);
    // A delivery report, or a message whose Message-ID came before (test mailboxes reuse ids
    // for different messages): what the reader keeps of it.
    else if (applied.body.verdict === 'ignored_auto' || applied.body.duplicate)
      o.kept = await keptByReader(o.added ? withSender(raw) : raw);
    outcomes.push(o);
  }
  for (let offset = 0; ; offset += 500) {
    const page = (await s.api('GET', `/mail/intake?limit=500&offset=${offset}`)).body.intake as {
      id: number;
      sender: string | null;
    }[];
    for (const row of page) intake.set(row.id, row);
    if (page.length < 500) break;
  }
}, 600_000);
afterAll(async () => {
  await s?.close();
});

describe('a corpus of real mail from seven mail projects, through POST /mailgate', () => {
  it('holds messages from each of RT, CPython, enmime, notmuch, MIME-tools, GMime and Mailutils, and none is answered 5xx', () => {
    expect([...new Set(outcomes.map((o) => o.project))].sort()).toEqual([
      'enmime',
      'gmime',
      'mailutils',
      'mime-tools',
      'notmuch',
      'python',
      'rt',
    ]);
    expect(outcomes.length).toBeGreaterThanOrEqual(150);
    expect(
      outcomes.filter((o) => o.status >= 500 || (o.added?.status ?? 0) >= 500).map((o) => [o.file, o.status, o.body]),
    ).toEqual([]);
  });

  it('keeps every message: a ticket or a reply, a duplicate of an earlier one, a logged delivery report, or 422 only without a sender', () => {
    const verdicts = (o: Outcome) => `${o.status} ${o.body.verdict ?? o.body.error?.code}`;
    const unexpected = outcomes.filter(
      (o) =>
        !['201 created', '200 appended', '200 ignored_auto', '422 validation_failed'].includes(verdicts(o)) &&
        !(o.status === 200 && o.body.duplicate === true),
    );
    expect(unexpected.map((o) => [o.file, verdicts(o)])).toEqual([]);
    // Refused only for having no sender, as CPython sees it too; with a sender the same bytes are kept.
    const refused = outcomes.filter((o) => o.status === 422);
    expect(refused.filter((o) => refs.get(path.join(CORPUS, o.file))!.from !== null).map((o) => o.file)).toEqual([]);
    expect(
      refused.filter((o) => !/^The message has no valid From address/.test(o.body.error.message)).map((o) => o.file),
    ).toEqual([]);
    expect(
      refused
        .filter((o) => !(o.added!.status === 201 || o.added!.status === 200))
        .map((o) => [o.file, o.added!.status, o.added!.body]),
    ).toEqual([]);
  });

  it('finds the sender CPython finds', () => {
    const differ = outcomes
      .filter((o) => o.status !== 422 && !o.body.duplicate)
      .map((o) => ({
        file: o.file,
        ours: intake.get(o.body.intake_id)?.sender,
        cpython: refs.get(path.join(CORPUS, o.file))!.from,
      }))
      .filter((x) => x.ours !== x.cpython);
    expect(differ).toEqual([]);
  });

  it('keeps every word of the text CPython reads (text/plain, or the HTML where a message has only HTML)', () => {
    const missing = outcomes
      .filter((o) => o.kept)
      .map((o) => {
        const ref = refs.get(path.join(CORPUS, o.file))!;
        const text = o.kept!.body.toLowerCase();
        return { file: o.file, missing: ref.tokens.filter((t) => !text.includes(t)) };
      })
      .filter((m) => m.missing.length > 0);
    expect(Object.fromEntries(missing.map((m) => [m.file, m.missing.length]))).toEqual(
      Object.fromEntries(
        Object.entries(AMBIGUOUS)
          .filter(([, d]) => d.words)
          .map(([f, d]) => [f, d.words]),
      ),
    );
    expect(outcomes.filter((o) => o.kept).length).toBeGreaterThanOrEqual(300);
  });

  it('keeps every file byte for byte, every forwarded message as .eml, every HTML body as a file — and nothing else', () => {
    const wrong = outcomes
      .filter((o) => o.kept)
      .map((o) => {
        const ref = refs.get(path.join(CORPUS, o.file))!;
        const kept = o.kept!.attachments;
        const emls = kept.filter((a) => a.content_type === 'message/rfc822');
        const messages = kept.filter((a) => a.content_type.startsWith('message/') && !emls.includes(a));
        const htmls = kept.filter(
          (a) => /^message(-\d+)?\.html$/.test(a.filename) && a.content_type.startsWith('text/html'),
        );
        const files = kept.filter((a) => !emls.includes(a) && !messages.includes(a) && !htmls.includes(a));
        const left = files.map((a) => a.sha256);
        const lost = ref.files.filter((f) => {
          const i = left.indexOf(f.sha256);
          if (i < 0) return true;
          left.splice(i, 1);
          return false;
        });
        return {
          file: o.file,
          lost: lost.length,
          extra: left.length,
          emls: [emls.length, ref.emls],
          messages: [messages.length, ref.messages],
          htmls: [htmls.length, ref.htmls],
        };
      })
      .filter(
        (r) =>
          r.lost || r.extra || r.emls[0] !== r.emls[1] || r.messages[0] !== r.messages[1] || r.htmls[0] !== r.htmls[1],
      );
    expect(Object.fromEntries(wrong.map(({ file, ...rest }) => [file, rest]))).toEqual(
      Object.fromEntries(
        Object.entries(AMBIGUOUS)
          .filter(([, d]) => d.lost || d.extraFiles || d.emls || d.htmls[0] !== d.htmls[1])
          .map(([f, d]) => [
            f,
            { lost: d.lost ?? 0, extra: d.extraFiles, emls: d.emls ?? [0, 0], messages: [0, 0], htmls: d.htmls },
          ]),
      ),
    );
    const files = outcomes.reduce((n, o) => n + (o.kept?.attachments.length ?? 0), 0);
    expect(files).toBeGreaterThanOrEqual(100);
  });
});
