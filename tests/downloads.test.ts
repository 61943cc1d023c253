import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/session.js';

// An attachment is whatever a stranger mailed in: an HTML file must never run as our origin.
// Its download keeps its own `Content-Security-Policy: sandbox` (the site-wide policy used to
// overwrite it) and is always `Content-Disposition: attachment`.

let s: TestServer;
let attachmentId: number;
beforeAll(async () => {
  s = await startServer();
  const raw = [
    'From: Mallory <mallory@example.net>',
    'To: support@example.com',
    'Subject: Invoice',
    'Message-ID: <sandbox-1@example.net>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'See attached.',
    '',
    '--b',
    'Content-Type: text/html; name="invoice.html"',
    'Content-Disposition: attachment; filename="invoice.html"',
    '',
    '<script>fetch("/tokens",{method:"POST",body:"{}"})</script>',
    '--b--',
    '',
  ].join('\r\n');
  const res = await s.api('POST', '/mailgate', {
    token: null,
    body: raw,
    headers: { 'content-type': 'message/rfc822' },
  });
  expect(res.status, res.text).toBe(201);
  const history = await s.api('GET', `/tickets/${res.body.ticket_id}/transactions`);
  attachmentId = history.body.transactions[0].attachments[0].id;
  expect(attachmentId).toBeGreaterThan(0);
});
afterAll(async () => {
  await s.close();
});

const SANDBOX = "sandbox; default-src 'none'";

describe('GET /attachments/:id', () => {
  it("sends the sandbox CSP, not the site's, to an API client", async () => {
    const res = await fetch(`${s.url}/attachments/${attachmentId}`, {
      headers: { authorization: `Bearer ${s.adminToken}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(SANDBOX);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="invoice\.html"/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('<script>');
  });

  it('and to a signed-in browser opening the link', async () => {
    const cookie = await signIn(s, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await fetch(`${s.url}/attachments/${attachmentId}`, { headers: { cookie, accept: 'text/html,*/*' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(SANDBOX);
  });

  it('pages keep the site-wide policy', async () => {
    const page = await s.api('GET', '/login', { token: null, headers: { accept: 'text/html' } });
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('sandbox');
  });
});
