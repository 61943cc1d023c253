import { Splitter, type MimeNode } from '@zone-eu/mailsplit';
import libbase64 from 'libbase64';
import libqp from 'libqp';
import { uudecodeLines } from './uuencode.js';

/**
 * One MIME part of a message, as @zone-eu/mailsplit (mailparser's own splitter) reads it: its
 * headers, its parsed Content-Type and Content-Disposition, its children if it is a multipart,
 * and its body with the transfer encoding undone. An embedded `message/rfc822` is a leaf whose
 * body is the embedded message itself (kept whole, as a file).
 */
export interface MimePart {
  node: MimeNode;
  /** Lower-cased media type; `text/plain` where the part has none (mailsplit's default). */
  type: string;
  /** The Content-Type parameters (charset, name, format, delsp, start …), keys lower-cased. */
  params: Record<string, string>;
  disposition: string;
  filename: string;
  children: MimePart[];
  /** A leaf's decoded body. */
  body: Buffer;
  /** A multipart's own text outside its parts (preamble, epilogue), boundary lines left out. */
  outside: Buffer;
  depth: number;
}

export class MimeError extends Error {}

/** Lines of base64 hold only its alphabet: anything else means the label is wrong (keep the bytes). */
const looksBase64 = (s: string) => s.split(/\r?\n/).every((line) => /^[A-Za-z0-9+/=]*\s*$/.test(line));

/**
 * base64 as mail clients read it: characters outside the alphabet are skipped; data ends at its
 * padding, except where another well-formed block follows (encoders that pad every chunk). What
 * follows the padding otherwise (a mangled boundary, an epilogue) is not part of the file.
 */
function base64(s: string): Buffer {
  const out: Buffer[] = [];
  for (let rest = s; rest.trim();) {
    const pad = /=+/.exec(rest);
    const block = pad ? rest.slice(0, pad.index + pad[0].length) : rest;
    if (out.length && !/^[A-Za-z0-9+/]+={0,2}$/.test(block.replace(/\s+/g, ''))) break;
    out.push(libbase64.decode(block));
    rest = rest.slice(block.length);
  }
  return Buffer.concat(out);
}

const decoded = (encoding: string, raw: Buffer, text: boolean): Buffer => {
  switch (encoding) {
    // Text labelled base64 that is not base64 is the text itself; a broken file is decoded leniently, as mail clients do.
    case 'base64': { const s = raw.toString('latin1'); return !text || looksBase64(s) ? base64(s) : raw; }
    case 'quoted-printable': return libqp.decode(raw.toString('latin1'));
    case 'x-uuencode': case 'uuencode': case 'x-uue': return uudecodeLines(raw.toString('latin1').split(/\r?\n/)) ?? raw;
    // 7bit, 8bit, binary, and any unknown or broken encoding (`Content-Transfer-Encoding: text/html`):
    // the bytes as they came, never nothing.
    default: return raw;
  }
};

/** Splits a raw message into its MIME tree. Rejects only what mailsplit cannot read at all. */
export function splitMime(raw: Buffer): Promise<MimePart> {
  return new Promise((resolve, reject) => {
    const splitter = new Splitter({ ignoreEmbedded: true });
    const parts = new Map<MimeNode, MimePart & { chunks: Buffer[] }>();
    const order: { node: MimeNode; value?: Buffer }[] = []; // every node and chunk as it came
    let root: (MimePart & { chunks: Buffer[] }) | undefined;
    splitter.on('data', (chunk) => {
      if (chunk.type === 'node') {
        const node = chunk as MimeNode;
        const parent = node.parentNode ? parts.get(node.parentNode) : undefined;
        const ct = (node as unknown as { _parsedContentType?: { params: Record<string, string> } })._parsedContentType;
        const part = {
          node, type: mediaType(node, parent), params: lowerKeys(ct?.params ?? {}), disposition: node.disposition || '',
          filename: cleanName(node.filename || ''), children: [], body: Buffer.alloc(0), outside: Buffer.alloc(0), chunks: [],
          depth: parent ? parent.depth + 1 : 0,
        };
        parts.set(node, part);
        order.push({ node });
        if (parent) parent.children.push(part);
        else root ??= part;
      } else if ((chunk.type === 'body' || chunk.type === 'data') && chunk.node && chunk.value) {
        parts.get(chunk.node)?.chunks.push(chunk.value);
        order.push({ node: chunk.node, value: chunk.value });
      }
    });
    const stream = splitter as unknown as NodeJS.EventEmitter;
    stream.on('error', (e: Error) => reject(new MimeError(e.message)));
    stream.on('end', () => {
      if (!root) return reject(new MimeError('The message is empty'));
      for (const p of parts.values()) {
        if (!p.node.multipart && p.children.length) {
          // A single part with a stray boundary parameter (`text/html; boundary=…`): mailsplit
          // splits it anyway. It is one part: its body is everything below it, as it was sent.
          p.chunks = [rawBelow(p.node, order)];
          p.children = [];
        }
      }
      for (const p of parts.values()) {
        const bytes = Buffer.concat(p.chunks);
        p.chunks = [];
        if (p.node.multipart) p.outside = withoutBoundaryLines(bytes, p.node);
        else p.body = decoded(p.node.encoding || '', bytes, p.type.startsWith('text/') && p.disposition !== 'attachment' && !p.filename);
      }
      resolve(root);
    });
    splitter.end(withHeaderSeparator(raw));
  });
}

