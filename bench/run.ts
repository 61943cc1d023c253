// npm run bench [-- --size 10k|100k|1m|<n>] [--duration 5] [--connections 8] [--quick]
//                  [--store sqlite|postgres|both] [--database-url postgres://…/<db holding the dataset>]
// npm run bench -- --mixed …: the mixed 128-connection load instead (bench/mixed.ts, its options there)
// npm run bench -- --live …: live updates (SPEC C5): server memory with idle streams, event delivery latency (bench/live.ts)
// npm run bench -- --start [--runs 5]: `npm start` to /healthz with nothing changed since the last build (bench/start.ts)
//
// Builds (or reuses) a dataset of the given size with bulk SQL, copies it, starts the real
// server on the copy in production mode, and measures operations over HTTP: each one with a
// single client (sequential requests, latency percentiles) and the writes and mail also under
// concurrent load (autocannon). Prints one JSON line per operation, then a Markdown table,
// the server's peak RSS and its start time on the dataset.
//
// --store postgres runs the same operations on PostgreSQL: --database-url names a database that
// holds the dataset (copied there with `hxdesk copy-store --to …`); each run works on a fresh
// copy of it (CREATE DATABASE … TEMPLATE), dropped afterwards. --store both runs SQLite, then
// PostgreSQL, and adds a table of per-operation ratios (PostgreSQL ÷ SQLite).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { BENCH_ADMIN, BODY_ONLY_WORD, ensureDataset, SUBJECT_WORD } from './seed.js';
import { copyPgDatabase, root, startProductionServer, statusMb } from './server.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const parseSize = (s: string) => {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s);
  if (!m) throw new Error(`bad --size ${s}`);
  return Math.round(Number(m[1]) * (m[2].toLowerCase() === 'k' ? 1e3 : m[2].toLowerCase() === 'm' ? 1e6 : 1));
};
const SIZE = parseSize(arg('size', '100k'));
const DURATION = Number(arg('duration', '5'));
const CONNECTIONS = Number(arg('connections', '8'));
const QUICK = args.includes('--quick');
const ITER = QUICK ? 50 : 200;
const MAILGATE_TOKEN = 'bench-mailgate-token-0123456789';
const STORE = arg('store', 'sqlite');
if (!['sqlite', 'postgres', 'both'].includes(STORE))
  throw new Error(`--store is sqlite, postgres or both, not ${STORE}`);
const DATABASE_URL = arg('database-url', '');
if (STORE !== 'sqlite' && !DATABASE_URL)
  throw new Error(`--store ${STORE} needs --database-url postgres://…/<a database holding the dataset>`);

interface Result {
  op: string;
  mode: 'single' | 'load';
  requests: number;
  ops_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
}
// The operations of the store being measured (measure() starts a new list per store).
let results: Result[] = [];
let current: 'sqlite' | 'postgres' = 'sqlite';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (n: number) => Math.round(n * 100) / 100;

function report(r: Result) {
  results.push(r);
  process.stdout.write(`${JSON.stringify({ size: SIZE, store: current, ...r })}\n`);
}

async function single(
  op: string,
  n: number,
  make: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> },
  base: string,
  auth: Record<string, string>,
) {
  const times: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const req = make(i);
    const s = performance.now();
    const res = await fetch(base + req.path, {
      method: req.method,
      headers: { ...auth, ...req.headers },
      body: req.body,
    });
    await res.arrayBuffer();
    times.push(performance.now() - s);
    if (res.status >= 400) errors++;
  }
  const total = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  report({
    op,
    mode: 'single',
    requests: n,
    ops_per_s: round(n / total),
    p50_ms: round(pct(times, 50)),
    p95_ms: round(pct(times, 95)),
    p99_ms: round(pct(times, 99)),
    errors,
  });
}

function load(
  op: string,
  base: string,
  auth: Record<string, string>,
  make: (i: number) => { method: string; path: string; body?: string; headers?: Record<string, string> },
): Promise<void> {
  let i = 0;
  const first = make(0);
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections: CONNECTIONS,
        duration: DURATION,
        requests: [
          {
            method: first.method as 'POST',
            path: first.path,
            setupRequest: (req) => {
              const r = make(i++);
              return {
                ...req,
                method: r.method as 'POST',
                path: r.path,
                body: r.body,
                headers: { ...auth, ...r.headers },
              };
            },
          },
        ],
      },
      (err, res) => {
        if (err) return reject(err);
        report({
          op,
          mode: 'load',
          requests: res.requests.total,
          ops_per_s: round(res.requests.average),
          p50_ms: res.latency.p50,
          p95_ms: res.latency.p97_5,
          p99_ms: res.latency.p99,
          errors: res.errors + res.non2xx,
        });
        resolve();
      },
    );
  });
}

const json = (method: string, p: string, body: unknown) => ({
  method,
  path: p,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});
