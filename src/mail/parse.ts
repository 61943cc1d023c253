import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import libmime from 'libmime';
import addressparser from 'nodemailer/lib/addressparser';
import type { InboundMessage } from '../domain/inboundMessage.js';
import { MalformedMail } from './malformed.js';
import { cleanName, MimeError, splitMime, type MimePart } from './mime.js';
import { decodeText, htmlAsText, htmlMetaCharset, unflow } from './text.js';
import { extractUuencoded } from './uuencode.js';

/**
 * A parsed message: what the domain applies, plus the headers the classifier reads. Plain data
 * (it crosses from the parsing worker thread to the main thread by structured clone).
 */
export type InboundMail = Omit<InboundMessage, 'raw' | 'kind' | 'kindReason'> & {
  /** Every header of the top-level part: lower-cased name → its values in order, unfolded. */
  headers: Record<string, string[]>;
  /** The top-level Content-Type (`multipart/report`, …) and its report-type parameter. */
  contentType: string;
  reportType: string;
};

/** Longest body text kept on the transaction; the whole text is attached beyond it. */
export const BODY_MAX_CHARS = 1_000_000;

// ---- headers ---------------------------------------------------------------------------

function headerValues(part: MimePart, fallbackCharset?: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { key, line } of part.node.headers ? part.node.headers.getList() : []) {
    const bytes = Buffer.from(line, 'binary');
    const text = isUtf8(bytes) ? bytes.toString('utf8') : decodeText(bytes, fallbackCharset);
    const value = text
      .replace(/\r?\n[ \t]*/g, ' ')
      .replace(/^[^:]*:/, '')
      .trim();
    (out[key] ??= []).push(value);
  }
  return out;
}

const decodeWords = (s: string) => {
  try {
    return libmime.decodeWords(s);
  } catch {
    return s;
  }
};
const ADDRESS = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+$/;

/** Mailboxes of address headers (groups flattened, RFC 5322 comments dropped), names decoded. */
function mailboxes(values: string[] | undefined): { address: string; name: string }[] {
  return (values ?? [])
    .flatMap((v) => {
      try {
        return addressparser(v, { flatten: true });
      } catch {
        return [];
      }
    })
    .map((a) => ({
      address: (a.address ?? '').trim().toLowerCase(),
      name: decodeWords(a.name ?? '')
        .replace(/\s+/g, ' ')
        .trim(),
    }))
    .filter((a) => ADDRESS.test(a.address));
}

/** Message-IDs in a header, also when run together without spaces (`<a@x><b@y>`). */
const messageIds = (values: string[] | undefined) => (values ?? []).flatMap((v) => v.match(/<[^<>\s]+>/g) ?? []);

function messageIdOf(values: string[] | undefined): string | null {
  const v = (values?.[0] ?? '').trim();
  const bracketed = /<[^<>\s]+>/.exec(v)?.[0];
  if (bracketed) return bracketed;
  return /^[^\s<>]+@[^\s<>]+$/.test(v) ? `<${v}>` : null;
}

// ---- body and files --------------------------------------------------------------------

type Kind = 'plain' | 'html' | 'file';

function kindOf(p: MimePart): Kind {
  if (p.disposition === 'attachment' || p.filename) return 'file';
  if (p.type === 'text/plain' || p.type === 'text' || p.type === 'message/delivery-status') return 'plain';
  if (p.type === 'text/html') return 'html';
  return 'file'; // images, documents, other text/* (calendar, vcard …), message/rfc822
}

const leaves = (p: MimePart): MimePart[] => (p.node.multipart ? p.children.flatMap(leaves) : [p]);
const hasText = (p: MimePart, kind: Kind) => leaves(p).some((l) => kindOf(l) === kind && l.body.some((b) => b > 32));

/** Of the alternatives, the last that holds plain text; else the last with HTML; else none. */
function chosenAlternative(children: MimePart[]): MimePart | undefined {
  const last = [...children].reverse();
  return last.find((c) => hasText(c, 'plain')) ?? last.find((c) => hasText(c, 'html'));
}

interface Collected {
  texts: string[];
  files: InboundMail['attachments'];
  names: Map<string, number>;
}

const EXTENSION_PREFIX: Record<string, string> = {
  image: 'image',
  audio: 'audio',
  video: 'video',
  text: 'text',
  message: 'message',
};

/** `image-1.png`, `image-2.png` …; with `plainFirst`, `message.html`, `message-2.html` … */
function uniqueName(out: Collected, base: string, ext: string, plainFirst = false): string {
  const n = (out.names.get(`${base}.${ext}`) ?? 0) + 1;
  out.names.set(`${base}.${ext}`, n);
  return plainFirst && n === 1 ? `${base}.${ext}` : `${base}-${n}.${ext}`;
}

