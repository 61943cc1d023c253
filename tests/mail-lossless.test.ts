import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import {
  base64Lines,
  corpus,
  entity,
  envelope,
  get,
  keptOf,
  MAILGATE_TOKEN,
  multipart,
  postMail,
  sha256,
  uuencode,
} from './helpers/mail.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC C1, issue 12 §1: every class of mail content that used to be lost, one test each, with
// messages of the fetched corpus (RT's, CPython's, enmime's test mail) beside our own. Each
// asserts what the ticket holds afterwards: its text and its files, downloaded byte for byte.

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN, MAIL_SENDER_MAX_PER_HOUR: '100000' });
});
afterAll(async () => {
  await s.close();
});

/** Posts a message that must become a new ticket; returns what the ticket holds. */
async function created(raw: Buffer | string) {
  const res = await postMail(s, raw);
  expect(res.status, res.text).toBe(201);
  return { result: res.body, ...(await keptOf(s, res.body)) };
}
const withFrom = (raw: Buffer) => Buffer.concat([Buffer.from('From: Corpus <corpus@customer.example>\r\n'), raw]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

// ---- HTML-only bodies inside any multipart, in 27 charsets ------------------------------------

const SAMPLES: Record<string, string> = {
  'utf-8': 'Grüße — 打印机 — Привет — 😀',
  'iso-8859-1': 'Grüße aus Köln, der Drucker ist kaputt: ÄÖÜß',
  'iso-8859-2': 'Zażółć gęślą jaźń, drukarka nie działa',
  'iso-8859-5': 'Привет, принтер не работает',
  'iso-8859-6': 'الطابعة لا تعمل',
  'iso-8859-7': 'Ο εκτυπωτής δεν λειτουργεί',
  'iso-8859-8': 'המדפסת לא עובדת',
  'iso-8859-9': 'Yazıcı çalışmıyor, lütfen yardım edin ğüşöç',
  'iso-8859-13': 'Spausdintuvas neveikia ąčęėįšųūž',
  'iso-8859-15': "Le prix est de 10 € pour l'œuvre",
  'windows-1250': 'Tiskárna nefunguje, příliš žluťoučký kůň',
  'windows-1251': 'Принтер не работает, ёлка',
  'windows-1252': 'Café “naïve” – déjà vu …',
  'windows-1253': 'Ο εκτυπωτής δεν λειτουργεί ΆΈΉ',
  'windows-1254': 'Yazıcı çalışmıyor İşĞ',
  'windows-1255': 'המדפסת לא עובדת ₪',
  'windows-1256': 'الطابعة لا تعمل، شكرا',
  'windows-1257': 'Printeris nedarbojas ąčęėįšųūž',
  'windows-1258': 'Xin chào, cám ơn',
  'koi8-r': 'Принтер не работает',
  'koi8-u': 'Принтер не працює, ґанок її є',
  shift_jis: 'プリンターが動きません',
  'euc-jp': 'プリンターが動きません、助けてください',
  gb18030: '打印机坏了，请帮忙',
  big5: '印表機壞了，請幫忙',
  'euc-kr': '프린터가 작동하지 않습니다',
  'windows-874': 'เครื่องพิมพ์เสีย',
};
const ENCODINGS = ['base64', 'quoted-printable', '8bit'] as const;

function htmlPart(charset: string, text: string, cte: (typeof ENCODINGS)[number]): Buffer {
  const bytes = iconv.encode(
    `<html><head><meta charset="${charset}"><style>p { margin: 0 }</style></head><body><p>${text}</p><p>&copy; Kunde&nbsp;GmbH</p></body></html>`,
    charset,
  );
  const body =
    cte === 'base64'
      ? Buffer.from(base64Lines(bytes))
      : cte === 'quoted-printable'
        ? Buffer.from(
            [...bytes]
              .map((b) =>
                b >= 33 && b <= 126 && b !== 61
                  ? String.fromCharCode(b)
                  : `=${b.toString(16).toUpperCase().padStart(2, '0')}`,
              )
              .join('')
              .replace(/.{72}/g, '$&=\r\n'),
            'latin1',
          )
        : bytes;
  return entity({ 'Content-Type': `text/html; charset="${charset}"`, 'Content-Transfer-Encoding': cte }, body);
}

describe('an HTML-only body inside any multipart is the text, and the HTML is kept as a file (27 charsets)', () => {
  it('has 27 charsets whose sample text survives encoding', () => {
    expect(Object.keys(SAMPLES)).toHaveLength(27);
    for (const [cs, text] of Object.entries(SAMPLES)) expect(iconv.decode(iconv.encode(text, cs), cs), cs).toBe(text);
  });

  const shapes: Record<string, (html: Buffer) => Buffer> = {
    'multipart/mixed with an HTML part and a PDF': (html) =>
      entity(
        { 'Content-Type': 'multipart/mixed; boundary="mx"' },
        multipart('mx', [
          html,
          entity(
            {
              'Content-Type': 'application/pdf; name="invoice.pdf"',
              'Content-Disposition': 'attachment; filename="invoice.pdf"',
              'Content-Transfer-Encoding': 'base64',
            },
            base64Lines(PDF),
          ),
        ]),
      ),
    'multipart/related with an inline image': (html) =>
      entity(
        { 'Content-Type': 'multipart/related; boundary="rel"' },
        multipart('rel', [
          html,
          entity(
            {
              'Content-Type': 'image/png',
              'Content-ID': '<logo@x>',
              'Content-Disposition': 'inline',
              'Content-Transfer-Encoding': 'base64',
            },
            base64Lines(PNG),
          ),
        ]),
      ),
    'a bare multipart/mixed holding only HTML': (html) =>
      entity({ 'Content-Type': 'multipart/mixed; boundary="only"' }, multipart('only', [html])),
  };

  for (const [shape, build] of Object.entries(shapes)) {
    it(shape, async () => {
      const failures: string[] = [];
      for (const [i, [cs, text]] of Object.entries(SAMPLES).entries()) {
        const message = build(htmlPart(cs, text, ENCODINGS[i % 3]));
        const head = Object.entries(envelope({ Subject: `HTML in ${cs}` }))
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('');
        const kept = await created(Buffer.concat([Buffer.from(head), message]));
        const html = kept.files.find((f) => f.filename === 'message.html');
        if (!kept.body.includes(text) || !kept.body.includes('© Kunde GmbH') || /<\/?p>|margin/.test(kept.body))
          failures.push(`${cs}: text ${JSON.stringify(kept.body)}`);
        if (!html || !html.content.toString('utf8').includes(text) || html.content_type !== 'text/html; charset=utf-8')
          failures.push(`${cs}: no message.html`);
        if (
          shape.includes('PDF') &&
          sha256(kept.files.find((f) => f.filename === 'invoice.pdf')?.content ?? '') !== sha256(PDF)
        )
          failures.push(`${cs}: PDF`);
        if (
          shape.includes('image') &&
          sha256(kept.files.find((f) => f.filename === 'image-1.png')?.content ?? '') !== sha256(PNG)
        )
          failures.push(`${cs}: image`);
      }
      expect(failures).toEqual([]);
    });
  }
});

// ---- broken structure still gives its text ------------------------------------------------------

describe('broken structure still gives its text', () => {
  it('a single-part text/html with a stray boundary parameter (CPython msg_40) keeps its whole body', async () => {
    const kept = await created(withFrom(corpus('python/msg_40.txt')));
    // As a browser shows that HTML: its words, the lines run together (CPython reads the same body).
    expect(kept.body).toBe(
      '----961284236552522269 Content-Type: text/html; Content-Transfer-Encoding: 7Bit ----961284236552522269--',
    );
    expect(kept.files.map((f) => f.filename)).toEqual(['message.html']);
  });

  it('an unknown Content-Transfer-Encoding (`text/html`) leaves the text as it came', async () => {
    const kept = await created(
      entity(
        { ...envelope(), 'Content-Type': 'text/plain; charset=utf-8', 'Content-Transfer-Encoding': 'text/html' },
        'Die Rechnung für März fehlt.\r\n',
      ),
    );
    expect(kept.body).toBe('Die Rechnung für März fehlt.');
  });

  it('text labelled base64 that is not base64 is kept as written (enmime mime-bad-content-transfer-encoding)', async () => {
    const kept = await created(corpus('enmime/mail__mime-bad-content-transfer-encoding.raw'));
    expect(kept.body).toMatch(/^ploozdect {2}nispplul swunkglap zarplontruskdremp fruftsist\nploystoov/);
  });

  it('`Content-Type: text` (no subtype) is text/plain; so is an unreadable type (`<html>`, enmime empty-ctype-bad-content)', async () => {
    const kept = await created(
      entity(
        { ...envelope(), 'Content-Type': 'text', 'Content-Transfer-Encoding': '7bit' },
        'Plain words without a subtype.\r\n',
      ),
    );
    expect(kept.body).toBe('Plain words without a subtype.');
    const odd = await created(withFrom(corpus('enmime/parts__empty-ctype-bad-content.raw')));
    expect(odd.body).toContain('Use the View Invoices function or locate the account on the List of Accounts table.');
    expect(odd.files).toEqual([]);
  });

  it('separators that never match the declared boundary (CPython msg_31): all the text is kept', async () => {
    const kept = await created(withFrom(corpus('python/msg_31.txt')));
    expect(kept.body).toContain('message 1');
    expect(kept.body).toContain('message 2');
  });

  it('a part cut off without its closing boundary (enmime multimixed-no-closing-boundary) keeps its text and file', async () => {
    const kept = await created(withFrom(corpus('enmime/parts__multimixed-no-closing-boundary.raw')));
    expect(kept.body.length).toBeGreaterThan(0);
    expect(kept.body).not.toMatch(/^--/m);
  });

  it('headers that run into the text without a blank line (CPython msg_35): the text starts at the first non-header line', async () => {
    const kept = await created(corpus('python/msg_35.txt'));
    expect(kept.body).toBe("counter to RFC 2822, there's no separating newline here");
  });

  it('a part whose headers run into its text without a blank line (CPython msg_47) keeps that text', async () => {
    const kept = await created(
      Buffer.from(
        [
          ...Object.entries(envelope({ 'Content-Type': 'multipart/mixed; boundary=foo' })).map(
            ([k, v]) => `${k}: ${v}`,
          ),
          '',
          '--foo',
          'Content-Type: text/plain',
          'The printer on floor 3 is jammed again.',
          '',
          '--foo',
          'Content-Type: text/html',
          '<html><body><p>It smokes, too.</p></body></html>',
          '',
          '--foo--',
          '',
        ].join('\r\n'),
      ),
    );
    expect(kept.body).toBe('The printer on floor 3 is jammed again.\n\nIt smokes, too.');
    expect(kept.files.map((f) => f.filename)).toEqual(['message.html']);
  });

  it('delimiter lines followed by spaces or tabs (RFC 2046 transport padding) still separate the parts', async () => {
    const kept = await created(
      Buffer.concat([
        entity({ ...envelope(), 'Content-Type': 'multipart/mixed; boundary="pad"' }, ''),
        Buffer.from('--pad  \t\r\n'),
        entity({ 'Content-Type': 'text/plain' }, 'The invoice is attached.\r\n'),
        Buffer.from('--pad\t\r\n'),
        entity(
          { 'Content-Type': 'application/pdf; name="invoice.pdf"', 'Content-Transfer-Encoding': 'base64' },
          `${base64Lines(PDF)}\r\n`,
        ),
        Buffer.from('--pad-- \r\n'),
      ]),
    );
    expect(kept.body).toBe('The invoice is attached.');
    expect(kept.files.map((f) => [f.filename, sha256(f.content)])).toEqual([['invoice.pdf', sha256(PDF)]]);
  });

  it("a nested multipart that never closes ends at its parent's next delimiter: the later parts are kept", async () => {
    const kept = await created(
      Buffer.concat([
        entity({ ...envelope(), 'Content-Type': 'multipart/mixed; boundary="outer"' }, ''),
        Buffer.from('--outer\r\n'),
        entity({ 'Content-Type': 'multipart/alternative; boundary="inner"' }, ''),
        Buffer.from('--inner\r\n'),
        entity({ 'Content-Type': 'text/plain' }, 'See the log.\r\n'),
        Buffer.from('--outer\r\n'),
        entity({ 'Content-Type': 'text/plain; name="server.log"' }, 'ERROR disk full\r\n'),
        Buffer.from('--outer--\r\n'),
      ]),
    );
    expect(kept.body).toBe('See the log.');
    expect(kept.files.map((f) => [f.filename, f.content.toString()])).toEqual([['server.log', 'ERROR disk full']]);
  });
});

// ---- parts that are files ----------------------------------------------------------------------

describe('inline parts that are files are files, not text', () => {
  it('an inline server.log and an inline .html are attachments; the text is only the message', async () => {
    const log = 'ERROR 2026-11-20 db timeout\nWARN retrying\n';
    const report = '<html><body><h1>Report</h1></body></html>';
    const kept = await created(
      entity(
        { ...envelope(), 'Content-Type': 'multipart/mixed; boundary="in"' },
        multipart('in', [
          entity({ 'Content-Type': 'text/plain; charset=utf-8' }, 'The log is attached inline.'),
          entity({ 'Content-Type': 'text/plain; name="server.log"', 'Content-Disposition': 'inline' }, log),
          entity({ 'Content-Type': 'text/html', 'Content-Disposition': 'inline; filename="report.html"' }, report),
        ]),
      ),
    );
    expect(kept.body).toBe('The log is attached inline.');
    expect(kept.files.map((f) => [f.filename, f.content.toString()])).toEqual([
      ['server.log', log],
      ['report.html', report],
    ]);
  });

  it('an RFC 2231 continued filename (RT rfc2231-attachment-filename-continuations) keeps its name', async () => {
    const kept = await created(corpus('rt/rfc2231-attachment-filename-continuations'));
    expect(kept.files.map((f) => f.filename)).toEqual(['新しいテキスト ドキュメント.txt']);
    expect(kept.body).toBe('Some data in a file');
  });

  it('an inline image without a name (Apple Mail: Content-Location only) is kept as image-1.png', async () => {
    const kept = await created(
      entity(
        { ...envelope(), 'Content-Type': 'multipart/related; boundary="apple"; type="text/html"' },
        multipart('apple', [
          entity(
            { 'Content-Type': 'text/html; charset=us-ascii' },
            '<html><body><div>See the screenshot:</div><img src="screen.png"></body></html>',
          ),
          entity(
            { 'Content-Type': 'image/png', 'Content-Location': 'screen.png', 'Content-Transfer-Encoding': 'base64' },
            base64Lines(PNG),
          ),
          entity({ 'Content-Type': 'image/png', 'Content-Transfer-Encoding': 'base64' }, base64Lines(PNG)),
        ]),
      ),
    );
    expect(kept.body).toBe('See the screenshot:');
    expect(kept.files.map((f) => [f.filename, f.content_type, sha256(f.content)])).toEqual([
      ['message.html', 'text/html; charset=utf-8', expect.any(String)],
      ['image-1.png', 'image/png', sha256(PNG)],
      ['image-2.png', 'image/png', sha256(PNG)],
    ]);
  });

  it('a uuencoded file in the text (RT notes-uuencoded) is extracted; the text keeps the rest', async () => {
    const kept = await created(corpus('rt/notes-uuencoded'));
    const jpg = kept.files.find((f) => f.filename === 'Naz_Head.jpg')!;
    expect(jpg.content_type).toBe('image/jpeg');
    expect(jpg.content.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(jpg.content.length).toBe(104846);
    expect(kept.body).toContain('(See attached file: Naz_Head.jpg)');
    expect(kept.body).not.toMatch(/^begin 644|^M[\x20-\x60]{60}$/m);
  });

  it('a part sent with Content-Transfer-Encoding x-uuencode or uuencode is the decoded file, not its `begin 644` text', async () => {
    for (const cte of ['x-uuencode', 'uuencode']) {
      const kept = await created(
        entity(
          { ...envelope(), 'Content-Type': 'multipart/mixed; boundary="uu"' },
          multipart('uu', [
            entity({ 'Content-Type': 'text/plain' }, 'The scan is attached.'),
            entity(
              { 'Content-Type': 'application/pdf; name="scan.pdf"', 'Content-Transfer-Encoding': cte },
              uuencode('scan.pdf', PDF),
            ),
          ]),
        ),
      );
      expect(kept.body, cte).toBe('The scan is attached.');
      expect(
        kept.files.map((f) => [f.filename, f.content_type, sha256(f.content)]),
        cte,
      ).toEqual([['scan.pdf', 'application/pdf', sha256(PDF)]]);
    }
  });

  it('a part empty but for the line break before the next delimiter is an empty file, not one byte', async () => {
    const kept = await created(
      Buffer.from(
        [
          ...Object.entries(envelope({ 'Content-Type': 'multipart/mixed; boundary="e"' })).map(
            ([k, v]) => `${k}: ${v}`,
          ),
          '',
          '--e',
          'Content-Type: text/plain; name="empty.txt"',
          '',
          '',
          '--e',
          'Content-Type: text/plain; name="one-line.txt"',
          '',
          '',
          '',
          '--e',
          'Content-Type: text/plain',
          '',
          'Two files, one of them empty.',
          '--e--',
          '',
        ].join('\r\n'),
      ),
    );
    expect(kept.body).toBe('Two files, one of them empty.');
    expect(kept.files.map((f) => [f.filename, f.content.toString()])).toEqual([
      ['empty.txt', ''],
      ['one-line.txt', '\r\n'],
    ]);
  });

  it('a forwarded message/rfc822 part is kept whole as an .eml file (RT email-file-attachment.eml)', async () => {
    const raw = corpus('rt/email-file-attachment.eml');
    const kept = await created(raw);
    expect(kept.body).toBe('This is a test with an email file attachment.');
    const eml = kept.files.find((f) => f.content_type === 'message/rfc822')!;
    expect(eml.filename).toBe('test-email.eml');
    expect(raw.includes(eml.content)).toBe(true);
    expect(eml.content.toString()).toMatch(/^Subject: test-email|Subject: /m);
  });
});

// ---- headers --------------------------------------------------------------------------------

describe('headers as people and servers really write them', () => {
  it('two Return-Path headers with addresses are human mail: a ticket and its autoreply', async () => {
    const raw = entity(
      { 'Return-Path': '<carla.rossi@customer.example>', ...envelope(), 'Content-Type': 'text/plain' },
      'Still broken.\r\n',
    );
    const twice = Buffer.concat([Buffer.from('Return-Path: <bounces@relay.customer.example>\r\n'), raw]);
    const res = await postMail(s, twice);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ verdict: 'created', rule: 'new ticket; default queue General' });
    const outbox = (await get(s, `/outbox?ticket_id=${res.body.ticket_id}`)).outbox as any[];
    expect(outbox.filter((o) => o.kind === 'email' && o.audience === 'customer').map((o) => o.recipient)).toEqual([
      'carla.rossi@customer.example',
    ]); // the autoreply
  });

  it('only `Return-Path: <>` is the empty return path', async () => {
    const res = await postMail(
      s,
      entity({ 'Return-Path': '<>', ...envelope(), 'Content-Type': 'text/plain' }, 'A bounce of sorts.\r\n'),
    );
    expect(res.body).toMatchObject({ verdict: 'ignored_auto', rule: 'empty Return-Path' });
  });

  it('of two Subject headers the first counts; RFC 5322 comments in From resolve to the address', async () => {
    const raw = Buffer.concat([
      Buffer.from(
        'Subject: The first subject\r\nFrom: Pete(A wonderful \\) chap) <pete(his account)@silly.test(his host)>\r\nSubject: The second subject\r\n',
      ),
      entity({ To: 'support@helpdesk.example', 'Message-ID': '<comments.1@silly.test>' }, 'Hi.\r\n'),
    ]);
    const res = await postMail(s, raw);
    expect(res.status, res.text).toBe(201);
    expect((await get(s, `/tickets/${res.body.ticket_id}`)).subject).toBe('The first subject');
    const users = (await get(s, '/users')).users as any[];
    expect(users.find((u) => u.email === 'pete@silly.test')).toMatchObject({ name: 'Pete', role: 'requester' });
    expect(users.filter((u) => /silly\.test\(|\)@/.test(u.email))).toEqual([]);
  });
});