const rawMail = (i: number, prefix: string) => ({
  method: 'POST',
  path: '/mailgate',
  headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${MAILGATE_TOKEN}` },
  body:
    `From: "Mail Sender ${i % 500}" <sender${i % 500}@customers.example>\r\nTo: it@bench.local\r\nSubject: Help with the VPN ${prefix}-${i}\r\n` +
    `Message-ID: <${prefix}-${i}-${Date.now()}@customers.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n` +
    `Hello, since this morning the VPN drops every few minutes. Could you please have a look? Regards, sender ${i % 500}\r\n`,
});

const dataRoot = path.join(root, 'data', 'bench');

async function main() {
  const seedDir = path.join(dataRoot, `dataset-${SIZE}`);
  process.stderr.write(`bench: dataset of ${SIZE} tickets in ${seedDir}\n`);
  const { dbPath, stats, reused } = await ensureDataset(seedDir, SIZE, (m) => process.stderr.write(`${m}\n`));
  process.stderr.write(
    `bench: dataset ${reused ? 'reused' : `built in ${(stats.ms / 1000).toFixed(1)} s`}: ${stats.tickets} tickets, ${stats.transactions} transactions, ${(stats.bytes / 1e6).toFixed(0)} MB\n`,
  );
  // The server runs as `npm start` runs it: compiled to dist/ (see docs/decisions/010).
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: root, stdio: 'inherit' },
  );
  const byStore = new Map<string, Result[]>();
  for (const store of STORE === 'both' ? (['sqlite', 'postgres'] as const) : [STORE as 'sqlite' | 'postgres']) {
    byStore.set(store, await measure(store, dbPath, stats));
  }
  const sq = byStore.get('sqlite');
  const pgr = byStore.get('postgres');
  if (sq && pgr) {
    const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '–');
    process.stdout.write(
      [
        '',
        `### PostgreSQL ÷ SQLite, ${SIZE.toLocaleString('en')} tickets`,
        '',
        '| operation | mode | ops/s ratio | p50 ratio | p99 ratio |',
        '|---|---|---:|---:|---:|',
        ...pgr.map((r) => {
          const s2 = sq.find((x) => x.op === r.op && x.mode === r.mode)!;
          return `| ${r.op} | ${r.mode === 'single' ? '1 client' : `${CONNECTIONS} conns`} | ${ratio(r.ops_per_s, s2.ops_per_s)} | ${ratio(r.p50_ms, s2.p50_ms)} | ${ratio(r.p99_ms, s2.p99_ms)} |`;
        }),
        '',
      ].join('\n'),
    );
  }
}

