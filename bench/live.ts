// npm run bench -- --live [--streams 500] [--listeners 50] [--writers 8] [--seconds 10] [--store sqlite|postgres|both] [--no-build]
// (also: node --import tsx bench/live.ts …)
//
// The live updates (SPEC C5) of a real server process, as `npm start` runs it (compiled dist/,
// production mode; bench/server.ts), on a fresh SQLite file and, when a throwaway cluster can be
// started here (Debian's postgresql, as the tests do: tests/helpers/postgres.ts), on PostgreSQL:
//
// (a) memory: the server's RSS (VmRSS of /proc/<pid>/status) with no stream open, then with
//     --streams idle `GET /events` streams open (each past its `hello`, then 3 s to settle);
//     budget: at most 50 MB more.
// (b) delivery: --listeners streams open while --writers connections write replies and notes
//     (each on its own ticket, one request after the other, as fast as the server answers) for
//     --seconds. For every write and every listener: when the write's event (the first event of
//     its ticket whose id is at least the write's log id) arrived, measured from the START of the
//     write's RESPONSE (what the budget is about: p95 ≤ 200 ms; negative when the event came
//     before the response) and, second, from the START of its request (that includes the write
//     itself, however long the server took to answer it).
//
// Prints a Markdown table per store and one JSON line per measure. A bench, never a test.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pgAvailable, startPostgres, type PgCluster } from '../tests/helpers/postgres.js';
import { root, startProductionServer } from './server.js';

const { values: opt } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--live'),
  options: {
    streams: { type: 'string', default: '500' },
    listeners: { type: 'string', default: '50' },
    writers: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '10' },
    store: { type: 'string', default: 'both' },
    'no-build': { type: 'boolean', default: false },
  },
  allowPositionals: false,
});
const STREAMS = Number(opt.streams);
const LISTENERS = Number(opt.listeners);
const WRITERS = Number(opt.writers);
const SECONDS = Number(opt.seconds);
if (!['sqlite', 'postgres', 'both'].includes(opt.store!))
  throw new Error(`--store is sqlite, postgres or both, not ${opt.store}`);

const ADMIN = { email: 'bench-live@example.com', password: 'bench-live-password-123' };
const log = (m: string) => process.stderr.write(`bench live: ${m}\n`);
const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
const round = (n: number) => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number): number {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(text)?.[1] ?? 0) / 1024;
}

interface Listener {
  close(): void;
  ready: Promise<void>;
}

