// npm run bench [-- --size 10k|100k|1m|<n>] [--duration 5] [--connections 8] [--quick]
//                  [--store sqlite|postgres|both] [--database-url postgres://…/<db holding the dataset>]
//                  [--pg-delay-ms 1] [--processes 2] [--rounds 3] [--scaling-only] [--sla-policy]
// npm run bench -- --mixed …: the mixed 128-connection load instead (bench/mixed.ts, its options there)
// npm run bench -- --live …: live updates (SPEC C5): server memory with idle streams, event delivery latency (bench/live.ts)
// npm run bench -- --timers [--count 10000] [--store sqlite|postgres]: SPEC D2's timer throughput (bench/timers.ts)
// npm run bench -- --start [--runs 5]: `npm start` to /healthz with nothing changed since the last build (bench/start.ts)
//
// Builds (or reuses) a dataset of the given size with bulk SQL, copies it, starts the real
// server on the copy in production mode, and measures operations over HTTP: each one with a
// single client (sequential requests, latency percentiles) and the writes and mail also under
// concurrent load (autocannon). Prints one JSON line per operation, then a Markdown table,
// the server's peak RSS and its start time on the dataset.
//
// --store postgres runs the same operations on PostgreSQL (bench/pg.ts): without --database-url
// in a throwaway cluster the bench starts (as the tests do) and copies the dataset into with
// copy-store; with it, in that database, which must hold the dataset (`hxdesk copy-store --to …`).
// Each run works on a fresh copy of it (CREATE DATABASE … TEMPLATE), dropped afterwards, reached
// through a relay that delays every chunk --pg-delay-ms (default 1) each way, as from another
// host (bench/relay.ts; 0: directly). --store both runs SQLite, then PostgreSQL, and adds a table
// of per-operation ratios (PostgreSQL ÷ SQLite).
//
// Then the scaling section (bench/scaling.ts): creates and public replies with 1 and with
// --connections connections, --rounds rounds of --duration seconds, with the ratio per round; on
// PostgreSQL with --processes 2 (its default there; 1 leaves it out) a second server on the same
// database, and writes and reads on one process vs both. --scaling-only skips the per-operation
// table before it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { type BenchPostgres, benchPostgres } from './pg.js';
import { scaling } from './scaling.js';
import { load, type Result, single, state } from './ops.js';
import { BENCH_ADMIN, BODY_ONLY_WORD, ensureDataset, SUBJECT_WORD } from './seed.js';
import { root, startProductionServer, statusMb } from './server.js';

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
state.size = SIZE;
state.duration = DURATION;
state.connections = CONNECTIONS;
const QUICK = args.includes('--quick');
const ITER = QUICK ? 50 : 200;
const MAILGATE_TOKEN = 'bench-mailgate-token-0123456789';
const STORE = arg('store', 'sqlite');
if (!['sqlite', 'postgres', 'both'].includes(STORE))
  throw new Error(`--store is sqlite, postgres or both, not ${STORE}`);
