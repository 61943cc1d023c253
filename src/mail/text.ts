import { isUtf8 } from 'node:buffer';
import { compile } from 'html-to-text';
import { Tokenizer } from 'htmlparser2';
import iconv from 'iconv-lite';
import libmimeCharset from 'libmime/lib/charset.js';

// Text out of a body part: its charset decoded, format=flowed joined, HTML converted.

const ASCII_LABELS = /^(us-?ascii|ascii|ansi_x3\.4-1968|iso646-us|7bit|8bit|binary)$/i;

/**
 * A body part's bytes as text. A missing, unknown or wrong label falls back to UTF-8 when the
 * bytes are valid UTF-8 and to Windows-1252 otherwise (every byte is a character there), so
 * no text is ever replaced by U+FFFD or dropped because a label lied.
 */
export function decodeText(buf: Buffer, charset?: string): string {
  const label = (charset ?? '').trim().replace(/^["']|["']$/g, '');
  const guess = () => (isUtf8(buf) ? buf.toString('utf8') : iconv.decode(buf, 'windows-1252'));
  if (!label || ASCII_LABELS.test(label)) return guess();
  const name = libmimeCharset.normalizeCharset(label);
  if (name === 'UTF-8') return guess();
  if (/^(jis|iso-?2022-?jp|euc-?jp)/i.test(name)) return libmimeCharset.decode(buf, name);
  if (iconv.encodingExists(name)) return iconv.decode(buf, name);
  return guess();
}

/** The charset an HTML part declares in a <meta> tag, for parts whose Content-Type has none. */
export function htmlMetaCharset(buf: Buffer): string | undefined {
  const head = buf.subarray(0, 4096).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
}

/** RFC 3676: joins soft-broken lines (ending in a space) of the same quote depth. */
export function unflow(text: string, delSp: boolean): string {
  const out: string[] = [];
  let open: { depth: number; text: string } | null = null;
  for (const line of text.split('\n')) {
    const depth = /^>*/.exec(line)![0].length;
    let body = line.slice(depth);
    if (body.startsWith(' ')) body = body.slice(1); // space-stuffing
    const soft = body.endsWith(' ') && body !== '-- ';
    const piece = soft && delSp ? body.slice(0, -1) : body;
    if (open && open.depth === depth) open.text += piece;
    else {
      if (open) out.push(open.text);
      open = { depth, text: (depth ? `${'>'.repeat(depth)} ` : '') + piece };
    }
    if (!soft) {
      out.push(open.text);
      open = null;
    }
  }
  if (open) out.push(open.text);
  return out.join('\n');
}

const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'html',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'ul',
]);
const HIDDEN = new Set(['script', 'style', 'title']); // raw-text elements the tokenizer closes itself
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const SIBLINGS = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option']);

/** Past these, html-to-text (whose parser costs grow with nesting) gives way to the linear pass. */
const HTML_TO_TEXT_MAX_DEPTH = 200;
const HTML_TO_TEXT_MAX_CHARS = 2 * 1024 * 1024;

/**
 * One linear pass over the HTML with htmlparser2's tokenizer: the text with block breaks, and
 * how deep the elements nest (what makes tree-building converters slow: `<div>` × 160,000).
 */
export function scanHtml(html: string): { text: string; depth: number } {
  const out: string[] = [];
  const stack: string[] = [];
  let depth = 0;
  let hidden = 0;
  let pre = 0;
  let tag = '';
  let attr = '';
  let attrValue = '';
  let href = '';
  const linkStart: number[] = [];
  const brk = () => {
    if (out.length && !out[out.length - 1].endsWith('\n')) out.push('\n');
  };
  const text = (s: string) => {
    if (!hidden) out.push(pre ? s : s.replace(/\s+/g, ' '));
  };
  const open = (name: string, selfClosing: boolean) => {
    if (SIBLINGS.has(name) && stack[stack.length - 1] === name) stack.pop();
    if (HIDDEN.has(name)) hidden++;
    if (name === 'pre') pre++;
    if (BLOCK.has(name)) brk();
    if (name === 'br') out.push('\n');
    if (name === 'li') out.push('- ');
    if (name === 'td' || name === 'th') out.push(' ');
    if (name === 'a') linkStart.push(out.length);
    if (!VOID.has(name) && !selfClosing) {
      stack.push(name);
      depth = Math.max(depth, stack.length);
    }
  };
  const close = (name: string) => {
    // Pop to the matching element, looking only a few levels down: stray end tags are ignored.
    for (let i = stack.length - 1; i >= 0 && i >= stack.length - 16; i--)
      if (stack[i] === name) {
        stack.length = i;
        break;
      }
    if (HIDDEN.has(name) && hidden) hidden--;
    if (name === 'pre' && pre) pre--;
    if (name === 'a' && linkStart.length) {
      const from = linkStart.pop()!;
      const label = out.length - from < 64 ? out.slice(from).join('').trim() : '';
      if (
        href &&
        /^(https?:|mailto:)/i.test(href) &&
        label &&
        label !== href &&
        label !== href.replace(/^mailto:/i, '')
      )
        out.push(` [${href}]`);
      href = '';
    }
    if (BLOCK.has(name)) brk();
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onattribdata: (s, e) => {
        attrValue += html.slice(s, e);
      },
      onattribentity: (cp) => {
        attrValue += String.fromCodePoint(cp);
      },
      onattribend: () => {
        if (tag === 'a' && attr === 'href') href = attrValue.trim();
        attr = '';
        attrValue = '';
      },
      onattribname: (s, e) => {
        attr = html.slice(s, e).toLowerCase();
        attrValue = '';
      },
      oncdata: () => {},
      oncomment: () => {},
      ondeclaration: () => {},
      onprocessinginstruction: () => {},
      onend: () => {},
      onclosetag: (s, e) => close(html.slice(s, e).toLowerCase()),
      onopentagname: (s, e) => {
        tag = html.slice(s, e).toLowerCase();
        if (tag === 'a') href = '';
      },
      onopentagend: () => open(tag, false),
      onselfclosingtag: () => {
        open(tag, true);
        close(tag);
      },
      ontext: (s, e) => text(html.slice(s, e)),
      ontextentity: (cp) => text(String.fromCodePoint(cp)),
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return {
    text: tidy(
      out
        .join('')
        .split('\n')
        .map((l) => l.trim())
        .join('\n'),
    ),
    depth,
  };
}

const tidy = (s: string) =>
  s
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** html-to-text with our options, compiled once (compiling its selectors costs more than converting a short mail). */
const htmlConverter = compile({
  wordwrap: false,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((h) => ({ selector: h, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
});

/**
 * HTML as the text an agent reads. html-to-text gives the better layout (tables, lists, links);
 * it builds a tree whose cost grows with nesting depth, so deep or huge HTML takes the linear
 * pass instead. Either way the time is bounded by the input's size.
 */
export function htmlAsText(html: string): string {
  const scan = scanHtml(html);
  if (scan.depth > HTML_TO_TEXT_MAX_DEPTH || html.length > HTML_TO_TEXT_MAX_CHARS) return scan.text;
  try {
    return tidy(htmlConverter(html));
  } catch {
    return scan.text;
  }
}