/** One `GET /events` stream on its own connection; `onTicket` hears each ticket event (its arrival time). */
function listen(base: string, token: string, onTicket?: (ticketId: number, id: number, at: number) => void): Listener {
  let ready!: () => void;
  let failed!: (e: Error) => void;
  const readyP = new Promise<void>((res, rej) => {
    ready = res;
    failed = rej;
  });
  const req = http.get(
    `${base}/events`,
    { agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } },
    (res) => {
      if (res.statusCode !== 200) {
        failed(new Error(`GET /events: ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (block.startsWith('event: hello')) {
            ready();
            continue;
          }
          if (!onTicket || !block.startsWith('event: ticket\n')) continue;
          const data = /\ndata: (.*)/.exec(block)?.[1];
          if (!data) continue;
          const d = JSON.parse(data) as { id: number; ticket_id: number };
          onTicket(d.ticket_id, d.id, at);
        }
      });
    },
  );
  req.on('error', (e) => failed(e));
  return { close: () => req.destroy(), ready: readyP };
}

async function json(
  base: string,
  method: string,
  p: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<any> {
  const res = await fetch(base + p, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return JSON.parse(text);
}

interface Outcome {
  store: string;
  rss_none_mb: number;
  rss_streams_mb: number;
  rss_delta_mb: number;
  streams: number;
  listeners: number;
  writers: number;
  writes: number;
  writes_per_s: number;
  deliveries: number;
  missing: number;
  from_start: { p50: number; p95: number; max: number };
  from_response: { p50: number; p95: number; max: number };
}

async function measure(store: 'sqlite' | 'postgres', cluster?: PgCluster): Promise<Outcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-bench-live-'));
  const env: Record<string, string> = {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOGIN_MAX_ATTEMPTS_PER_IP: '100000',
    EVENTS_MAX_STREAMS_PER_USER: String(STREAMS + LISTENERS + 10),
    EVENTS_MAX_STREAMS: String(STREAMS + LISTENERS + 100),
  };
  if (cluster) env.DATABASE_URL = await cluster.createMigratedDatabase();
  const { proc, url } = await startProductionServer(dir, env);
  const open: Listener[] = [];
  try {
    const login = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const { token } = await json(url, 'POST', '/tokens', { name: 'bench-live' }, { cookie, origin: url });
    const auth = { authorization: `Bearer ${token}` };
    const queues = (await (
      await fetch(`${url}/queues`, { headers: { ...auth, accept: 'application/json' } })
    ).json()) as any;
    const queueId = (queues.queues ?? queues)[0].id;
    const tickets: number[] = [];
    for (let i = 0; i < WRITERS; i++)
      tickets.push(
        (
          await json(
            url,
            'POST',
            '/tickets',
            { queue_id: queueId, subject: `Live bench ${i}`, description: 'Hello' },
            auth,
          )
        ).ticket.id,
      );
    // Warm the write path and the stream route before measuring memory.
    for (let i = 0; i < 20; i++)
      await json(url, 'POST', `/tickets/${tickets[i % WRITERS]}/comment`, { body: `warm ${i}`, internal: true }, auth);
    const warm = listen(url, token);
    await warm.ready;
    warm.close();
    await sleep(2000);

    // (a) memory: none, then STREAMS idle streams.
    const none = rssMb(proc.pid!);
    for (let i = 0; i < STREAMS; i++) open.push(listen(url, token));
    await Promise.all(open.map((l) => l.ready));
    await sleep(3000);
    const withStreams = rssMb(proc.pid!);
    log(`${store}: RSS ${none.toFixed(1)} MB with no stream, ${withStreams.toFixed(1)} MB with ${STREAMS}`);
    for (const l of open.splice(0)) l.close();
    await sleep(1000);

    // (b) delivery latency: LISTENERS streams, WRITERS writing.
    // Arrivals are kept (per listener and ticket, in log order) and matched to the writes at the
    // end: an event may come before its write's response, when the write's log id is not known yet.
    const writesOf = new Map<number, { logId: number; start: number; end: number }[]>();
    const arrivals: Map<number, { id: number; at: number }[]>[] = [];
    const listeners: Listener[] = [];
    for (let l = 0; l < LISTENERS; l++) {
      const mine = new Map<number, { id: number; at: number }[]>();
      arrivals.push(mine);
      listeners.push(
        listen(url, token, (ticketId, id, at) => {
          let a = mine.get(ticketId);
          if (!a) mine.set(ticketId, (a = []));
          a.push({ id, at });
        }),
      );
    }
    open.push(...listeners);
    await Promise.all(listeners.map((l) => l.ready));
    let writes = 0;
    const until = performance.now() + SECONDS * 1000;
    const t0 = performance.now();
    await Promise.all(
      tickets.map(async (ticketId, w) => {
        const list: { logId: number; start: number; end: number }[] = [];
        writesOf.set(ticketId, list);
        for (let i = 0; performance.now() < until; i++) {
          const start = performance.now();
          const r = await json(
            url,
            'POST',
            `/tickets/${ticketId}/comment`,
            { body: `Writer ${w}, message ${i}.`, internal: i % 2 === 0 },
            auth,
          );
          list.push({ logId: r.transaction.id, start, end: performance.now() });
          writes++;
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    // Events still under way: give them a moment, then count what never came.
    await sleep(2000);
    for (const l of listeners) l.close();
    const fromStart: number[] = [];
    const fromResponse: number[] = [];
    let deliveries = 0;
    for (const mine of arrivals) {
      for (const [ticketId, list] of writesOf) {
        const a = mine.get(ticketId) ?? [];
        let j = 0;
        for (const w of list) {
          while (j < a.length && a[j].id < w.logId) j++;
          if (j >= a.length) break;
          fromStart.push(a[j].at - w.start);
          fromResponse.push(a[j].at - w.end);
          deliveries++;
        }
      }
    }
    const expected = writes * LISTENERS;
    fromStart.sort((a, b) => a - b);
    fromResponse.sort((a, b) => a - b);
    const s3 = (v: number[]) => ({
      p50: round(pct(v, 50)),
      p95: round(pct(v, 95)),
      max: round(v[v.length - 1] ?? NaN),
    });
    return {
      store,
      rss_none_mb: round(none),
      rss_streams_mb: round(withStreams),
      rss_delta_mb: round(withStreams - none),
      streams: STREAMS,
      listeners: LISTENERS,
      writers: WRITERS,
      writes,
      writes_per_s: round(writes / elapsed),
      deliveries,
      missing: expected - deliveries,
      from_start: s3(fromStart),
      from_response: s3(fromResponse),
    };
  } finally {
    for (const l of open) l.close();
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  if (!opt['no-build'])
    execFileSync(
      process.execPath,
      [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: root, stdio: 'inherit' },
    );
  const stores: ('sqlite' | 'postgres')[] =
    opt.store === 'both' ? ['sqlite', 'postgres'] : [opt.store as 'sqlite' | 'postgres'];
  const out: Outcome[] = [];
  for (const store of stores) {
    if (store === 'postgres' && !pgAvailable()) {
      if (opt.store === 'postgres')
        throw new Error('no PostgreSQL server binaries here (apt-get install postgresql, or PG_BIN)');
      log('PostgreSQL: no server binaries here, skipped');
      continue;
    }
    const cluster = store === 'postgres' ? await startPostgres() : undefined;
    try {
      const o = await measure(store, cluster);
      process.stdout.write(`${JSON.stringify(o)}\n`);
      out.push(o);
    } finally {
      await cluster?.stop();
    }
  }
  const ok = (good: boolean) => (good ? 'ok' : '**over**');
  process.stdout.write(
    [
      '',
      `### Live updates: ${STREAMS} idle streams; ${WRITERS} writers for ${SECONDS} s, ${LISTENERS} listeners`,
      '',
      '| store | RSS, no stream | RSS, streams open | more (≤ 50 MB) | writes | writes/s | deliveries | missing | from response p50 / p95 / max ms | p95 ≤ 200 ms | from request start p50 / p95 / max ms |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
      ...out.map(
        (o) =>
          `| ${o.store === 'postgres' ? 'PostgreSQL' : 'SQLite'} | ${o.rss_none_mb} MB | ${o.rss_streams_mb} MB | ${o.rss_delta_mb} MB ${ok(o.rss_delta_mb <= 50)} | ${o.writes} | ${o.writes_per_s} | ${o.deliveries} | ${o.missing} | ${o.from_response.p50} / ${o.from_response.p95} / ${o.from_response.max} | ${ok(o.from_response.p95 <= 200)} | ${o.from_start.p50} / ${o.from_start.p95} / ${o.from_start.max} |`,
      ),
      '',
      "Latency: per write and per listener, to the arrival of the first event of its ticket whose id is at least the write's log id, from the write's response (negative: the event came first) and from the start of its request (the write's own time included).",
      '',
    ].join('\n'),
  );
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
