// The HTML alternative of an outgoing mail (SPEC C3), made from its plain text: every character
// escaped, line breaks and runs of spaces kept, http(s) and mailto links made clickable, quoted
// lines (`>`, `> >`, `>>`) as nested blockquotes, and the signature after a `-- ` line muted.
// Inline styles only (mail clients drop <style> blocks and classes). One pass over the text, no
// regular expression that can backtrack: a megabyte of `>` or one endless line costs what its
// length costs (tests/mail-out.test.ts measures it).

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** Deeper quoting shows its further `>` as text rather than ever more nested boxes. */
const MAX_DEPTH = 12;
const QUOTE_STYLE = 'margin:0 0 0 0.8ex;border-left:2px solid #c0c4cc;padding-left:1ex;color:#4b5563';
const SIGNATURE_STYLE = 'color:#6b7280';
const BODY_STYLE =
  'font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;overflow-wrap:anywhere;word-wrap:break-word';

/** The quote depth of a line and the text after its markers (`> > a`, `>>a`; the first `>` in column one). */
function quoteOf(line: string): { depth: number; text: string } {
  if (line.charCodeAt(0) !== 0x3e) return { depth: 0, text: line };
  let depth = 0;
  let i = 0;
  while (depth < MAX_DEPTH) {
    let j = i;
    while (line.charCodeAt(j) === 0x20 || line.charCodeAt(j) === 0x09) j++;
    if (line.charCodeAt(j) !== 0x3e) break;
    depth++;
    i = j + 1;
  }
  return { depth, text: line.charCodeAt(i) === 0x20 ? line.slice(i + 1) : line.slice(i) };
}

// The scheme, then everything up to white space or a character that cannot be in a URL in text.
// `[^…]+` after a fixed prefix matches greedily once and never backtracks into the prefix.
const LINK = /\b(?:https?:\/\/|mailto:)[^\s<>"\u0000-\u001f\u007f]+/gi;
const TRAILING = new Set(['.', ',', ';', ':', '!', '?', "'", '*', '_']);

/** Punctuation that ends a sentence rather than the URL (`see https://x.org/a.`, `(https://x.org/b)`). */
function trimUrl(url: string): string {
  let end = url.length;
  let open = 0;
  let close = 0;
  for (let i = 0; i < end; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x28) open++;
    else if (c === 0x29) close++;
  }
  while (end > 0) {
    const c = url[end - 1];
    if (TRAILING.has(c)) {
      end--;
      continue;
    }
    if (c === ')' && close > open) {
      close--;
      end--;
      continue;
    }
    break;
  }
  return url.slice(0, end);
}

/** The minimal scheme-only strings are text, not links. */
const isUsable = (url: string) => /^(?:https?:\/\/[^/?#]|mailto:[^?]*@)/i.test(url);

/** One line's text: escaped, links as anchors, runs of spaces and tabs kept. */
function inline(text: string): string {
  let out = '';
  let last = 0;
  LINK.lastIndex = 0;
  for (let m = LINK.exec(text); m; m = LINK.exec(text)) {
    const url = trimUrl(m[0]);
    if (!isUsable(url)) {
      LINK.lastIndex = m.index + Math.max(1, url.length);
      continue;
    }
    out += spaces(escapeHtml(text.slice(last, m.index)));
    const safe = escapeHtml(url);
    out += `<a href="${safe}" style="color:#1d4ed8">${safe}</a>`;
    last = m.index + url.length;
    LINK.lastIndex = last;
  }
  return out + spaces(escapeHtml(text.slice(last)));
}

/** HTML collapses white space: keep indentation and runs of spaces (a tab counts four) as the text had them. */
function spaces(s: string): string {
  if (!s.includes('  ') && !s.includes('\t') && s[0] !== ' ') return s;
  let out = '';
  let start = 0;
  let width = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = s[i];
    if (c === ' ' || c === '\t') {
      if (width === 0) start = i;
      width += c === '\t' ? 4 : 1;
      continue;
    }
    if (c === undefined) break; // trailing white space shows nothing
    if (width === 1 && start > 0) out += ' ';
    else if (width > 0) out += start === 0 ? '&nbsp;'.repeat(width) : `${'&nbsp;'.repeat(width - 1)} `;
    width = 0;
    out += c;
  }
  return out;
}

/** The HTML document for a plain-text mail body. */
export const textToHtml = (text: string): string => htmlDocument(textFragment(text));

/** A mail's HTML document around its content. */
export const htmlDocument = (content: string): string =>
  '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>' +
  `<body><div style="${BODY_STYLE}">\n${content}\n</div></body></html>\n`;

/** The HTML of a plain text (escaped, links, quotes, the muted signature), without the document around it. */
export function textFragment(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // the final newline ends the last line
  const out: string[] = [];
  let depth = 0;
  let inSignature = false;
  let lineOpen = false; // the previous line needs a <br> before more text at the same level
  let lastEmpty = false;
  /** Before a block starts: a blank last line must still show as one. */
  const endRun = () => {
    if (lineOpen && lastEmpty) out.push('<br>');
    lineOpen = false;
  };
  for (const line of lines) {
    const q = quoteOf(line);
    const startsSignature = !inSignature && q.depth === 0 && (line === '-- ' || line === '--');
    if (inSignature && q.depth > 0) {
      endRun();
      out.push('</div>');
      inSignature = false;
    }
    if (q.depth !== depth) {
      endRun();
      while (depth < q.depth) {
        out.push(`<blockquote style="${QUOTE_STYLE}">`);
        depth++;
      }
      while (depth > q.depth) {
        out.push('</blockquote>');
        depth--;
      }
    }
    if (startsSignature) {
      endRun();
      out.push(`<div style="${SIGNATURE_STYLE}">`);
      inSignature = true;
    }
    if (lineOpen) out.push('<br>\n');
    const html = inline(q.text);
    out.push(html);
    lineOpen = true;
    lastEmpty = html === '';
  }
  endRun();
  while (depth > 0) {
    out.push('</blockquote>');
    depth--;
  }
  if (inSignature) out.push('</div>');
  return out.join('');
}
