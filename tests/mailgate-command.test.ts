import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';
import { get, ticketsTitled, totals } from './helpers/mail.js';
import { message, runMailgate, type MailgateRun } from './helpers/mailgate.js';
import { freePort } from './helpers/net.js';

// `hxdesk-mailgate` (SPEC C1, decision 015) run as a real process with a message piped into it,
// against a real hxdesk: its exit status is what an MTA acts on — 0 delivered or duplicate,
// 65 bounce (hxdesk refused the message itself), 75 keep and retry (everything else).

const TOKEN = 'mailgate-command-secret-0123456789';
const EX_OK = 0;
const EX_DATAERR = 65;
const EX_TEMPFAIL = 75;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mailgate-'));
const tokenFile = path.join(dir, 'mailgate-token');
fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });

const servers: TestServer[] = [];
async function server(env: Record<string, string> = {}) {
  const s = await startServer(env);
  servers.push(s);
  return s;
}
const peers: (http.Server | net.Server)[] = [];
afterAll(async () => {
  for (const p of peers) p.close();
  for (const s of servers) await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The intake entries of one Message-ID (newest first). */
async function intakeOf(s: TestServer, messageId: string) {
  return ((await get(s, '/mail/intake?limit=500')).intake as any[]).filter((e) => e.message_id === messageId);
}
/** What /mailgate itself answers for `raw` (the B5 error the command must pass on). */
async function answerOf(s: TestServer, raw: string | Buffer) {
  return s.api('POST', '/mailgate', {
    token: TOKEN,
    headers: { 'content-type': 'message/rfc822' },
    body: raw as string,
  });
}
function expectExit(run: MailgateRun, code: number) {
  expect(run.code, `stderr: ${run.stderr}`).toBe(code);
  expect(run.stdout).toBe('');
  // The command reads the whole message before it exits, whatever the answer: the MTA never sees a broken pipe.
  expect(run.stdinError).toBeNull();
}
const gate = (s: { url: string }, ...more: string[]) => ['--url', s.url, '--token-file', tokenFile, ...more];

/** A stand-in web server that answers every request with `status` and `body` (as a proxy or another service would). */
async function standIn(status: number, body: string, type = 'application/json'): Promise<{ url: string }> {
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': type, 'retry-after': '60' });
      res.end(body);
    });
  });
  peers.push(srv);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}` };
}

describe('hxdesk-mailgate against a running hxdesk', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await server({ MAILGATE_TOKEN: TOKEN });
  });

  it('delivers a message: exit 0, silent, and the ticket exists with the sender as requester', async () => {
    const m = message({ from: 'Ann Example <ann@customer.test>' });
    const run = await runMailgate(gate(s), m.raw);
    expectExit(run, EX_OK);
    expect(run.stderr).toBe('');
    const [ticket, ...others] = await ticketsTitled(s, m.subject);
    expect(others).toEqual([]);
    expect(ticket.description).toContain('It is on the floor again.');
    expect((await get(s, `/users/${ticket.requester_id}`)).email).toBe('ann@customer.test');
    expect(await intakeOf(s, m.messageId)).toMatchObject([
      { verdict: 'created', source: 'mailgate', ticket_id: ticket.id },
    ]);
  });

  it('a duplicate (the MTA delivers the same message again) is exit 0 and changes nothing', async () => {
    const m = message();
    expectExit(await runMailgate(gate(s), m.raw), EX_OK);
    const before = await totals(s);
    const again = await runMailgate(gate(s), m.raw);
    expectExit(again, EX_OK);
    expect(again.stderr).toBe('');
    expect(await totals(s)).toEqual(before);
    expect(await ticketsTitled(s, m.subject)).toHaveLength(1);
    expect(await intakeOf(s, m.messageId)).toHaveLength(1);
  });

  it('sends the bytes as they are: an 8-bit ISO-8859-1 body arrives as the same text', async () => {
    const m = message({ body: '' });
    const raw = Buffer.concat([
      Buffer.from(
        m.raw
          .replace('charset=utf-8', 'charset=iso-8859-1')
          .replace('MIME-Version: 1.0\n', 'MIME-Version: 1.0\nContent-Transfer-Encoding: 8bit\n'),
        'latin1',
      ),
      Buffer.from('Gr\xfc\xdfe aus K\xf6ln\n', 'latin1'),
    ]);
    expectExit(await runMailgate(gate(s), raw), EX_OK);
    const [ticket] = await ticketsTitled(s, m.subject);
    expect(ticket.description).toContain('Grüße aus Köln');
  });

  it('drops a leading mbox "From sender date" line (Exim\'s pipe default, Postfix local commands)', async () => {
    const m = message();
    const run = await runMailgate(gate(s), `From ann@customer.test  Mon Nov 23 10:00:00 2026\n${m.raw}`);
    expectExit(run, EX_OK);
    const [ticket] = await ticketsTitled(s, m.subject);
    expect(ticket.description).toContain('It is on the floor again.');
  });

  it('--queue picks the queue for mail addressed to no alias; --action comment makes a reply an internal note', async () => {
    const billing = await s.api('POST', '/queues', { body: { name: 'Billing' } });
    expect(billing.status, billing.text).toBe(201);
    const m = message({ to: 'nobody@elsewhere.test' });
    expectExit(await runMailgate(gate(s, '--queue', 'Billing'), m.raw), EX_OK);
    const [ticket] = await ticketsTitled(s, m.subject);
    expect(ticket.queue_id).toBe(billing.body.id);

    const reply = message({
      subject: `Re: [hxdesk #${ticket.id}] ${m.subject}`,
      body: 'Forwarded from the accounts team.\n',
    });
    expectExit(await runMailgate(gate(s, '--action', 'comment'), reply.raw), EX_OK);
    const txs = (await get(s, `/tickets/${ticket.id}/transactions`)).transactions as any[];
    expect(txs.map((t) => t.type)).toEqual(['Create', 'Comment']);
    expect(txs[1].body).toContain('Forwarded from the accounts team.');
  });

  it('reads the token from MAILGATE_TOKEN when no --token-file is given', async () => {
    const m = message();
    expectExit(await runMailgate(['--url', s.url], m.raw, { MAILGATE_TOKEN: TOKEN }), EX_OK);
    expect(await ticketsTitled(s, m.subject)).toHaveLength(1);
  });

  it('takes the URL from HXDESK_URL, and a URL that already ends in /mailgate as it is', async () => {
    const a = message();
    expectExit(await runMailgate(['--token-file', tokenFile], a.raw, { HXDESK_URL: `${s.url}/` }), EX_OK);
    const b = message();
    expectExit(await runMailgate(['--url', `${s.url}/mailgate`, '--token-file', tokenFile], b.raw), EX_OK);
    expect(await ticketsTitled(s, a.subject)).toHaveLength(1);
    expect(await ticketsTitled(s, b.subject)).toHaveLength(1);
  });

  it("malformed mail (422) is exit 65 with hxdesk's reason on stderr, and nothing is stored", async () => {
    const raw = 'this is not an e-mail at all\n';
    const answer = await answerOf(s, raw);
    expect(answer.status).toBe(422);
    const before = await totals(s);
    const run = await runMailgate(gate(s), raw);
    expectExit(run, EX_DATAERR);
    expect(run.stderr).toBe(
      `hxdesk-mailgate: hxdesk rejected the message (422 validation_failed: ${answer.body.error.message})\n`,
    );
    expect(await totals(s)).toEqual(before);
  });

  it("a wrong token (401) is exit 75, never a bounce: the admin's mistake keeps the mail queued", async () => {
    const wrong = path.join(dir, 'wrong-token');
    fs.writeFileSync(wrong, 'not-the-mailgate-token-at-all\n', { mode: 0o600 });
    const before = await totals(s);
    const run = await runMailgate(['--url', s.url, '--token-file', wrong], message().raw);
    expectExit(run, EX_TEMPFAIL);
    expect(run.stderr).toMatch(
      /^hxdesk-mailgate: http:\/\/127\.0\.0\.1:\d+\/mailgate refused the mail gateway's token \(401 unauthenticated: .+\); check --token-file \/ MAILGATE_TOKEN/,
    );
    // No token at all is the same mistake.
    expectExit(await runMailgate(['--url', s.url], message().raw), EX_TEMPFAIL);
    expect(await totals(s)).toEqual(before);
  });

  it("an unknown --queue (422 on path queue) is exit 75: an option the admin wrote, not the sender's fault", async () => {
    const before = await totals(s);
    const run = await runMailgate(gate(s, '--queue', 'No such queue'), message({ to: 'nobody@elsewhere.test' }).raw);
    expectExit(run, EX_TEMPFAIL);
    expect(run.stderr).toMatch(/hxdesk refused an option \(422 validation_failed: .+\); check --queue/);
    // No ticket; the message is kept in the intake log as rejected (and applies once the MTA retries with a right --queue).
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 1 });
  });

  it('a wrong --url path on hxdesk (no /mailgate there) is exit 75', async () => {
    const run = await runMailgate(['--url', `${s.url}/helpdesk`, '--token-file', tokenFile], message().raw);
    expectExit(run, EX_TEMPFAIL);
    expect(run.stderr).toContain(`${s.url}/helpdesk/mailgate`);
  });

  it('refuses --token (a secret on the command line) with a message, exit 75, and sends nothing', async () => {
    const before = await totals(s);
    for (const args of [['--token', TOKEN], [`--token=${TOKEN}`]]) {
      const run = await runMailgate(['--url', s.url, ...args], message().raw);
      expectExit(run, EX_TEMPFAIL);
      expect(run.stderr).toMatch(
        /^hxdesk-mailgate: refusing --token: .*use --token-file PATH or the MAILGATE_TOKEN environment variable/,
      );
      expect(run.stderr).not.toContain(TOKEN);
    }
    expect(await totals(s)).toEqual(before);
  });

  it('bad options and an unreadable or empty token file are exit 75 with a message naming them', async () => {
    const cases: [string[], RegExp][] = [
      [['--url', s.url, '--token-file', path.join(dir, 'missing')], /cannot read --token-file .*missing: ENOENT/],
      [['--url', s.url, '--token-file', path.join(dir, 'empty')], /--token-file .*empty is empty/],
      [['--url', s.url, '--action', 'forward'], /--action must be correspond or comment, not forward/],
      [['--url', s.url, '--timeout', 'soon'], /--timeout must be a number of seconds/],
      [['--url', 'ftp://127.0.0.1/'], /--url must be http:\/\/ or https:\/\//],
      [['--url', `http://user:${TOKEN}@127.0.0.1:1/`], /--url must not carry credentials/],
      [['--url', s.url, '--bogus'], /Unknown option '--bogus'/],
      [['--url', s.url, 'extra'], /Unexpected argument 'extra'/],
    ];
    fs.writeFileSync(path.join(dir, 'empty'), '\n');
    const before = await totals(s);
    for (const [args, reason] of cases) {
      const run = await runMailgate(args, message().raw);
      expectExit(run, EX_TEMPFAIL);
      expect(run.stderr).toMatch(reason);
    }
    expect(await totals(s)).toEqual(before);
  });

  it('mail from a sender over the hourly brake is exit 0: hxdesk logged it as rejected (a bounce would feed the loop)', async () => {
    const braked = await server({ MAILGATE_TOKEN: TOKEN, MAIL_SENDER_MAX_PER_HOUR: '1' });
    expectExit(await runMailgate(gate(braked), message({ from: 'loop@customer.test' }).raw), EX_OK);
    const second = message({ from: 'loop@customer.test' });
    expectExit(await runMailgate(gate(braked), second.raw), EX_OK);
    expect(await intakeOf(braked, second.messageId)).toMatchObject([{ verdict: 'rejected', ticket_id: null }]);
  });
});