function fileOf(p: MimePart, out: Collected): InboundMail['attachments'][number] {
  let filename = p.filename;
  let type = p.type;
  if (p.type === 'message/rfc822') {
    const embedded = /^subject:[ \t]*(.*(?:\r?\n[ \t].*)*)/im.exec(p.body.subarray(0, 65536).toString('utf8'))?.[1];
    const subject = cleanName(
      decodeWords((embedded ?? '').replace(/\r?\n[ \t]*/g, ' '))
        .replace(/[<>:"|?*]/g, '')
        .trim(),
    ).slice(0, 100);
    if (!filename) filename = subject ? `${subject}.eml` : uniqueName(out, 'message', 'eml');
    else if (!/\.eml$/i.test(filename)) filename = `${filename}.eml`;
  } else if (!filename) {
    filename = uniqueName(
      out,
      EXTENSION_PREFIX[p.type.split('/')[0]] ?? 'attachment',
      libmime.detectExtension(p.type) || 'bin',
    );
  } else if (p.type === 'application/octet-stream') {
    type = libmime.detectMimeType(filename) || type;
  }
  return { filename, content_type: type, content: p.body };
}

function plainText(p: MimePart): string {
  const text = decodeText(p.body, p.params.charset).replace(/\r\n?/g, '\n');
  return p.params.format?.toLowerCase() === 'flowed' ? unflow(text, p.params.delsp?.toLowerCase() === 'yes') : text;
}

function addText(out: Collected, text: string) {
  const { text: rest, files } = extractUuencoded(text);
  for (const f of files)
    out.files.push({
      filename: cleanName(f.filename) || uniqueName(out, 'attachment', 'bin'),
      content_type: libmime.detectMimeType(f.filename) || 'application/octet-stream',
      content: f.content,
    });
  if (rest.trim()) out.texts.push(rest.trim());
}

/**
 * Walks the MIME tree: text parts of the chosen body become the text (HTML converted, and
 * kept as a file too, since its layout and links are part of what the sender wrote); every
 * other part is a file. `wantText` is false inside alternatives that were not chosen: their
 * text repeats the chosen one, but their files (an Outlook screenshot lives only in the HTML
 * alternative's multipart/related) are kept.
 */
function collect(p: MimePart, out: Collected, wantText: boolean): void {
  if (p.node.multipart) {
    if (p.children.length === 0) {
      // A multipart whose separators never match: everything is outside the parts. Keep it as text.
      if (wantText && p.outside.length) addText(out, decodeText(p.outside, p.params.charset));
      return;
    }
    const chosen = p.node.multipart === 'alternative' ? chosenAlternative(p.children) : undefined;
    for (const c of p.children) collect(c, out, wantText && (p.node.multipart !== 'alternative' || c === chosen));
    return;
  }
  const kind = kindOf(p);
  if (kind === 'file') {
    out.files.push(fileOf(p, out));
    return;
  }
  if (!wantText) return;
  if (kind === 'plain') {
    addText(out, plainText(p));
    return;
  }
  const html = decodeText(p.body, p.params.charset ?? htmlMetaCharset(p.body));
  if (!html.trim()) return;
  const text = htmlAsText(html);
  if (text) out.texts.push(text);
  out.files.push({
    filename: uniqueName(out, 'message', 'html', true),
    content_type: 'text/html; charset=utf-8',
    content: Buffer.from(html, 'utf8'),
  });
}

// ---- the message -----------------------------------------------------------------------

/** Reads a raw message completely: nothing a sender wrote is left out (SPEC C1). */
export async function parseMail(raw: Buffer): Promise<InboundMail> {
  let root: MimePart;
  try {
    root = await splitMime(raw);
  } catch (e) {
    throw new MalformedMail(`The message could not be parsed: ${e instanceof MimeError ? e.message : String(e)}`);
  }
  const out: Collected = { texts: [], files: [], names: new Map() };
  collect(root, out, true);
  let text = out.texts.join('\n\n');
  if (text.length > BODY_MAX_CHARS) {
    out.files.push({
      filename: 'message.txt',
      content_type: 'text/plain; charset=utf-8',
      content: Buffer.from(text, 'utf8'),
    });
    text = `${text.slice(0, BODY_MAX_CHARS)}\n\n[… ${text.length - BODY_MAX_CHARS} more characters: the whole text is attached as message.txt]`;
  }
  return { ...envelope(raw, root), text, attachments: out.files };
}

/**
 * Only the top-level headers (sender, recipients, ids, subject): for a message whose body could
 * not be read in time. The body is then the raw message itself, attached whole.
 */
export async function parseHeadersOnly(raw: Buffer, reason: string): Promise<InboundMail> {
  const end = raw.indexOf('\n\n') >= 0 ? raw.indexOf('\n\n') : raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, Math.min(end >= 0 ? end + 2 : raw.length, 1024 * 1024));
  let root: MimePart;
  try {
    root = await splitMime(Buffer.concat([head, Buffer.from('\r\n\r\n')]));
  } catch (e) {
    throw new MalformedMail(`The message could not be parsed: ${(e as Error).message}`);
  }
  return {
    ...envelope(raw, root),
    text: `hxdesk could not read this message's text: ${reason}. The original message is attached as message.eml.`,
    attachments: [{ filename: 'message.eml', content_type: 'message/rfc822', content: raw }],
  };
}

function envelope(raw: Buffer, root: MimePart): Omit<InboundMail, 'text' | 'attachments'> {
  const headers = headerValues(root, root.params.charset);
  const from = mailboxes(headers.from)[0] ?? mailboxes(headers.sender)[0];
  if (!from) throw new MalformedMail('The message has no valid From address');
  const messageId = messageIdOf(headers['message-id']);
  const recipients = [
    ...(headers.to ?? []),
    ...(headers.cc ?? []),
    ...(headers['delivered-to'] ?? []),
    ...(headers['x-original-to'] ?? []),
  ];
  return {
    identity: messageId ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    messageId,
    inReplyTo: messageIds(headers['in-reply-to']),
    references: messageIds(headers.references),
    subject: decodeWords(headers.subject?.[0] ?? '')
      .replace(/\s+/g, ' ')
      .trim(),
    from,
    recipients: [...new Set(mailboxes(recipients).map((a) => a.address))],
    copied: mailboxes([...(headers.to ?? []), ...(headers.cc ?? [])]),
    to: [...new Set(mailboxes(headers.to ?? []).map((a) => a.address))],
    deliveredTo: mailboxes([...(headers['delivered-to'] ?? []), ...(headers['x-original-to'] ?? [])]).map(
      (a) => a.address,
    ),
    headers,
    contentType: root.type,
    reportType: (root.params['report-type'] ?? '').toLowerCase(),
  };
}
