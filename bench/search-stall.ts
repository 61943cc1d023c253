// node --import tsx bench/search-stall.ts [--mib 5] [--q-len 200] [--parallel 10] [--requester-only]
//
// Can one sender stall the server through search? Starts the real server as `npm start` does
// (compiled to dist/, production mode, the start flags of package.json) on an empty data
// directory, posts N messages of 1 MiB of "x" to /mailgate as one sender, gives that sender
// (a requester) a password, and then runs their search `GET /tickets?q=<"x" x 200>` — once,
// then `--parallel` at once — first as the requester, then as the admin — and, for comparison,
// the same search as the list page asks it (the HTML list region, which shows no descriptions),
// and the same user's list without q (it answers the same tickets, 1 MiB of description each in
// JSON, so it shows what serving the answer costs apart from searching). Meanwhile a client
// asks `/healthz` back to back (what every other user waits) and the server's RSS is sampled.
// Prints one JSON line per run and a Markdown table: request time, /healthz latency p50/max
// while the searches ran, peak RSS during the run (VmHWM, reset before each run).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, startFlags, startProductionServer, statusMb } from './server.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const MIB = Number(arg('mib', '5'));
const Q_LEN = Number(arg('q-len', '200'));
const PARALLEL = Number(arg('parallel', '10'));
const MAILGATE_TOKEN = 'stall-mailgate-token-0123456789';
const ADMIN = { email: 'admin@bench.local', password: 'bench-admin-password' };
const SENDER = { email: 'flood@customers.example', password: 'flood-sender-password' };
/** What the list page's search box asks: the list region as HTML (no descriptions in it). */
const HTML_LIST = { 'hx-request': 'true', 'hx-target': 'ticket-list' };

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
const round = (n: number) => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const startServer = (dataDir: string) =>
  startProductionServer(dataDir, { MAILGATE_TOKEN, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
const status = statusMb;
/** Resets the process's peak RSS (VmHWM) to its current RSS (Linux: clear_refs 5). */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function signIn(url: string, who: { email: string; password: string }): Promise<Record<string, string>> {
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(who),
  });
  if (login.status !== 200) throw new Error(`login ${who.email}: ${login.status} ${await login.text()}`);
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  const res = await fetch(`${url}/tokens`, {
    method: 'POST',
    headers: { cookie, origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'stall' }),
  });
  const { token } = (await res.json()) as { token: string };
  return { authorization: `Bearer ${token}` };
}

interface Run {
  who: string;
  what: string;
  parallel: number;
  statuses: string;
  ms_max: number;
  ms_p50: number;
  healthz_n: number;
  healthz_p50_ms: number;
  healthz_max_ms: number;
  peak_rss_mb: number;
}

/** Fires `n` requests for `target` at once while /healthz is asked back to back and RSS is sampled. */
async function run(
  url: string,
  pid: number,
  who: string,
  auth: Record<string, string>,
  what: string,
  target: string,
  n: number,
): Promise<Run> {
  await sleep(300);
  const canReset = resetPeak(pid);
  let peakSampled = status(pid, 'VmRSS');
  let done = false;
  const health: number[] = [];
  const healthLoop = (async () => {
    while (!done) {
      const s = performance.now();
      try {
        await (await fetch(`${url}/healthz`)).arrayBuffer();
      } catch {
        done = true; // the server is gone
      }
      health.push(performance.now() - s);
      await sleep(2);
    }
  })();
  const rssLoop = setInterval(() => {
    peakSampled = Math.max(peakSampled, status(pid, 'VmRSS'));
  }, 10);
  await sleep(50);
  const searches = await Promise.all(
    Array.from({ length: n }, async () => {
      const s = performance.now();
      try {
        const res = await fetch(url + target, { headers: auth });
        const text = await res.text();
        const body = res.headers.get('content-type')?.includes('html')
          ? `${Math.round(text.length / 1024)} KB HTML`
          : text;
        return { ms: performance.now() - s, status: res.status, body };
      } catch (e) {
        return { ms: performance.now() - s, status: 0, body: String((e as Error).cause ?? e) };
      }
    }),
  );
  await sleep(50);
  done = true;
  await healthLoop;
  clearInterval(rssLoop);
  const peak = canReset ? status(pid, 'VmHWM') : 0;
  const times = searches.map((x) => x.ms).sort((a, b) => a - b);
  health.sort((a, b) => a - b);
  const statuses = [
    ...new Set(
      searches.map((x) =>
        x.status === 0
          ? `no answer (${x.body})`
          : x.status === 200
            ? `200 ${x.body.endsWith('HTML') ? x.body : `total=${(JSON.parse(x.body) as { total: number }).total}`}`
            : `${x.status} ${x.body.slice(0, 160)}`,
      ),
    ),
  ].join('; ');
  return {
    who,
    what,
    parallel: n,
    statuses,
    ms_max: round(times[times.length - 1]),
    ms_p50: round(pct(times, 50)),
    healthz_n: health.length,
    healthz_p50_ms: round(pct(health, 50)),
    healthz_max_ms: round(health[health.length - 1] ?? 0),
    peak_rss_mb: Math.round(Math.max(peak, peakSampled)),
  };
}

