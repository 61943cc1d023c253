// Hostile and plausible inputs for the HTTP fuzzer (tests/helpers/fuzz.ts): ids, query strings,
// bodies in every format we accept and some we do not, and raw e-mail for /mailgate. Everything
// is drawn from a seeded generator, so a seed always yields the same requests.

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const GOOD_IDS = ['1', '2', '3', '4', '5', '6', '7', '8', '10', '12'];
const BAD_IDS = [
  '0',
  '-1',
  '1.5',
  '1e3',
  'abc',
  '%00',
  '%ff',
  '%E2%82%AC',
  '99999999999999999999999',
  '9007199254740993',
  '+1',
  '%201',
  '0x10',
  '%D9%A1',
  'a'.repeat(3000),
  '..',
  '%2e%2e',
  'null',
  '[]',
  '%7B%7D',
  '1;DROP',
  '1%0A',
  '%2F',
  '%C0%80',
  '%',
  '%%',
  '%zz',
  '1%00',
  '%F0%9F%92%A5',
  '1/2',
  '007',
  ' '.replace(' ', '%20'),
  '-0',
  'Infinity',
  'NaN',
  '%u0031',
];

/** A path parameter: usually an id that may exist, often garbage. */
export function pathValue(r: Rng, name: string): string {
  if (name === 'role') return r.pick(['requesters', 'cc', 'admin_cc', 'x', '%00']);
  return r.chance(0.6) ? r.pick(GOOD_IDS) : r.pick(BAD_IDS);
}

export const STATIC_NAMES = [
  'app.css',
  'app.js',
  'htmx.min.js',
  '../package.json',
  '%2e%2e/package.json',
  '..%2f..%2fetc%2fpasswd',
  'nope.txt',
  '',
  '%00',
  'a'.repeat(2000),
  'app.css%00.js',
  '.%2e/src/app.tsx',
  '//etc/passwd',
  'app.css?x=1',
  '%ff',
];

const QUERY_KEYS = [
  'queue_id',
  'status',
  'owner_id',
  'q',
  'team_id',
  'ticket_team_id',
  'requester_id',
  'view_id',
  'sort',
  'limit',
  'offset',
  'columns',
  'cf.size',
  'cf.nope',
  'cf.',
  'cf..x',
  'cf.__proto__',
  'next',
  'verdict',
  'role',
  'disabled',
  'ticket_id',
  '_method',
  'a[b]',
  '__proto__',
  'constructor',
  'x',
  'kind',
  '%00',
  '%ff',
  'q%00',
  '',
];
const QUERY_VALUES = [
  '1',
  '2',
  '0',
  '-1',
  'none',
  'new',
  'new,open',
  'open,,',
  '-updated',
  'priority',
  '-id',
  '500',
  '501',
  '1e999',
  'abc',
  '',
  '%ff',
  '%00',
  '%E0%A4%A',
  'a'.repeat(6000),
  '%25',
  '+',
  '%2B',
  'ID,Subject',
  'ID,Nope',
  'true',
  'requester',
  '%u0041',
  '%23123',
  '123',
  '%22%27%3C%3E',
  'printer',
  '%F0%9F%92%A5',
  'x%0Ay',
  '%C3%28',
  '1.5',
  'null',
  '[]',
  '%7B%22a%22%3A1%7D',
  'DELETE',
  'sent',
  'failed',
];

/** A query string (with its `?`), or nothing. Values are raw: bad percent-escapes are the point. */
export function queryString(r: Rng): string {
  if (r.chance(0.5)) return '';
  const n = 1 + r.int(r.chance(0.1) ? 40 : 4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++)
    parts.push(r.chance(0.05) ? r.pick(QUERY_KEYS) : `${r.pick(QUERY_KEYS)}=${r.pick(QUERY_VALUES)}`);
  return `?${parts.join('&')}`;
}

