// `node --import tsx bench/template-bomb.ts [--mib 1] [--times 198]`
// The template bomb of issue 25 (D0 Bounded templates): a sender mails a ticket whose
// description is N MiB of "x" to /mailgate of the real server (compiled, production mode, the
// Node flags of `npm start`); then, each with a fresh peak-RSS mark and /healthz read back to
// back meanwhile:
//   - render: a canned response `{% for i in (1..T) %}{{ ticket.description }}{% endfor %}`
//     rendered for that ticket (GET /responses/:id/render, what the reply box asks);
//   - preview: the same Liquid as a template previewed against the ticket (POST /templates/preview);
//   - scrip: a public reply by the admin, which runs a scrip mailing the requester that Liquid
//     (POST /tickets/:id/comment; the outbox row it wrote, if any, is measured afterwards).
// Prints one JSON line per request and a Markdown table. Nothing here asserts: it measures.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { root, startFlags, startProductionServer, statusMb } from './server.js';

const { values } = parseArgs({
  options: { mib: { type: 'string', default: '1' }, times: { type: 'string', default: '198' } },
});
const MIB = Number(values.mib);
const TIMES = Number(values.times);
const TOKEN = 'bench-mailgate-token-0123456789';
const ADMIN = { email: 'admin@bench.local', password: 'bench-admin-password' };
const SENDER = 'sender@customers.example';
const LOOP = `{% for i in (1..${TIMES}) %}{{ ticket.description }}{% endfor %}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resets the process's peak RSS (VmHWM) to its current RSS (Linux: clear_refs 5). */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface Measured {
  what: string;
  status: number;
  answer_bytes: number;
  ms: number;
  healthz_max_ms: number;
  healthz_n: number;
  rss_before_mb: number;
  peak_rss_mb: number;
  note: string;
}

/** One request while /healthz is read back to back and the server's RSS is sampled. */
async function measure(url: string, pid: number, what: string, request: () => Promise<Response>): Promise<Measured> {
  await sleep(500);
  const canReset = resetPeak(pid);
  const before = statusMb(pid, 'VmRSS');
  let sampled = before;
  let done = false;
  const health: number[] = [];
  const healthLoop = (async () => {
    while (!done) {
      const t = performance.now();
      try {
        await (await fetch(`${url}/healthz`)).arrayBuffer();
      } catch {
        done = true;
      }
      health.push(performance.now() - t);
      await sleep(5);
    }
  })();
  const rssLoop = setInterval(() => {
    sampled = Math.max(sampled, statusMb(pid, 'VmRSS'));
  }, 10);
  await sleep(30);
  const t0 = performance.now();
  const res = await request();
  const text = await res.text();
  const ms = performance.now() - t0;
  done = true;
  await healthLoop;
  clearInterval(rssLoop);
  let note = '';
  if (res.status >= 400) {
    try {
      note = (JSON.parse(text) as { error: { message: string } }).error.message;
    } catch {
      note = text.slice(0, 120);
    }
  }
  return {
    what,
    status: res.status,
    answer_bytes: Buffer.byteLength(text),
    ms: Math.round(ms),
    healthz_max_ms: Math.round(Math.max(...health)),
    healthz_n: health.length,
    rss_before_mb: Math.round(before),
    peak_rss_mb: Math.round(Math.max(sampled, canReset ? statusMb(pid, 'VmHWM') : 0)),
    note,
  };
}

async function main() {
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: root, stdio: 'inherit' },
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-tplbomb-'));
  const { proc, url } = await startProductionServer(dir, {
    MAILGATE_TOKEN: TOKEN,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  const pid = proc.pid!;
  try {
    const login = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const tokenRes = await fetch(`${url}/tokens`, {
      method: 'POST',
      headers: { cookie, origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const auth = { authorization: `Bearer ${((await tokenRes.json()) as { token: string }).token}` };
    const api = (method: string, p: string, body?: unknown) =>
      fetch(url + p, {
        method,
        headers: { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const ok = async (res: Response) => {
      if (res.status >= 300) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, any>>;
    };

    // The sender's mail: N MiB of text (lines of 1000 "x"), kept whole as the description up to the intake's 1,000,000 characters.
    const text = `${'x'.repeat(998)}\r\n`.repeat(Math.floor((MIB * 1024 * 1024) / 1000));
    const mail =
      `From: Sender <${SENDER}>\r\nTo: support@bench.local\r\nSubject: Big description\r\nMessage-ID: <tplbomb-${Date.now()}@customers.example>\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\n\r\n${text}`;
    const intake = await ok(
      await fetch(`${url}/mailgate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
        body: mail,
      }),
    );
    const ticketId = intake.ticket_id as number;
    const txns = await ok(await api('GET', `/tickets/${ticketId}/transactions`));
    const description = (txns.transactions as { type: string; body: string }[]).find((t) => t.type === 'Create')!.body;
    process.stderr.write(
      `template-bomb: ticket ${ticketId}, description ${description.length} characters; Liquid ${LOOP}\n`,
    );

    const response = await ok(await api('POST', '/responses', { name: 'Bomb', body: LOOP }));
    const template = await ok(
      await api('POST', '/templates', { name: 'Bomb', subject: 'About #{{ ticket.id }}', body: LOOP }),
    );
    await ok(
      await api('POST', '/scrips', {
        key: 'bomb_on_correspond',
        condition: 'on_correspond',
        action: 'notify_requester',
        template_id: template.id,
      }),
    );

    const runs: Measured[] = [];
    runs.push(
      await measure(url, pid, 'render (GET /responses/:id/render)', () =>
        api('GET', `/responses/${response.id}/render?ticket_id=${ticketId}`),
      ),
    );
    runs.push(
      await measure(url, pid, 'preview (POST /templates/preview)', () =>
        api('POST', '/templates/preview', { subject: 'x', body: LOOP, ticket_id: ticketId }),
      ),
    );
    const reply = await measure(url, pid, 'scrip (POST /tickets/:id/comment)', () =>
      api('POST', `/tickets/${ticketId}/comment`, { body: 'We are on it.', internal: false }),
    );
    const outbox = await ok(await api('GET', `/outbox?ticket_id=${ticketId}&limit=500`));
    const rows = outbox.outbox as { scrip_id: number | null; body: string | null }[];
    const bomb = rows.filter((r) => r.body !== null && r.body.length > 100_000);
    const results = (await ok(await api('GET', `/tickets/${ticketId}/transactions`))).transactions.at(-1)
      .scrip_results as { key: string; ok: boolean; error?: string }[];
    const mine = results.find((r) => r.key === 'bomb_on_correspond');
    reply.note = `scrip ok=${mine?.ok}${mine?.error ? ` (${mine.error})` : ''}; outbox rows over 100 kB: ${bomb.length}${bomb.length ? ` (${bomb.map((r) => r.body!.length).join(', ')} characters)` : ''}`;
    runs.push(reply);
    for (const r of runs) process.stdout.write(`${JSON.stringify({ mib: MIB, times: TIMES, ...r })}\n`);
    process.stdout.write(
      [
        '',
        `${MIB} MiB description, \`${LOOP}\`, production server (node ${startFlags().join(' ')} dist/server.js)`,
        '',
        '| request | answer | bytes | ms | /healthz max ms (n) | RSS before → peak MB | note |',
        '|---|---:|---:|---:|---:|---:|---|',
        ...runs.map(
          (r) =>
            `| ${r.what} | ${r.status} | ${r.answer_bytes} | ${r.ms} | ${r.healthz_max_ms} (${r.healthz_n}) | ${r.rss_before_mb} → ${r.peak_rss_mb} | ${r.note.replace(/\|/g, '/')} |`,
        ),
        '',
      ].join('\n'),
    );
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