const DATABASE_URL = arg('database-url', '');
const PG_DELAY_MS = Number(arg('pg-delay-ms', '1'));
const PROCESSES = Number(arg('processes', STORE === 'sqlite' ? '1' : '2'));
const ROUNDS = Number(arg('rounds', '3'));
const SCALING_ONLY = args.includes('--scaling-only');
/** SPEC D2: measure with an SLA policy that matches every ticket. */
const SLA_POLICY = args.includes('--sla-policy');
if (!(PG_DELAY_MS >= 0) || !(PROCESSES >= 1 && PROCESSES <= 2) || !(ROUNDS >= 1))
  throw new Error('--pg-delay-ms is ≥ 0, --processes 1 or 2, --rounds ≥ 1');

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
  const log = (m: string) => process.stderr.write(`bench: ${m}\n`);
  const pgb =
    STORE === 'sqlite'
      ? undefined
      : await benchPostgres({ databaseUrl: DATABASE_URL || undefined, dbPath, delayMs: PG_DELAY_MS, log });
  try {
    for (const store of STORE === 'both' ? (['sqlite', 'postgres'] as const) : [STORE as 'sqlite' | 'postgres']) {
      byStore.set(store, await measure(store, dbPath, stats, pgb));
    }
  } finally {
    await pgb?.close();
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
  pgb?: BenchPostgres,
): Promise<Result[]> {
  state.store = store;
  state.results = [];
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
    copy = await pgb!.freshCopy(`hxdesk_bench_run_${process.pid}`);
    env.DATABASE_URL = copy.url;
  } else {
    fs.copyFileSync(dbPath, path.join(runDir, 'hxdesk.db'));
  }
  // A second process (PostgreSQL) on the same database, its own data directory (backups, locks).
  const servers = [await startProductionServer(runDir, env)];
  if (store === 'postgres' && PROCESSES > 1)
    servers.push(await startProductionServer(fs.mkdtempSync(path.join(runDir, 'process-2-')), env));
  const { proc, url, startMs } = servers[0];
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
    if (SLA_POLICY) {
      // SPEC D2's measure: a policy matching every ticket (around the clock), so every write moves clocks.
      const res = await fetch(`${url}/sla-policies`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Bench: every ticket',
          position: 1,
          match: {},
          calendar_id: null,
          first_response_minutes: 240,
          next_response_minutes: 480,
          resolution_minutes: 2880,
          warn_before_minutes: 30,
        }),
      });
      if (res.status !== 201) throw new Error(`--sla-policy: ${res.status} ${await res.text()}`);
    }
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

    const scaled = () =>
      scaling({
        bases: servers.map((s) => s.url),
        auth,
        connections: CONNECTIONS,
        seconds: DURATION,
        rounds: ROUNDS,
        label: `${store === 'postgres' ? `PostgreSQL (${pgb!.delayMs ? `relay ${pgb!.delayMs} ms each way` : 'direct'}; ${pgb!.origin})` : 'SQLite'}, ${SIZE.toLocaleString('en')} tickets`,
        writes: [
          {
            op: 'create ticket',
            make: (i) =>
              json('POST', '/tickets', {
                queue_id: 1 + (i % 8),
                subject: `Scaling ticket ${i}`,
                description: 'Load test.',
              }),
          },
          {
            op: 'public reply',
            make: (i) =>
              json('POST', `/tickets/${ticketIds(i + 29)}/comment`, { body: `Scaling reply ${i}.`, internal: false }),
          },
        ],
        reads: [
          { op: 'list queue+status', make: (i) => get(`/tickets?queue_id=${1 + (i % 8)}&status=open`)() },
          { op: 'ticket page HTML', make: (i) => get(`/tickets/${ticketIds(i + 31)}`, { accept: 'text/html' })() },
        ],
        out: (s) => process.stdout.write(s),
        log: (m) => process.stderr.write(`bench: ${m}\n`),
      });
    if (SCALING_ONLY) {
      await scaled();
      return state.results;
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
    // SPEC D3: a tag (a fifth to a twenty-third of the tickets), and a stage (status category)
    // beside the queue, as the list's Stage filter sends it (the same tickets as queue+status).
    await single(
      'list tag',
      ITER,
      (i) => get(`/tickets?tag=${['billing', 'hardware', 'vpn', 'vip'][i % 4]}`)(),
      url,
      auth,
    );
    await single(
      'list queue+stage',
      ITER,
      (i) => get(`/tickets?queue_id=${1 + (i % 8)}&status_category=active`)(),
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
    await scaled();

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
      ...state.results.map(
        (r) =>
          `| ${r.op} | ${r.mode === 'single' ? '1 client' : `${CONNECTIONS} conns`} | ${r.ops_per_s} | ${r.p50_ms} | ${r.p95_ms} | ${r.p99_ms} | ${r.errors} |`,
      ),
      '',
      `Server peak RSS ${rss} MB · start ${startMs} ms (spawn to listening, dataset ${(stats.bytes / 1e6).toFixed(0)} MB) · load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${os.cpus().length} cores`,
      `Under load the p95 column is autocannon's p97.5 (it reports no p95), whole milliseconds.`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    return state.results;
  } finally {
    await Promise.all(
      servers.map(async (s) => {
        const exited = new Promise((r) => s.proc.once('exit', r));
        s.proc.kill('SIGTERM');
        await exited;
      }),
    );
    await copy?.drop();
  }
}

if (args.includes('--mixed')) await import('./mixed.js');
else if (args.includes('--live')) await import('./live.js');
else if (args.includes('--start')) await import('./start.js');
else if (args.includes('--timers')) await import('./timers.js');
else
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