/** Values of the wrong type, size or shape for any field. */
export function hostileValue(r: Rng, depth = 0): unknown {
  const pool: (() => unknown)[] = [
    () => null,
    () => true,
    () => false,
    () => 0,
    () => -1,
    () => 1,
    () => 2,
    () => 1.5,
    () => 1e308,
    () => -1e308,
    () => 2 ** 53 + 1,
    () => '',
    () => ' ',
    () => 'x',
    () => 'a'.repeat(r.pick([200, 10_001, 100_001])),
    () => '\u0000',
    () => 'nul\u0000byte',
    () => '\ud800',
    () => '💥',
    () => '<script>alert(1)</script>',
    () => '{{ ticket.subject }}',
    () => '{% for i in (1..99999999) %}{{i}}{% endfor %}',
    () => '{% if %}',
    () => '{{ x | nope }}',
    () => '../../etc/passwd',
    () => 'new',
    () => 'admin',
    () => 'requester',
    () => 'ID',
    () => 'a@b.c',
    () => 'not-an-email',
    () => '2024-13-45',
    () => '1',
    () => '-1',
    () => 'none',
    () => '(a+)+$',
    () => '[',
    () => '\\',
    () => 'true',
    () => '{"a":1}',
    () => '[1,2]',
    () => 'http://127.0.0.1:9/hook',
    () => 'on_create',
    () => 'notify_webhook',
    () => 'select',
    () => [],
    () => [1, 2],
    () => ['ID', 'Subject'],
    () => ['x', null, {}],
    () => ({}),
    () => ({ a: 1 }),
    () => ({ __proto__: { x: 1 } }),
    () => ({ constructor: { prototype: { polluted: 1 } } }),
  ];
  if (depth < 2 && r.chance(0.05))
    return { [r.pick(['a', 'size', 'ID', 'url', 'status'])]: hostileValue(r, depth + 1) };
  if (depth < 2 && r.chance(0.05)) return [hostileValue(r, depth + 1), hostileValue(r, depth + 1)];
  return r.pick(pool)();
}

/** A value that may pass validation for a field of this name. */
function plausibleValue(r: Rng, field: string): unknown {
  const id = () => r.pick([1, 1, 1, '1', 2, 3]);
  switch (field) {
    case 'email':
      return r.pick(['fuzz@example.com', `f${r.int(1e6)}@example.com`, 'ADMIN@example.com']);
    case 'password':
      return r.pick(['a-long-password-1', 'short', 'admin-password-123']);
    case 'role':
      return r.pick(['admin', 'agent', 'requester']);
    case 'status':
      return r.pick(['new', 'open', 'stalled', 'resolved', 'rejected', 'deleted']);
    case 'priority':
    case 'position':
    case 'sort_order':
      return r.int(120) - 10;
    case 'disabled':
    case 'internal':
    case 'required':
    case 'enabled':
    case 'force':
      return r.pick([true, false, 'on', 'false']);
    case 'columns':
      return r.pick([['ID', 'Subject'], 'ID,Status', ['Queue']]);
    case 'column_widths':
      return r.pick([{ ID: 80 }, { Subject: 49 }, '{"Status":120}']);
    case 'filters':
      return r.pick([
        { status: 'new,open' },
        { q: 'printer' },
        { 'cf.size': 'L' },
        { cf: { size: 'L' } },
        { limit: 0 },
      ]);
    case 'custom_fields':
      return r.pick([{ size: 'L' }, { size: 'XXL' }, { nope: 1 }, '{"size":"M"}']);
    case 'config':
      return r.pick([{ status: 'open' }, { url: 'http://127.0.0.1:9/hook' }, { view_id: 1 }, { view_id: 'x' }, {}]);
    case 'widgets':
      return [{ kind: r.pick(['ticket_list', 'status_counts', 'my_tickets', 'x']), config: { view_id: id() } }];
    case 'kind':
      return r.pick(['ticket_list', 'status_counts', 'queue_counts', 'team_workload', 'my_tickets']);
    case 'condition':
      return r.pick(['on_create', 'on_correspond', 'on_resolve', 'on_nothing']);
    case 'action':
      return r.pick(['notify_requester', 'set_status', 'notify_webhook', 'open_inactive', 'correspond', 'comment']);
    case 'type':
      return r.pick(['text', 'number', 'select', 'date']);
    case 'options':
      return r.pick([['S', 'M', 'L'], 'S,M,L', []]);
    case 'pattern':
      return r.pick(['^[A-Z]+$', '(a+)+$', '[', null]);
    case 'queue_ids':
      return r.pick([[1], '1,2', []]);
    case 'mail_alias':
      return r.pick(['billing@example.com', '', null, 'nope']);
    case 'key':
      return r.pick(['size', `k${r.int(1e6)}`, 'Bad Key']);
    case 'subject':
    case 'body':
    case 'description':
      return r.pick([
        'Printer on fire',
        '{{ ticket.subject }}',
        'Hello [hxdesk #1]',
        '{% for i in (1..ticket.id) %}x{% endfor %}',
        'x',
      ]);
    case 'message':
      return randomMail(r);
    case 'queue':
      return r.pick(['General', '1', 'billing@example.com', 'nope']);
    case 'next':
      return r.pick(['/tickets', '//evil.example', '/\t/x']);
    case 'ids':
      return [1, 2, 3];
    case 'owner_id':
    case 'team_id':
    case 'template_id':
      return r.pick([null, 1, '1', '']);
    default:
      return field.endsWith('_id') ? id() : `fuzz ${r.int(1e6)}`;
  }
}

