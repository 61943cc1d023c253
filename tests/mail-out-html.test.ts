import { describe, expect, it } from 'vitest';
import { textToHtml } from '../src/scrips/html.js';
import { formatMailbox, storedMail, taggedSubject } from '../src/scrips/outbox.js';

// The pure parts of outgoing mail (SPEC C3): the HTML alternative made from the text (what it
// escapes, links, quotes and mutes, and that hostile text costs what its length costs), the
// stored mailboxes and the tagged subject. tests/mail-out.test.ts sends all of it through SMTP
// and opens the HTML in Chromium.

describe('stored mailboxes and the subject tag', () => {
  it('a display name with quotes, commas, backslashes, parentheses, line breaks or non-ASCII reads back as it was', () => {
    const boxes = [
      { name: 'O"Brien, \\Jr. (Billing) <x@y>', address: 'billing@example.com' },
      { name: 'Zoë Ünicode', address: 'zoe@example.com' },
      { name: '', address: 'bare@example.com' },
      { name: 'Line\r\nBreak\tand  spaces', address: 'lb@example.com' },
    ];
    const headers = JSON.stringify({
      From: formatMailbox(boxes[0]),
      To: boxes.map(formatMailbox).join(', '),
      Cc: formatMailbox(boxes[1]),
    });
    const read = storedMail({ headers, recipient: 'envelope@example.com' });
    expect(read.from).toEqual(boxes[0]);
    expect(read.to).toEqual([...boxes.slice(0, 3), { name: 'Line Break and spaces', address: 'lb@example.com' }]);
    expect(read.cc).toEqual([boxes[1]]);
    // A row queued before To was stored goes To its envelope recipient.
    expect(
      storedMail({ headers: JSON.stringify({ From: 'old@example.com' }), recipient: 'r@example.com' }),
    ).toMatchObject({
      from: { name: '', address: 'old@example.com' },
      to: [{ name: '', address: 'r@example.com' }],
      cc: [],
      replyTo: null,
    });
  });

  it('puts the tag after reply and forward prefixes, once', () => {
    expect(taggedSubject('Printer on fire', 7)).toBe('[hxdesk #7] Printer on fire');
    expect(taggedSubject('Re: Printer on fire', 7)).toBe('Re: [hxdesk #7] Printer on fire');
    expect(taggedSubject('RE[2]: Fwd:AW: Printer', 7)).toBe('RE[2]: Fwd:AW: [hxdesk #7] Printer');
    expect(taggedSubject('Re: [hxdesk #7] Printer on fire', 7)).toBe('Re: [hxdesk #7] Printer on fire');
    expect(taggedSubject('Reply needed: printer', 7)).toBe('[hxdesk #7] Reply needed: printer');
    expect(taggedSubject('', 7)).toBe('[hxdesk #7]');
  });
});

