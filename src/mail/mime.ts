import { Splitter, type MimeNode } from '@zone-eu/mailsplit';
import libbase64 from 'libbase64';
import libqp from 'libqp';
import { uudecodePart } from './uuencode.js';

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
  for (let rest = s; rest.trim(); ) {
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
    case 'base64': {
      const s = raw.toString('latin1');
      return !text || looksBase64(s) ? base64(s) : raw;
    }
    case 'quoted-printable':
      return libqp.decode(raw.toString('latin1'));
    case 'x-uuencode':
    case 'uuencode':
    case 'x-uue':
    case 'uue':
      return uudecodePart(raw.toString('latin1')) ?? raw;
    // 7bit, 8bit, binary, and any unknown or broken encoding (`Content-Transfer-Encoding: text/html`):
    // the bytes as they came, never nothing.
    default:
      return raw;
  }
};

/** Splits a raw message into its MIME tree. Rejects only what mailsplit cannot read at all. */
export function splitMime(raw: Buffer): Promise<MimePart> {
  return new Promise((resolve, reject) => {
    const splitter = new Splitter({ ignoreEmbedded: true });
    const parts = new Map<MimeNode, MimePart & { chunks: Buffer[] }>();
    const order: { node: MimeNode; value?: Buffer }[] = []; // every node and chunk as it came
    let root: (MimePart & { chunks: Buffer[] }) | undefined;
    let lastBody: (MimePart & { chunks: Buffer[] }) | undefined; // the leaf whose body came last, until anything else comes
    splitter.on('data', (chunk) => {
      if (chunk.type === 'data' && lastBody && chunk.value?.[0] === 0x2d) dropDelimiterLineBreak(lastBody.chunks);
      lastBody = chunk.type === 'body' ? parts.get(chunk.node) : undefined;
      if (chunk.type === 'node') {
        const node = chunk as MimeNode;
        const parent = node.parentNode ? parts.get(node.parentNode) : undefined;
        const ct = (node as unknown as { _parsedContentType?: { params: Record<string, string> } })._parsedContentType;
        const part = {
          node,
          type: mediaType(node, parent),
          params: lowerKeys(ct?.params ?? {}),
          disposition: node.disposition || '',
          filename: cleanName(node.filename || ''),
          children: [],
          body: Buffer.alloc(0),
          outside: Buffer.alloc(0),
          chunks: [],
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
        else
          p.body = decoded(
            p.node.encoding || '',
            bytes,
            p.type.startsWith('text/') && p.disposition !== 'attachment' && !p.filename,
          );
      }
      resolve(root);
    });
    splitter.end(withPartSeparators(withHeaderSeparator(raw)));
  });
}

/**
 * The line break before a delimiter line belongs to the delimiter (RFC 2046 5.1.1). mailsplit
 * leaves it in the body of a part that holds nothing else when a sibling follows (a part empty
 * but for that line break would be a one-byte file): a delimiter that arrives without its
 * leading line break takes it back from the body before it.
 */
function dropDelimiterLineBreak(chunks: Buffer[]): void {
  const last = chunks.length - 1;
  const c = chunks[last];
  if (!c || c[c.length - 1] !== 0x0a) return;
  chunks[last] = c.subarray(0, c.length - (c.length > 1 && c[c.length - 2] === 0x0d ? 2 : 1));
}

/**
 * The part's media type, read leniently (`application/pdf name="x.pdf"` with its `;` missing is
 * application/pdf); a part without a Content-Type is text/plain, or message/rfc822 in a digest.
 */
function mediaType(node: MimeNode, parent: { node: MimeNode } | undefined): string {
  if (!node.headers || !node.headers.get('content-type').length)
    return parent?.node.multipart === 'digest' ? 'message/rfc822' : node.contentType || 'text/plain';
  // RFC 2045 5.2: a Content-Type that cannot be read is text/plain (`Content-Type: text`, `<html>` …).
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+/.exec(node.contentType || '')?.[0] ?? 'text/plain';
}

/** The bytes below a node: its own chunks and every descendant's header block and chunks, in order. */
function rawBelow(top: MimeNode, order: { node: MimeNode; value?: Buffer }[]): Buffer {
  const under = (n: MimeNode) => {
    for (let x: MimeNode | false = n; x; x = x.parentNode) if (x === top) return true;
    return false;
  };
  return Buffer.concat(
    order.filter((e) => under(e.node) && (e.value || e.node !== top)).map((e) => e.value ?? e.node.getHeaders()),
  );
}

function lowerKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

/** A file name as a sender's mail client gave it, without a path or control characters. */
export function cleanName(name: string): string {
  return name
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .split(/[\\/]/)
    .pop()!
    .trim()
    .slice(0, 255);
}

function withoutBoundaryLines(bytes: Buffer, node: MimeNode): Buffer {
  const boundary = (node as unknown as { _boundary?: Buffer | false })._boundary;
  const text = bytes.toString('latin1');
  if (!boundary) return Buffer.from(text.trim(), 'latin1');
  const b = `--${boundary.toString('latin1')}`;
  const kept = text.split(/\r?\n/).filter((line) => !line.trimEnd().startsWith(b));
  return Buffer.from(kept.join('\n').trim(), 'latin1');
}

const HEADER_LINE = /^[!-9;-~]+[ \t]*:/;
const BOUNDARY_PARAM = /\bboundary[ \t]*=[ \t]*(?:"([^"\r\n]+)"|([^\s;"]+))/gi;