/** The fields each route's schema knows, so most bodies get past "unknown key" into the domain. */
const FIELDS: [RegExp, string[]][] = [
  [/^\/login$/, ['email', 'password', 'next']],
  [/^\/tokens/, ['name']],
  [/^\/users/, ['email', 'name', 'role', 'password', 'disabled']],
  [/^\/teams\/[^/]+\/members/, ['user_id']],
  [/^\/teams/, ['name', 'description']],
  [/^\/queues/, ['name', 'description', 'mail_alias', 'team_id']],
  [/^\/tickets\/[^/]+\/comment/, ['body', 'internal', 'creator_id']],
  [
    /^\/tickets/,
    [
      'queue_id',
      'subject',
      'description',
      'status',
      'owner_id',
      'team_id',
      'requester_id',
      'priority',
      'custom_fields',
    ],
  ],
  [/^\/custom-fields/, ['key', 'type', 'name', 'options', 'pattern', 'required', 'queue_ids']],
  [/^\/saved-views/, ['name', 'owner_id', 'filters', 'columns', 'column_widths']],
  [/^\/dashboards\/[^/]+\/widgets/, ['kind', 'title', 'config', 'position']],
  [/^\/dashboards/, ['name', 'team_id', 'widgets']],
  [/^\/templates\/preview/, ['subject', 'body', 'ticket_id']],
  [/^\/templates/, ['name', 'description', 'subject', 'body', 'queue_id']],
  [
    /^\/scrips/,
    ['condition', 'action', 'key', 'description', 'template_id', 'queue_id', 'enabled', 'sort_order', 'config'],
  ],
  [/^\/mailgate/, ['message', 'queue', 'action']],
];
const EXTRA_FIELDS = [
  'surprise',
  '_method',
  'a.b',
  'custom_fields.size',
  'column_widths.ID',
  'filters.cf.size',
  '__proto__',
  'constructor',
  'id',
  'created_at',
  'password_hash',
  'x[]',
  '',
  '%00',
  'a'.repeat(300),
];

/**
 * A body object for the route: its own fields, some left out. Most bodies are plausible
 * throughout (to get past validation into the domain), the others carry hostile values and
 * sometimes a field the schema does not know.
 */