describe('the HTML of a text', () => {
  const body = (html: string) => /<div style="[^"]*">\n([\s\S]*)\n<\/div><\/body>/.exec(html)![1];

  it('escapes everything, keeps line breaks and spaces, links only http(s) and mailto', () => {
    expect(body(textToHtml('a < b && "c" \'d\'\nnext'))).toBe(
      'a &lt; b &amp;&amp; &quot;c&quot; &#39;d&#39;<br>\nnext',
    );
    expect(body(textToHtml('  two\tand tab'))).toBe('&nbsp;&nbsp;two&nbsp;&nbsp;&nbsp; and tab');
    expect(body(textToHtml('x https://a.example/p?q=1&r=<2>'))).toBe(
      'x <a href="https://a.example/p?q=1&amp;r=" style="color:#1d4ed8">https://a.example/p?q=1&amp;r=</a>&lt;2&gt;',
    );
    expect(body(textToHtml("go to https://a.example/x'onclick='alert(1)"))).toContain(
      'href="https://a.example/x&#39;onclick=&#39;alert(1)"',
    );
    for (const text of [
      'javascript:alert(1)',
      'JaVaScRiPt://x',
      'data:text/html,<script>',
      'vbscript:x',
      'https://',
      'mailto:',
      'mailto:nobody',
    ]) {
      expect(body(textToHtml(text)), text).not.toContain('<a ');
    }
    expect(body(textToHtml('(see http://a.example/b.) and HTTPS://B.EXAMPLE, mailto:x@y.example?subject=Hi!'))).toBe(
      '(see <a href="http://a.example/b" style="color:#1d4ed8">http://a.example/b</a>.) and <a href="HTTPS://B.EXAMPLE" style="color:#1d4ed8">HTTPS://B.EXAMPLE</a>, ' +
        '<a href="mailto:x@y.example?subject=Hi" style="color:#1d4ed8">mailto:x@y.example?subject=Hi</a>!',
    );
  });

  it('nests quotes by depth, whatever the spacing of the markers, and mutes the signature', () => {
    const html = body(
      textToHtml('top\n> one\n>> two\n> > two too\n>one again\n\nbottom\n-- \nsig\n> quoted after sig\nend'),
    );
    const q = (inner: string) =>
      `<blockquote style="margin:0 0 0 0.8ex;border-left:2px solid #c0c4cc;padding-left:1ex;color:#4b5563">${inner}</blockquote>`;
    expect(html).toBe(
      `top${q(`one${q('two<br>\ntwo too')}one again`)}<br>\nbottom<div style="color:#6b7280">-- <br>\nsig</div>${q('quoted after sig')}end`,
    );
    // A blank line before a quote still shows; indented `>` is not a quote; markers past 12 stay text.
    expect(body(textToHtml('a\n\n> q'))).toBe(`a<br>\n<br>${q('q')}`);
    expect(body(textToHtml(' > not a quote'))).toBe('&nbsp;&gt; not a quote');
    const nested = (n: number, inner: string): string => (n === 0 ? inner : q(nested(n - 1, inner)));
    expect(body(textToHtml(`${'>'.repeat(15)} deep`))).toBe(nested(12, '&gt;&gt;&gt; deep'));
    expect(textToHtml('')).toContain('<div style');
  });

  it('takes time and space in proportion to the text, however hostile (a megabyte each; measured, not asserted)', () => {
    const MB = 1 << 20;
    const shapes: Record<string, (n: number) => string> = {
      'one line of >': (n) => '>'.repeat(n),
      'lines of > > > x': (n) => '> > > x\n'.repeat(n / 8),
      'alternating depths': (n) => '>>>> a\nb\n'.repeat(n / 9),
      'one long line, no spaces': (n) => 'a'.repeat(n),
      'one URL a megabyte long': (n) => `https://${'a'.repeat(n - 8)}`,
      'URLs back to back': (n) => 'http://a'.repeat(n / 8),
      'a URL of closing parens': (n) => `http://a${')'.repeat(n - 8)}`,
      'mailto without @': (n) => `mailto:${'a'.repeat(n - 7)}`,
      escapes: (n) => '<&"\''.repeat(n / 4),
      'spaces and tabs': (n) => ' \t  x'.repeat(n / 5),
      'signature lines': (n) => '-- \n'.repeat(n / 4),
      'blank lines': (n) => '\n'.repeat(n),
    };
    const report: string[] = [];
    for (const [name, make] of Object.entries(shapes)) {
      const small = make(MB / 8);
      const big = make(MB);
      const t0 = performance.now();
      const outSmall = textToHtml(small);
      const t1 = performance.now();
      const outBig = textToHtml(big);
      const t2 = performance.now();
      // Output grows linearly: at most a constant factor of the input (the nesting cap bounds blockquotes).
      expect(outBig.length, name).toBeLessThan(big.length * 64 + 1000);
      expect(outBig.length / Math.max(1, outSmall.length), name).toBeLessThan(9);
      report.push(`${name}: ${(t1 - t0).toFixed(1)} ms for 128 KiB, ${(t2 - t1).toFixed(1)} ms for 1 MiB`);
    }
    console.log(`textToHtml, 1/8 MiB vs 1 MiB (linear is about 8x):\n  ${report.join('\n  ')}`);
  });
});