/**
 * Three ways a part's structure is written that RFC 2046 readers (CPython among them) accept and
 * mailsplit does not, repaired before splitting so that nothing a sender wrote is lost:
 * - a delimiter line followed by spaces or tabs (transport padding, RFC 2046 5.1.1): the padding
 *   is dropped, or the line would not separate anything and every part would be text;
 * - a nested multipart that never closes (MIME-tools' multi-frag): a delimiter of the multipart
 *   around it closes it, or every later part of the outer one would be swallowed by its last part;
 * - a part whose header block runs straight into its text without the blank line (CPython's
 *   msg_47: `Content-Type: text/plain` then `bar`): a line break is put before the first line
 *   that is neither a header field nor a continuation, so that it is text and not a header.
 * The delimiters are those of every `boundary=` parameter in the message.
 */
export function withPartSeparators(raw: Buffer): Buffer {
  const text = raw.toString('latin1');
  const boundaries = new Set<string>();
  for (const m of text.matchAll(BOUNDARY_PARAM)) if (boundaries.size < 1000) boundaries.add(m[1] ?? m[2]);
  if (!boundaries.size) return raw;
  const escaped = [...boundaries]
    .sort((a, b) => b.length - a.length)
    .map((b) => b.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  const delimiter = new RegExp(`^--(${escaped})(--)?([ \t]*)(\r?\n|$)`, 'gm');
  const isDelimiter = new RegExp(`^--(?:${escaped})(--)?[ \t]*$`);
  const edits: { at: number; remove: number; insert: string }[] = [];
  const open: string[] = []; // the multiparts whose parts are being read, outermost first
  for (const m of text.matchAll(delimiter)) {
    const [line, name, closing, padding, eol] = m;
    const lineEnd = m.index + line.length;
    if (padding) edits.push({ at: lineEnd - eol.length - padding.length, remove: padding.length, insert: '' });
    const depth = open.lastIndexOf(name);
    if (depth >= 0) {
      // A delimiter of an enclosing multipart ends the ones inside it that never closed.
      for (let i = open.length - 1; i > depth; i--)
        edits.push({ at: m.index, remove: 0, insert: `--${open[i]}--${eol || '\r\n'}` });
      open.length = closing ? depth : depth + 1;
    } else if (!closing) {
      open.push(name);
    }
    if (closing || !eol) continue;
    // The part's header block: up to the blank line, or the next delimiter (a part of headers only).
    let textAt = -1;
    for (let at = lineEnd, n = 0; at < text.length; n++) {
      const nl = text.indexOf('\n', at);
      const l = text.slice(at, nl < 0 ? text.length : nl).replace(/\r$/, '');
      if (l === '' || isDelimiter.test(l)) break;
      if (HEADER_LINE.test(l)) {
        // A header field after the odd line: that line was a header wrapped without its
        // indent (`name="x.zip"` under a Content-Type ending in `;`), not text. Left as it is.
        textAt = -1;
      } else if (textAt < 0 && !(n > 0 && /^[ \t]/.test(l))) {
        textAt = at;
      }
      if (nl < 0) break;
      at = nl + 1;
    }
    if (textAt >= 0) edits.push({ at: textAt, remove: 0, insert: eol });
  }
  if (!edits.length) return raw;
  const out: Buffer[] = [];
  let from = 0;
  for (const e of edits.sort((a, b) => a.at - b.at)) {
    out.push(raw.subarray(from, e.at), Buffer.from(e.insert, 'latin1'));
    from = e.at + e.remove;
  }
  out.push(raw.subarray(from));
  return Buffer.concat(out);
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
    const header = HEADER_LINE.test(text) || (line > 0 && /^[ \t]/.test(text)) || text.startsWith('From ');
    if (!header) return line === 0 ? raw : Buffer.concat([raw.subarray(0, at), Buffer.from('\r\n'), raw.subarray(at)]);
    if (nl < 0) return raw;
    at = nl + 1;
  }
  return raw;
}