/** Every operation on a fresh copy of the dataset in `store`; prints them and returns them. */
async function measure(
  store: 'sqlite' | 'postgres',
  dbPath: string,
  stats: Awaited<ReturnType<typeof ensureDataset>>['stats'],
): Promise<Result[]> {
  current = store;
  results = [];
  const runDir = path.join(dataRoot, `run-${SIZE}`);
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.mkdirSync(runDir, { recursive: true });
  const env: Record<string, string> = {
    MAILGATE_TOKEN,
    MAIL_SENDER_MAX_PER_HOUR: '1000000',
    LOGIN_MAX_ATTEMPTS_PER_IP: '100000',
  };
  let copy: { url: string; drop(): Promise<void> } | undefined;
  if (store === 'postgres') {
    copy = await copyPgDatabase(DATABASE_URL, `hxdesk_bench_run_${process.pid}`);
    env.DATABASE_URL = copy.url;
  } else {
    fs.copyFileSync(dbPath, path.join(runDir, 'hxdesk.db'));
  }
  const { proc, url, startMs } = await startProductionServer(runDir, env);
  try {
    const login = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_ADMIN),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const tokenRes = await fetch(`${url}/tokens`, {
      method: 'POST',
      headers: { cookie, origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const { token } = (await tokenRes.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}` };
    const html = { ...auth, accept: 'text/html' };
    const get = (p: string, headers?: Record<string, string>) => () => ({ method: 'GET', path: p, headers });
    const ticketIds = (i: number) => 1 + ((i * 7919) % SIZE);

    // A ticket with 50 transactions for the ticket page.
    const big = (await (
      await fetch(`${url}/tickets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ queue_id: 2, subject: 'A long conversation', description: 'First message.' }),
      })
    ).json()) as { ticket: { id: number } };
    for (let i = 0; i < 49; i++) {
      await fetch(`${url}/tickets/${big.ticket.id}/comment`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          body: `Message ${i}: we looked at it again and here is what we found.`,
          internal: i % 3 === 0,
        }),
      });
    }

    await single(
      'create ticket',
      ITER,
      (i) =>
        json('POST', '/tickets', {
          queue_id: 1 + (i % 8),
          subject: `Bench ticket ${i}`,
          description: 'Something is broken, please help.',
          owner_id: i % 4 ? 2 + (i % 60) : null,
        }),
      url,
      auth,
    );
    await single(
      'public reply',
      ITER,
      (i) =>
        json('POST', `/tickets/${ticketIds(i)}/comment`, {
          body: `Reply ${i}: please try again now.`,
          internal: false,
        }),
      url,
      auth,
    );
    await single(
      'internal comment',
      ITER,
      (i) => json('POST', `/tickets/${ticketIds(i + 1)}/comment`, { body: `Note ${i}: customer called.` }),
      url,
      auth,
    );
    await single(
      'PATCH status',
      ITER,
      (i) => json('PATCH', `/tickets/${ticketIds(i + 2)}`, { status: i % 2 ? 'open' : 'stalled' }),
      url,
      auth,
    );
    await single(
      'PATCH owner',
      ITER,
      (i) => json('PATCH', `/tickets/${ticketIds(i + 3)}`, { owner_id: 2 + (i % 60) }),
      url,
      auth,
    );
    await single(
      'PATCH team',
      ITER,
      (i) => json('PATCH', `/tickets/${ticketIds(i + 4)}`, { team_id: 1 + (i % 6) }),
      url,
      auth,
    );
    await single('list queue+status', ITER, (i) => get(`/tickets?queue_id=${1 + (i % 8)}&status=open`)(), url, auth);
    await single('list owner_id=none', ITER, get('/tickets?owner_id=none'), url, auth);
    await single('list team_id', ITER, (i) => get(`/tickets?team_id=${1 + (i % 6)}`)(), url, auth);
    await single(
      'list cf.severity',
      ITER,
      (i) => get(`/tickets?cf.severity=${['low', 'medium', 'high', 'critical'][i % 4]}`)(),
      url,
      auth,
    );
    await single('q subject word', ITER, get(`/tickets?q=${SUBJECT_WORD}`), url, auth);
    await single('q body-only word', ITER, get(`/tickets?q=${BODY_ONLY_WORD}`), url, auth);
    await single('q common word', ITER, get('/tickets?q=password'), url, auth);
    await single(
      'sort priority, deep offset',
      ITER,
      (i) => get(`/tickets?sort=-priority&offset=${Math.min(SIZE - 50, 5000 + i * 10)}`)(),
      url,
      auth,
    );
    await single('ticket page HTML (50 txns)', ITER, get(`/tickets/${big.ticket.id}`, html), url, auth);
    await single('ticket list HTML', ITER, get('/tickets', html), url, auth);
    await single('mailgate', ITER, (i) => rawMail(i, 'single'), url, {});

    await load('create ticket', url, auth, (i) =>
      json('POST', '/tickets', { queue_id: 1 + (i % 8), subject: `Load ticket ${i}`, description: 'Load test.' }),
    );
    await load('public reply', url, auth, (i) =>
      json('POST', `/tickets/${ticketIds(i + 11)}/comment`, { body: `Load reply ${i}.`, internal: false }),
    );
    await load('internal comment', url, auth, (i) =>
      json('POST', `/tickets/${ticketIds(i + 13)}/comment`, { body: `Load note ${i}.` }),
    );
    await load('PATCH status', url, auth, (i) =>
      json('PATCH', `/tickets/${ticketIds(i + 17)}`, { status: i % 2 ? 'open' : 'stalled' }),
    );
    await load('PATCH owner', url, auth, (i) =>
      json('PATCH', `/tickets/${ticketIds(i + 19)}`, { owner_id: 2 + (i % 60) }),
    );
    await load('PATCH team', url, auth, (i) =>
      json('PATCH', `/tickets/${ticketIds(i + 23)}`, { team_id: 1 + (i % 6) }),
    );
    await load('mailgate', url, {}, (i) => rawMail(i, 'load'));
    await load('list queue+status', url, auth, (i) => get(`/tickets?queue_id=${1 + (i % 8)}&status=open`)());

    const rss = Math.round(statusMb(proc.pid!));
    process.stdout.write(
      `${JSON.stringify({ size: SIZE, store, peak_rss_mb: rss, start_ms: startMs, dataset: stats })}\n`,
    );
    const lines = [
      '',
      `### ${SIZE.toLocaleString('en')} tickets, ${stats.transactions.toLocaleString('en')} transactions, ${store === 'postgres' ? 'PostgreSQL' : 'SQLite'}`,
      '',
      '| operation | mode | ops/s | p50 ms | p95 ms | p99 ms | errors |',
      '|---|---|---:|---:|---:|---:|---:|',
      ...results.map(
        (r) =>
          `| ${r.op} | ${r.mode === 'single' ? '1 client' : `${CONNECTIONS} conns`} | ${r.ops_per_s} | ${r.p50_ms} | ${r.p95_ms} | ${r.p99_ms} | ${r.errors} |`,
      ),
      '',
      `Server peak RSS ${rss} MB · start ${startMs} ms (spawn to listening, dataset ${(stats.bytes / 1e6).toFixed(0)} MB)`,
      `Under load the p95 column is autocannon's p97.5 (it reports no p95), whole milliseconds.`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    return results;
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    await copy?.drop();
  }
}

if (args.includes('--mixed')) await import('./mixed.js');
else if (args.includes('--live')) await import('./live.js');
else if (args.includes('--start')) await import('./start.js');
else
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