// ---- threading ----------------------------------------------------------------------------

describe('threading finds the ticket', () => {
  let ticket: number;
  let firstId: string;
  beforeAll(async () => {
    const head = envelope({ Subject: 'Threading anchor', 'Content-Type': 'text/plain' });
    firstId = head['Message-ID'];
    ticket = (await postMail(s, entity(head, 'First.\r\n'))).body.ticket_id;
  });

  it('References with the ids run together (`<a@x><b@y>`)', async () => {
    const res = await postMail(
      s,
      entity(
        envelope({
          Subject: 'Re: something else',
          References: `<unknown.1@elsewhere.example>${firstId}`,
          'Content-Type': 'text/plain',
        }),
        'Second.\r\n',
      ),
    );
    expect(res.body).toMatchObject({ verdict: 'appended', ticket_id: ticket, rule: `ticket by References ${firstId}` });
  });

  it('In-Reply-To with several ids run together', async () => {
    const res = await postMail(
      s,
      entity(
        envelope({
          Subject: 'Re: x',
          'In-Reply-To': `${firstId}<other@elsewhere.example>`,
          'Content-Type': 'text/plain',
        }),
        'Third.\r\n',
      ),
    );
    expect(res.body).toMatchObject({ verdict: 'appended', ticket_id: ticket });
  });

  it('a subject tag typed by hand: no space, any case', async () => {
    for (const tag of [`[hxdesk#${ticket}]`, `[HXDESK#${ticket}]`, `[Hxdesk # ${ticket}]`]) {
      const res = await postMail(
        s,
        entity(envelope({ Subject: `Re: ${tag} the printer`, 'Content-Type': 'text/plain' }), 'More.\r\n'),
      );
      expect(res.body, tag).toMatchObject({
        verdict: 'appended',
        ticket_id: ticket,
        rule: `ticket by subject tag #${ticket}`,
      });
    }
  });
});

