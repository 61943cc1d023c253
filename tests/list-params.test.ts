import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { startServer, type TestServer } from './helpers/server.js';

// Issue 12 §3 / decision 017: no GET /tickets request makes a page much larger than what it
// asks for. `columns=ID,ID,…` (5,000 times) used to render 5,000 columns, each header link
// carrying the whole 15 KB query string: a 252 MB page, for requesters too. Lists of values are
// checked whole (each value once, at most as many as exist), and the list links to itself
// with the checked values — never with the raw query string.

const HTML = { accept: 'text/html' };
const HTMX_REGION = { 'hx-request': 'true', 'hx-target': 'ticket-list' };
const enc = encodeURIComponent;
const count = (text: string, part: string) => text.split(part).length - 1;

let s: TestServer;
let requester: { id: number; token: string };

beforeAll(async () => {
  s = await startServer();
  requester = await s.user('requester');
  for (const key of ['note', 'code']) {
    expect((await s.api('POST', '/custom-fields', { body: { key, name: key, type: 'text' } })).status).toBe(201);
  }
  for (let i = 0; i < 3; i++) {
    const res = await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: `Ticket ${i}`, requester_id: requester.id },
    });
    expect(res.status, res.text).toBe(201);
  }
});
afterAll(async () => {
  await s?.close();
});

describe('columns', () => {
  it('a repeated column is a 422 naming columns, for staff and requesters, in JSON and HTML', async () => {
    for (const token of [undefined, requester.token]) {
      const res = await s.api('GET', '/tickets?columns=ID,Subject,ID', { token });
      expectError(res, 422, 'validation_failed', ['columns']);
      expect(res.body.error.details[0].message).toBe('Each column may appear once');
      const repeated = await s.api('GET', '/tickets?columns=ID&columns=ID', { token });
      expectError(repeated, 422, 'validation_failed', ['columns']);
      const page = await s.api('GET', '/tickets?columns=ID,ID', { token, headers: HTML });
      // A requester's browser is sent to the portal instead (decision 050).
      expect(page.status).toBe(token ? 303 : 422);
      expect(page.text).not.toContain('<table');
    }
  });

  it('3,000 copies of a column (a 9 KB address) are one short 422, not a page', async () => {
    const res = await s.api('GET', `/tickets?columns=${Array(3000).fill('ID').join(',')}`, { headers: HTML });
    expect(res.status).toBe(422);
    expect(res.text.length).toBeLessThan(20_000);
    const json = await s.api('GET', `/tickets?columns=${Array(3000).fill('Nope').join(',')}`);
    expectError(json, 422, 'validation_failed', ['columns']);
    expect(json.body.error.details).toEqual([{ path: 'columns', message: 'Columns: at most 7 values' }]);
    expect(json.text.length).toBeLessThan(500);
  });

  it('an unknown column is a 422 naming it; the seven known ones, each once, are a page of seven columns', async () => {
    const res = await s.api('GET', '/tickets?columns=ID,Colour');
    expectError(res, 422, 'validation_failed', ['columns.1']);
    const all = 'ID,Subject,Status,Queue,Owner,Created,Updated';
    const page = await s.api('GET', `/tickets?columns=${all}`, { headers: HTML });
    expect(page.status).toBe(200);
    expect(count(page.text, '<th scope="col" data-column=')).toBe(7); // (and the row checkboxes' column, SPEC C4)
    expect(count(page.text, '<td class="num">')).toBe(3);
  });
});

/** 101 distinct status names (lower-case letters): one more than a list filter takes. */
const SURPLUS_STATUSES = Array.from(
  { length: 101 },
  (_, i) => `x${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}`,
).join(',');

describe('other list parameters', () => {
  it('a repeated or surplus status, a repeated cf.<key>, q or view_id, and an overlong cf value are 422s naming them', async () => {
    const cases: [string, string, string][] = [
      ['status=open,open', 'status', 'Each status may appear once'],
      ['status=new&status=new', 'status', 'Each status may appear once'],
      // SPEC D3: any status of any lifecycle, at most 100 of them.
      [`status=${SURPLUS_STATUSES}`, 'status', 'Status: at most 100 values'],
      ['cf.note=a&cf.note=b', 'cf.note', 'Note must be one text value'],
      ['q=a&q=b', 'q', 'Search text must be one text value'],
      [`cf.note=${'y'.repeat(201)}`, 'cf.note', 'Note: at most 200 characters'],
      ['view_id=1&view_id=1', 'view_id', 'View must be an id (a positive whole number)'],
    ];
    for (const [query, path, message] of cases) {
      for (const token of [undefined, requester.token]) {
        const res = await s.api('GET', `/tickets?${query}`, { token });
        expectError(res, 422, 'validation_failed', [path]);
        expect(res.body.error.details[0].message, query).toBe(message);
      }
    }
    // Each value once is fine.
    const ok = await s.api('GET', '/tickets?status=new,open,stalled,resolved,rejected,deleted');
    expect(ok.status).toBe(200);
    expect(ok.body.total).toBe(3);
  });
});

describe('the list links to itself with the checked values only', () => {
  it('spaces around q (up to the URL limit) change nothing in the page: links carry the trimmed value', async () => {
    const plain = await s.api('GET', '/tickets?q=zzz', { headers: HTMX_REGION });
    const padded = await s.api('GET', `/tickets?q=${'%20'.repeat(2000)}zzz${'%20'.repeat(2000)}`, {
      headers: HTMX_REGION,
    });
    expect(plain.status).toBe(200);
    expect(padded.status).toBe(200);
    expect(padded.text).toBe(plain.text);
    expect(padded.headers.get('hx-push-url')).toBe('/tickets?q=zzz');
  });

  it('the largest accepted filters appear a bounded number of times, whatever the page shows', async () => {
    // Every value at its limit, of the character that grows most when escaped.
    const q = '"'.repeat(200);
    const cf = '<'.repeat(200);
    const params =
      `q=${enc(q)}&cf.note=${enc(cf)}&cf.code=${enc(cf)}&status=new,open,stalled,resolved,rejected,deleted&sort=-id&limit=1&offset=1` +
      '&columns=ID,Subject,Status,Queue,Owner,Created,Updated';
    const page = await s.api('GET', `/tickets?${params}`, { headers: HTML });
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    // The q in links (URL-encoded), in the search box and the save-view forms (HTML-escaped JSON).
    const inLinks = count(page.text, new URLSearchParams({ q }).toString());
    const escaped = count(page.text, '&quot;'.repeat(200));
    // Sortable headers ID, Status, Queue, Owner, Created, Updated and the pager's Previous: each an href and an hx-get;
    // the bulk form's return_to (SPEC C4: back to this list after a bulk change); and the list
    // region's own query, which its live rows are asked under (SPEC C5).
    expect(inLinks).toBe(16);
    expect(escaped).toBe(1); // the search box; the save-view forms carry it JSON-escaped
    expect(page.text.length).toBeLessThan(60_000);
  });
});