export function fieldsFor(r: Rng, path: string): Record<string, unknown> {
  const fields = FIELDS.find(([re]) => re.test(path))?.[1] ?? ['name'];
  const out: Record<string, unknown> = {};
  const plausible = r.chance(0.6);
  fields.forEach((f, i) => {
    // The first fields of each list are the ones a create needs.
    if (plausible) {
      if (i < 3 || r.chance(0.5)) out[f] = plausibleValue(r, f);
    } else if (r.chance(0.7)) out[f] = r.chance(0.6) ? plausibleValue(r, f) : hostileValue(r);
  });
  if (!plausible && r.chance(0.2)) out[r.pick(EXTRA_FIELDS)] = hostileValue(r);
  return out;
}

/** JSON that is not an object of fields: scalars, arrays, deep nesting, broken text. */
export function hostileJsonText(r: Rng): string {
  return r.pick([
    () => 'null',
    () => '1',
    () => '"x"',
    () => '[]',
    () => '[{}]',
    () => '',
    () => ' ',
    () => '{',
    () => '{"a":',
    () => '\ufeff{}',
    () => '{"name":"x"}garbage',
    () => '{"__proto__":{"polluted":1}}',
    () => `${'['.repeat(5000)}${']'.repeat(5000)}`,
    () => `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`,
    () => '{"name":"\\ud800"}',
    () => '{"name":"a\\u0000b"}',
    () => 'NaN',
    () => `{"a":${'9'.repeat(400)}}`,
    () => '{"a":1,"a":2}',
    () => '\u0000',
    () => JSON.stringify({ filters: nest(200) }),
  ])();
}
const nest = (n: number): unknown => (n === 0 ? 1 : { a: nest(n - 1) });

/** Form fields as name=value pairs, with objects flattened to dotted names as a browser form would send them. */
export function formPairs(r: Rng, obj: Record<string, unknown>): [string, string][] {
  const pairs: [string, string][] = [];
  const add = (name: string, v: unknown, depth: number) => {
    if (Array.isArray(v)) for (const item of v) add(name, item, depth);
    else if (v !== null && typeof v === 'object' && depth < 3)
      for (const [k, x] of Object.entries(v)) add(`${name}.${k}`, x, depth + 1);
    else pairs.push([name, v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)]);
  };
  for (const [k, v] of Object.entries(obj)) add(k, v, 0);
  if (r.chance(0.1))
    pairs.push(['_method', r.pick(['PATCH', 'DELETE', 'PUT', 'TRACE', 'CONNECT', 'a b', 'GET', 'post', ''])]);
  if (r.chance(0.05))
    pairs.push([
      Array(r.pick([9, 34, 200]))
        .fill('a')
        .join('.'),
      '1',
    ]);
  return pairs;
}

/** An urlencoded body; now and then with bad escapes and raw bytes no browser would send. */
export function urlencoded(r: Rng, pairs: [string, string][]): string {
  // A lone surrogate cannot be percent-encoded; as UTF-8 it becomes U+FFFD, as a browser sends it.
  const enc = (x: string) => encodeURIComponent(Buffer.from(x, 'utf8').toString('utf8'));
  let body = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  if (r.chance(0.1)) body += r.pick(['&%zz=1', '&a=%E0%A4%A', '&%00=%00', '&&&', '&=', '&a', '&b=%C3%28', '&c=\u00ff']);
  return body;
}