// ---- webhook form fields carry bytes ----------------------------------------------------------

describe('Mailgun body-mime and SendGrid email are the raw bytes of the message', () => {
  const sjis = entity(
    {
      ...envelope({ Subject: 'Shift_JIS' }),
      'Content-Type': 'text/plain; charset=Shift_JIS',
      'Content-Transfer-Encoding': '8bit',
    },
    iconv.encode('プリンターが動きません\r\n', 'shift_jis'),
  );
  const cases: [string, () => Buffer][] = [
    ['ISO-8859-1 (RT new-ticket-from-iso-8859-1)', () => corpus('rt/new-ticket-from-iso-8859-1')],
    ['Shift_JIS', () => sjis],
  ];

  const formData = (field: string, raw: Buffer) =>
    Buffer.concat([
      Buffer.from(
        `--hx\r\nContent-Disposition: form-data; name="recipient"\r\n\r\nsupport@helpdesk.example\r\n--hx\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n`,
      ),
      raw,
      Buffer.from('\r\n--hx--\r\n'),
    ]);
  const urlencoded = (field: string, raw: Buffer) =>
    `${field}=${[...raw].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`;
  const descriptionOf = async (res: { status: number; text: string; body: any }) => {
    expect(res.status, res.text).toBe(201);
    return (await get(s, `/tickets/${res.body.ticket_id}`)).description as string;
  };

  for (const [name, make] of cases) {
    it(`${name}: the same text as the message posted raw`, async () => {
      const asRaw = await descriptionOf(await postMail(s, make()));
      expect(asRaw).toMatch(name.startsWith('ISO') ? /Håvard/ : /^プリンターが動きません$/);
      // Each delivery is a new message to hxdesk: vary the Message-ID so it is not a duplicate.
      const again = () =>
        Buffer.from(
          make()
            .toString('latin1')
            .replace(/^Message-I[Dd]: *<([^>]+)>/m, (_m, id) => `Message-ID: <${id}.${Math.random()}>`),
          'latin1',
        );
      for (const [label, post] of [
        [
          'Mailgun body-mime (multipart)',
          () =>
            postMail(s, '', { contentType: 'multipart/form-data; boundary=hx', body: formData('body-mime', again()) }),
        ],
        [
          'SendGrid email (multipart)',
          () => postMail(s, '', { contentType: 'multipart/form-data; boundary=hx', body: formData('email', again()) }),
        ],
        [
          'body-mime (urlencoded)',
          () =>
            postMail(s, '', {
              contentType: 'application/x-www-form-urlencoded',
              body: urlencoded('body-mime', again()),
            }),
        ],
      ] as const) {
        expect(await descriptionOf(await post()), label).toBe(asRaw);
      }
    });
  }

  it('a form without a boundary is 415, a form that does not parse 400, never a 500', async () => {
    expectError(
      await postMail(s, '', { contentType: 'multipart/form-data', body: 'x' }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await postMail(s, '', {
        contentType: 'multipart/form-data; boundary=zz',
        body: '--yy\r\nContent-Disposition: form-data; name="email"\r\n\r\nx',
      }),
      400,
      'invalid_json',
    );
    expectError(
      await postMail(s, '', {
        contentType: 'multipart/form-data; boundary=zz',
        body: '--zz\r\nContent-Disposition: form-data; name="email"\r\n\r\nFrom: a@b.example\r\n\r\nx',
      }),
      400,
      'invalid_json',
    );
  });
});
