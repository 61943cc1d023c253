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

/** `Markdown` as an `h` template part (the history's entries, decision 086): the same HTML. */
export function markdownHtml(source: string): HtmlEscapedString {
  const { message, signature } = splitSignature(source);
  return h`${raw(renderMarkdown(message))}${signature && h`<div class="signature">${signature}</div>`}`;
}

/** Whether a history entry's text is shown as Markdown: a message written in hxdesk, not one received by mail. */
export const isMarkdown = (t: { type: string; message_id: string | null; outside_sender?: boolean }) =>
  ['Create', 'Correspond', 'Comment'].includes(t.type) && writtenHere(t);
