import { jsx } from 'hono/jsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../src/markdown.js';
import { h } from '../src/views/format.js';
import { markdownHtml } from '../src/views/markdown.js';
import { snoozePresets, snoozePresetsUncached } from '../src/views/tickets/snoozePresets.js';
import { startServer, type TestServer } from './helpers/server.js';

// Issue 32 (docs/decisions/086): the list's rows and the ticket page's history are written with
// the `h` template, the Markdown of recent texts and the snooze presets are kept — what a reader
// sees must not change: what people typed stays text, on both stores.

let s: TestServer;
let agent: { id: number; email: string; token: string };

const html = async (path: string) => {
  const res = await s.api('GET', path, { token: agent.token, headers: { accept: 'text/html' } });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.text;
};

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent', 'agent-render@example.com');
});
afterAll(() => s?.close());

describe('list rows and history entries', () => {
  it('show what people typed as text: subject, requester, tag, reply, note and file name', async () => {
    const requester = await s.api('POST', '/users', {
      body: { email: 'ann.render@example.com', name: `Ann "<b>" O'Neil & co`, role: 'requester' },
    });
    expect(requester.status, requester.text).toBe(201);
    const subject = '<img src=x onerror=alert(1)> & "quotes"';
    const created = await s.api('POST', '/tickets', {
      token: agent.token,
      body: {
        queue_id: 1,
        subject,
        description: '<script>alert(1)</script> **bold** [x](javascript:alert(1))',
        requester_id: requester.body.user?.id ?? requester.body.id,
        priority: 3,
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.ticket.id as number;
    const tagged = await s.api('POST', `/tickets/${id}/tags`, { token: agent.token, body: { tag: 'render-check' } });
    expect([200, 201]).toContain(tagged.status);
    const note = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: `Note <i>"it's"</i>\n-- \nSig <b>`, internal: true },
    });
    expect(note.status, note.text).toBe(201);

    const list = await html(`/tickets?sort=-id&limit=5`);
    expect(list).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;');
    expect(list).toContain('Ann &quot;&lt;b&gt;&quot; O&#39;Neil &amp; co');
    expect(list).toContain('<span class="list-tag">render-check</span>');
    expect(list).toContain(`<tr data-id="${id}" data-key=`);
    expect(list).toContain('title="Priority 3"');
    expect(list).not.toContain('<img src=x');
    expect(list).not.toContain('<b>"');

    const page = await html(`/tickets/${id}`);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; <strong>bold</strong>');
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('href="javascript:');
    // The note is Markdown (written here): its text escaped, its signature plain text, muted.
    expect(page).toContain("Note &lt;i&gt;&quot;it's&quot;&lt;/i&gt;");
    expect(page).toContain('<div class="signature">-- \nSig &lt;b&gt;</div>');
    expect(page).toContain(
      `<li id="txn-${note.body.transaction.id}" class="txn txn-comment" data-txn-id="${note.body.transaction.id}">`,
    );
    // A second view is the same page (the Markdown of recent texts is kept, not changed).
    const again = await html(`/tickets/${id}`);
    const history = (p: string) =>
      p.slice(p.indexOf('<ol id="history"'), p.indexOf('</ol>', p.indexOf('<ol id="history"')));
    expect(history(again)).toBe(history(page));
  });
});

describe('the parts the pages repeat', () => {
  it('h escapes as JSX does: text and attributes, numbers, nothing for null and booleans, arrays, nested parts', () => {
    const nasty = `<a href="x">'&'</a>`;
    const viaJsx = jsx('span', { title: nasty, 'data-n': 5 }, nasty, 7, null, false, [nasty]).toString();
    const viaH = h`<span title="${nasty}" data-n="${5}">${nasty}${7}${null}${false}${[nasty]}</span>`;
    expect(String(viaH)).toBe(String(viaJsx));
    expect(String(h`<p>${h`<b>${nasty}</b>`}${jsx('i', {}, nasty)}</p>`)).toBe(
      '<p><b>&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;</b><i>&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;</i></p>',
    );
  });

  it('Markdown on the page: a text kept renders as it did the first time, its signature plain text', () => {
    const text = 'See [the docs](https://example.com/a?b=1&c=2) and `code` <b>\n-- \nAnn <ann@example.com>';
    const first = String(markdownHtml(text));
    expect(first).toBe(
      '<p>See <a href="https://example.com/a?b=1&amp;c=2" rel="noopener nofollow">the docs</a> and <code>code</code> &lt;b&gt;</p>\n<div class="signature">-- \nAnn &lt;ann@example.com&gt;</div>',
    );
    expect(String(markdownHtml(text))).toBe(first);
    expect(String(markdownHtml(`${text} `))).not.toBe(first);
    // Mail keeps its own inline styles (renderMarkdown for mail is not the page's).
    expect(renderMarkdown('[a](https://example.com)', { mail: true })).toContain('style="color:#1d4ed8"');
    const long = `${'word '.repeat(5000)}**end**`;
    expect(String(markdownHtml(long))).toBe(String(markdownHtml(long)));
    expect(String(markdownHtml(long))).toContain('<strong>end</strong>');
  });

  it('snooze presets kept per quarter hour are those computed at the moment, in every kind of zone', () => {
    const zones = [
      'UTC',
      'Europe/Berlin',
      'America/New_York',
      'Asia/Kathmandu',
      'Australia/Lord_Howe',
      'America/St_Johns',
      'Europe/Amsterdam',
    ];
    const starts = [
      Date.parse('2026-03-28T20:00:00Z'), // Europe's clocks go forward the next night
      Date.parse('2026-10-24T21:07:00Z'), // and back
      Date.parse('2026-11-01T04:00:00Z'), // New York's fall back
      Date.parse('1900-06-01T10:00:00Z'), // Amsterdam's local mean time (+00:19:32)
      Date.parse('2026-11-27T23:59:59.999Z'),
    ];
    for (const zone of zones)
      for (const start of starts)
        for (let ms = start; ms < start + 12 * 3_600_000; ms += 1_000_003) {
          expect(snoozePresets(ms, zone), `${zone} ${new Date(ms).toISOString()}`).toEqual(
            snoozePresetsUncached(ms, zone),
          );
          const onQuarter = Math.ceil(ms / 900_000) * 900_000;
          expect(snoozePresets(onQuarter, zone)).toEqual(snoozePresetsUncached(onQuarter, zone));
        }
  });
});