describe('hxdesk-mailgate when hxdesk cannot take the message', () => {
  it('too large (413) is exit 65 with the reason, the rest of stdin is read, nothing is stored', async () => {
    const s = await server({ MAILGATE_TOKEN: TOKEN, MAX_MAIL_BYTES: '65536' });
    const m = message({ body: `${'x'.repeat(76)}\n`.repeat(30_000) }); // ~2.3 MB, streamed
    const answer = await answerOf(s, m.raw);
    expect(answer.status).toBe(413);
    const before = await totals(s);
    const run = await runMailgate(gate(s), m.raw);
    expectExit(run, EX_DATAERR);
    expect(run.stderr).toBe(
      `hxdesk-mailgate: hxdesk rejected the message (413 too_large: ${answer.body.error.message})\n`,
    );
    expect(await totals(s)).toEqual(before);
  });

  it('hxdesk down (connection refused) is exit 75', async () => {
    const port = await freePort();
    // Larger than a pipe's buffer: the command must read it all although it sends none of it.
    const run = await runMailgate(
      ['--url', `http://127.0.0.1:${port}`, '--token-file', tokenFile],
      message({ body: `${'y'.repeat(76)}\n`.repeat(15_000) }).raw,
    );
    expectExit(run, EX_TEMPFAIL);
    expect(run.stderr).toBe(
      `hxdesk-mailgate: cannot reach hxdesk at http://127.0.0.1:${port} (ECONNREFUSED); the MTA will retry\n`,
    );
  });

  it('a server that accepts the connection and never answers is exit 75 after --timeout', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((sock) => {
      sockets.push(sock);
      sock.resume();
    });
    peers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    const run = await runMailgate(['--url', url, '--token-file', tokenFile, '--timeout', '1'], message().raw);
    for (const sock of sockets) sock.destroy();
    expectExit(run, EX_TEMPFAIL);
    expect(run.stderr).toBe(`hxdesk-mailgate: cannot reach hxdesk at ${url} (no answer in time); the MTA will retry\n`);
    expect(sockets.length).toBe(1);
  });

  it('production without MAILGATE_TOKEN (503) is exit 75 and nothing is stored', async () => {
    const off = await server({ NODE_ENV: 'production' });
    const m = message();
    const run = await runMailgate(gate(off), m.raw);
    expectExit(run, EX_TEMPFAIL);
    expect(run.stderr).toMatch(
      /^hxdesk-mailgate: hxdesk cannot take the message now \(503 unavailable: .*MAILGATE_TOKEN.*\); the MTA will retry\n$/,
    );
    expect(await totals(off)).toMatchObject({ tickets: 0, intake: 0 });
  });

  it('429 rate_limited is exit 75 (retried later), as is any 5xx, even without a JSON body', async () => {
    const limited = await standIn(
      429,
      JSON.stringify({ error: { code: 'rate_limited', message: 'Too many messages; try again later' } }),
    );
    const run = await runMailgate(gate(limited), message().raw);
    expectExit(run, EX_TEMPFAIL);
    expect(run.stderr).toBe(
      'hxdesk-mailgate: hxdesk cannot take the message now (429 rate_limited: Too many messages; try again later); the MTA will retry\n',
    );
    const proxy = await standIn(502, '<html><body>Bad Gateway</body></html>', 'text/html');
    const bad = await runMailgate(gate(proxy), message().raw);
    expectExit(bad, EX_TEMPFAIL);
    expect(bad.stderr).toBe(
      'hxdesk-mailgate: hxdesk cannot take the message now (502 Bad Gateway); the MTA will retry\n',
    );
  });

  it('hxdesk dropping the connection mid-upload: asked again with the headers alone, a refusal counts (413 → 65), silence is 75', async () => {
    // A stand-in as hxdesk behaves at its worst: it resets the streamed upload before its answer
    // could be read, and refuses (or, the second time, waits for a body) when asked with the size.
    let waitForBody = false;
    const probes: string[] = [];
    const srv = http.createServer((req, res) => {
      if (req.headers['transfer-encoding'] === 'chunked') {
        req.once('data', () => req.socket.resetAndDestroy());
        return;
      }
      probes.push(String(req.headers['content-length']));
      if (waitForBody) {
        req.resume();
        return;
      }
      res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
      res.end(
        JSON.stringify({
          error: { code: 'too_large', message: 'The message is larger than MAX_MAIL_BYTES (65536 bytes)' },
        }),
      );
    });
    peers.push(srv);
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`;
    const big = Buffer.alloc(4 * 1024 * 1024, 'x');
    const refused = await runMailgate(['--url', url, '--token-file', tokenFile], big);
    expectExit(refused, EX_DATAERR);
    expect(refused.stderr).toBe(
      'hxdesk-mailgate: hxdesk rejected the message (413 too_large: The message is larger than MAX_MAIL_BYTES (65536 bytes))\n',
    );
    waitForBody = true;
    const silent = await runMailgate(['--url', url, '--token-file', tokenFile, '--timeout', '1'], big);
    expectExit(silent, EX_TEMPFAIL);
    expect(silent.stderr).toMatch(
      /^hxdesk-mailgate: cannot reach hxdesk at http:\/\/127\.0\.0\.1:\d+ \((?:ECONNRESET|EPIPE)\); the MTA will retry\n$/,
    );
    expect(probes).toEqual([String(big.length), String(big.length)]);
  });

  it("a 2xx that is not /mailgate's answer (a wrong --url) is exit 75, never taken for delivered", async () => {
    const other = await standIn(200, '<html><body>Welcome to nginx!</body></html>', 'text/html');
    const run = await runMailgate(gate(other), message().raw);
    expectExit(run, EX_TEMPFAIL);
    expect(run.stderr).toMatch(/answered 200 but not as hxdesk's \/mailgate does; check --url/);
    const moved = await standIn(301, '', 'text/plain');
    expectExit(await runMailgate(gate(moved), message().raw), EX_TEMPFAIL);
  });
});
