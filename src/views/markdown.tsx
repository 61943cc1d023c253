import { raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { h } from './format.js';
import { renderMarkdown, splitSignature, writtenHere } from '../markdown.js';

// A message written in hxdesk, formatted (SPEC D6, docs/decisions/053). The HTML is markdown-it's
// with raw HTML off: every character of the writer's text is escaped by it, links go only to
// http(s) and mailto. This is the one place a view hands over ready HTML, and it is never the
// writer's text itself. The signature after a `-- ` line stays plain text, muted.
export function Markdown({ source }: { source: string }) {
  const { message, signature } = splitSignature(source);
  return (
    <>
      {raw(renderMarkdown(message))}
      {signature && <div class="signature">{signature}</div>}
    </>
  );
}

/**
 * `Markdown` as an `h` template part (the history's entries, decision 086): the same HTML. A ticket
 * page renders every entry of its history on each view, and markdown-it builds its parser states
 * per call (issue 32): the HTML of recent texts is kept, a pure function of the text, bounded by
 * the total length of texts and HTML kept (~4 M characters) and never for a text over 16 K.
 */
export function markdownHtml(source: string): HtmlEscapedString {
  const known = kept.get(source);
  if (known !== undefined) {
    // Most recently used last: a Map keeps insertion order, so the first key is the oldest.
    kept.delete(source);
    kept.set(source, known);
    return raw(known);
  }
  const { message, signature } = splitSignature(source);
  const out = String(h`${raw(renderMarkdown(message))}${signature && h`<div class="signature">${signature}</div>`}`);
  if (source.length <= KEEP_ONE) {
    kept.set(source, out);
    keptChars += source.length + out.length;
    for (const [k, v] of kept) {
      if (keptChars <= KEEP_CHARS) break;
      kept.delete(k);
      keptChars -= k.length + v.length;
    }
  }
  return raw(out);
}
const KEEP_CHARS = 4_000_000;
const KEEP_ONE = 16_384;
const kept = new Map<string, string>();
let keptChars = 0;

/** Whether a history entry's text is shown as Markdown: a message written in hxdesk, not one received by mail. */
export const isMarkdown = (t: { type: string; message_id: string | null; outside_sender?: boolean }) =>
  ['Create', 'Correspond', 'Comment'].includes(t.type) && writtenHere(t);
