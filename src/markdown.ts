import MarkdownIt, { type MarkdownIt as Md } from 'markdown-it';

// Markdown in replies and notes (SPEC D6, docs/decisions/053): what people write in hxdesk is
// shown formatted on the page and in the HTML part of its mail; what came by mail is the
// sender's plain text and stays as they wrote it. Raw HTML is off (it shows as text), links go
// only to http(s) and mailto and carry rel="noopener nofollow", images are not loaded (a link
// shows instead), and line breaks are kept as a textarea writer means them.
// A leaf module: the page (src/views) and the mail (src/scrips) both use it.

/** Whether a history entry's text was written in hxdesk (Markdown) rather than received by mail (plain text). */
export const writtenHere = (t: { message_id: string | null; outside_sender?: boolean }) =>
  t.message_id === null && !t.outside_sender;

const SAFE_LINK = /^(?:https?:\/\/|mailto:)/i;

/** Styles for mail (clients drop <style> blocks and classes): the same look as the plain-text HTML. */
const MAIL_STYLE: Record<string, string> = {
  link_open: 'color:#1d4ed8',
  blockquote_open: 'margin:0 0 0 0.8ex;border-left:2px solid #c0c4cc;padding-left:1ex;color:#4b5563',
  code_inline: 'font-family:Menlo,Consolas,monospace;font-size:13px;background:#f3f4f6;padding:0 3px',
  fence:
    'display:block;font-family:Menlo,Consolas,monospace;font-size:13px;background:#f3f4f6;padding:6px 8px;white-space:pre-wrap',
  code_block:
    'display:block;font-family:Menlo,Consolas,monospace;font-size:13px;background:#f3f4f6;padding:6px 8px;white-space:pre-wrap',
  table_open: 'border-collapse:collapse',
  th_open: 'border:1px solid #d1d5db;padding:2px 6px',
  td_open: 'border:1px solid #d1d5db;padding:2px 6px',
};

function make(mail: boolean): Md {
  const md = new MarkdownIt('default', { html: false, linkify: true, breaks: true, typographer: false });
  // Remote images would be fetched by every reader (and a tracking pixel in a note); a setext
  // heading turns "Thanks\n--" into a title. Neither is what someone typing a reply means.
  md.disable(['image', 'lheading']);
  md.validateLink = (url) => SAFE_LINK.test(url.trim());
  md.core.ruler.push('hxdesk_attrs', (state) => {
    const visit = (tokens: typeof state.tokens) => {
      for (const t of tokens) {
        if (t.type === 'link_open') t.attrSet('rel', 'noopener nofollow');
        if (mail && MAIL_STYLE[t.type]) t.attrSet('style', MAIL_STYLE[t.type]);
        if (t.children) visit(t.children);
      }
    };
    visit(state.tokens);
    return true;
  });
  return md;
}

const page = make(false);
const mail = make(true);

/** The HTML of a Markdown text: for the page (classes from the stylesheet) or for mail (inline styles). */
export function renderMarkdown(source: string, opts: { mail?: boolean } = {}): string {
  return (opts.mail ? mail : page).render(source);
}

/** The sign-off delimiter (RFC 3676) that starts a signature: what follows it is plain text, not Markdown. */
const SIGNATURE = /\n-- ?\n/;

/** A text split at its signature delimiter (the first `-- ` line, as mail programs read it): the message, and the signature with its delimiter line, or ''. */
export function splitSignature(text: string): { message: string; signature: string } {
  const normal = text.replace(/\r\n?/g, '\n');
  const m = SIGNATURE.exec(`\n${normal}`);
  if (!m) return { message: normal, signature: '' };
  return { message: normal.slice(0, Math.max(0, m.index - 1)), signature: normal.slice(m.index) };
}