async function main() {
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: root, stdio: 'inherit' },
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-stall-'));
  const { proc, url, output } = await startServer(dataDir);
  try {
    const admin = await signIn(url, ADMIN);
    const x = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < MIB; i++) {
      const mail =
        `From: Flood <${SENDER.email}>\r\nTo: help@bench.local\r\nSubject: Flood ${i}\r\nMessage-ID: <flood-${i}-${Date.now()}@customers.example>\r\n` +
        `Content-Type: text/plain; charset=utf-8\r\n\r\n${x}\r\n`;
      const res = await fetch(`${url}/mailgate`, {
        method: 'POST',
        headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${MAILGATE_TOKEN}` },
        body: mail,
      });
      if (res.status !== 200 && res.status !== 201) throw new Error(`mailgate: ${res.status} ${await res.text()}`);
    }
    // A few ordinary tickets of other people, so the index holds more than the flood.
    for (let i = 0; i < 20; i++) {
      await fetch(`${url}/tickets`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({
          queue_id: 1,
          subject: `Printer ${i} jams`,
          description: 'Paper jam in tray 2, please help.',
        }),
      });
    }
    await sleep(1500); // the search indexer moves the new text into the FTS5 index (SEARCH_INDEX_MS)
    const users = (await (await fetch(`${url}/users?role=requester`, { headers: admin })).json()) as {
      users: { id: number; email: string }[];
    };
    const sender = users.users.find((u) => u.email === SENDER.email);
    if (!sender) throw new Error('the sender was not created');
    const patch = await fetch(`${url}/users/${sender.id}`, {
      method: 'PATCH',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ password: SENDER.password }),
    });
    if (patch.status !== 200) throw new Error(`password: ${patch.status} ${await patch.text()}`);
    const requester = await signIn(url, SENDER);
    const q = 'x'.repeat(Q_LEN);
    process.stderr.write(
      `search-stall: ${MIB} MiB of "x" in ${MIB} messages, q = "x" x ${Q_LEN}, server RSS ${Math.round(status(proc.pid!, 'VmRSS'))} MB\n`,
    );

    const runs: Run[] = [];
    everyone: for (const [who, auth] of [
      ['requester', requester],
      ...(args.includes('--requester-only') ? [] : [['admin', admin]]),
    ] as [string, Record<string, string>][]) {
      const search = `/tickets?q=${encodeURIComponent(q)}`;
      for (const [what, target, n, headers] of [
        ['search', search, 1, {}],
        ['search', search, PARALLEL, {}],
        ['search, HTML list', search, 1, HTML_LIST],
        ['search, HTML list', search, PARALLEL, HTML_LIST],
        ['list, no q', '/tickets', 1, {}],
        ['list, no q', '/tickets', PARALLEL, {}],
      ] as [string, string, number, Record<string, string>][]) {
        const r = await run(url, proc.pid!, who, { ...auth, ...headers }, what, target, n);
        runs.push(r);
        process.stdout.write(`${JSON.stringify({ mib: MIB, q_len: Q_LEN, ...r })}\n`);
        if (proc.exitCode !== null || proc.signalCode !== null) {
          process.stderr.write(
            `search-stall: the server died (${proc.exitCode ?? proc.signalCode}); its last output:\n${output(4000)}\n`,
          );
          break everyone;
        }
      }
    }
    process.stdout.write(
      [
        '',
        `${MIB} MiB of "x" (${MIB} messages), q = "x" x ${Q_LEN}, production server (node ${startFlags().join(' ')} dist/server.js)`,
        '',
        '| who | request | at once | answer | request ms (p50 / max) | /healthz meanwhile ms (p50 / max, n) | peak RSS MB |',
        '|---|---|---:|---|---:|---:|---:|',
        ...runs.map(
          (r) =>
            `| ${r.who} | ${r.what} | ${r.parallel} | ${r.statuses} | ${r.ms_p50} / ${r.ms_max} | ${r.healthz_p50_ms} / ${r.healthz_max_ms} (${r.healthz_n}) | ${r.peak_rss_mb} |`,
        ),
        '',
      ].join('\n'),
    );
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