/**
 * The part's media type, read leniently (`application/pdf name="x.pdf"` with its `;` missing is
 * application/pdf); a part without a Content-Type is text/plain, or message/rfc822 in a digest.
 */
function mediaType(node: MimeNode, parent: { node: MimeNode } | undefined): string {
  if (!node.headers || !node.headers.get('content-type').length) return parent?.node.multipart === 'digest' ? 'message/rfc822' : node.contentType || 'text/plain';
  // RFC 2045 5.2: a Content-Type that cannot be read is text/plain (`Content-Type: text`, `<html>` …).
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+/.exec(node.contentType || '')?.[0] ?? 'text/plain';
}

/** The bytes below a node: its own chunks and every descendant's header block and chunks, in order. */
function rawBelow(top: MimeNode, order: { node: MimeNode; value?: Buffer }[]): Buffer {
  const under = (n: MimeNode) => { for (let x: MimeNode | false = n; x; x = x.parentNode) if (x === top) return true; return false; };
  return Buffer.concat(order.filter((e) => under(e.node) && (e.value || e.node !== top)).map((e) => e.value ?? e.node.getHeaders()));
}

function lowerKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

/** A file name as a sender's mail client gave it, without a path or control characters. */
export function cleanName(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f]/g, '').split(/[\\/]/).pop()!.trim().slice(0, 255);
}

function withoutBoundaryLines(bytes: Buffer, node: MimeNode): Buffer {
  const boundary = (node as unknown as { _boundary?: Buffer | false })._boundary;
  const text = bytes.toString('latin1');
  if (!boundary) return Buffer.from(text.trim(), 'latin1');
  const b = `--${boundary.toString('latin1')}`;
  const kept = text.split(/\r?\n/).filter((line) => !line.trimEnd().startsWith(b));
  return Buffer.from(kept.join('\n').trim(), 'latin1');
}

/**
 * A message whose header block runs straight into the text (no blank line: RFC 5322 says
 * there must be one) would have its first lines read as headers and lost. As CPython's parser
 * does, the text starts at the first line that is neither a header field nor a continuation.
 */
export function withHeaderSeparator(raw: Buffer): Buffer {
  const head = raw.subarray(0, 1024 * 1024).toString('latin1');
  let at = 0;
  for (let line = 0; at < head.length; line++) {
    const nl = head.indexOf('\n', at);
    const text = head.slice(at, nl < 0 ? head.length : nl).replace(/\r$/, '');
    if (text === '') return raw; // the separator is there
    // (an mbox `From ` line counts as a header wherever it is, as CPython reads it)
    const header = /^[!-9;-~]+[ \t]*:/.test(text) || (line > 0 && /^[ \t]/.test(text)) || text.startsWith('From ');
    if (!header) return line === 0 ? raw : Buffer.concat([raw.subarray(0, at), Buffer.from('\r\n'), raw.subarray(at)]);
    if (nl < 0) return raw;
    at = nl + 1;
  }
  return raw;
}