/** A multipart body with the given boundary; sometimes with a file part or cut off. */
export function multipart(r: Rng, pairs: [string, string][], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const [k, v] of pairs)
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k.replace(/"/g, '%22')}"\r\n\r\n${v}\r\n`),
    );
  if (r.chance(0.2)) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${r.pick(['attachments', 'message', 'file'])}"; filename="${r.pick(['a.txt', '', '../x', 'é.pdf'])}"\r\nContent-Type: ${r.pick(['text/plain', 'application/pdf', 'message/rfc822', ''])}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.from(r.chance(0.5) ? randomMail(r) : 'file body \u0000 bytes', 'latin1'), Buffer.from('\r\n'));
  }
  if (!r.chance(0.1)) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Raw e-mail, from plausible to broken: odd headers, charsets, encodings, nesting, uuencode, 8-bit bytes. */
export function randomMail(r: Rng): string {
  const id = () => `<${r.int(1e9)}.${r.pick(['fuzz', 'x', ''])}@${r.pick(['example.com', 'localhost', ''])}>`;
  const headers: string[] = [];
  const h = (name: string, values: string[]) => {
    if (r.chance(0.8)) headers.push(`${name}: ${r.pick(values)}`);
  };
  h('From', [
    'Ann <ann@example.com>',
    'ann@example.com (Ann)',
    '"Bad <bad@example.com>',
    '',
    '=?utf-8?B?w6k=?= <e@example.com>',
    '<>',
    'a@b',
    '@@@',
  ]);
  h('To', ['support@example.com', 'billing@example.com, x@example.com', 'undisclosed-recipients:;', '']);
  h('Cc', ['cc@example.com', '"a,b" <ab@example.com>', ',,,']);
  h('Subject', [
    'Help',
    'Re: [hxdesk #1] Printer',
    '[hxdesk#2] again',
    '=?utf-8?Q?caf=C3=A9?=',
    '=?x-junk?B?!!!?=',
    '',
    'a'.repeat(2000),
  ]);
  h('Message-ID', [id(), id(), '', 'no-brackets@example.com', '<>']);
  h('In-Reply-To', [id(), `${id()}${id()}`, 'garbage']);
  h('References', [`${id()} ${id()}`, `${id()}${id()}`, '<', '']);
  h('Date', ['Mon, 1 Jan 2024 10:00:00 +0000', 'yesterday', '']);
  h('Return-Path', ['<>', '<bounce@example.com>']);
  h('Auto-Submitted', ['auto-replied', 'no', 'junk']);
  h('Precedence', ['bulk', 'list', 'first-class']);
  const boundary = r.pick(['b1', 'x'.repeat(80), '', '"quoted"', 'b 2']);
  const ctype = r.pick([
    'text/plain',
    'text/plain; charset=iso-8859-1',
    'text/plain; charset=x-unknown',
    'text/html',
    'text',
    `multipart/mixed; boundary="${boundary}"`,
    `multipart/alternative; boundary=${boundary}`,
    'multipart/report; report-type=delivery-status; boundary=b1',
    'message/rfc822',
    'application/octet-stream',
    '',
    'multipart/mixed',
  ]);
  headers.push(`Content-Type: ${ctype}`);
  h('Content-Transfer-Encoding', ['base64', 'quoted-printable', '7bit', '8bit', 'x-uuencode', 'x-junk']);
  const text = () =>
    r.pick([
      'Hello\r\n',
      '<p>Hi <b>there</b></p>',
      'begin 644 f.txt\r\n#86)C\r\n`\r\nend\r\n',
      '=E9t=E9 =ZZ\r\n',
      '!!!notbase64!!!',
      '\u00e9\u00ff raw 8-bit\r\n',
      'a'.repeat(r.pick([10, 5000])),
      '',
    ]);
  let body = text();
  if (ctype.startsWith('multipart')) {
    const b = boundary.replace(/"/g, '');
    const part = () =>
      `--${r.chance(0.9) ? b : 'wrong'}\r\nContent-Type: ${r.pick(['text/plain', 'text/html', 'image/png', 'message/rfc822', 'application/pdf; name="a.pdf"'])}\r\n${r.chance(0.3) ? 'Content-Disposition: inline\r\n' : ''}${r.chance(0.3) ? 'Content-Transfer-Encoding: base64\r\n' : ''}\r\n${text()}\r\n`;
    body = `${Array.from({ length: 1 + r.int(4) }, part).join('')}${r.chance(0.8) ? `--${b}--\r\n` : ''}`;
  }
  if (r.chance(0.05)) return body; // no headers at all
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}
