// npm run bench -- --mixed [--size 100k] [--connections 128] [--seconds 30] [--warmup 5]
//                          [--store sqlite|postgres] [--database-url postgres://…] [--pg-delay-ms 1] [--root <worktree>]
//                          [--url <base> …] [--ports 3000,3001] [--processes 1] [--weights list=40,page=10]
//                          [--json] [--cpu-prof <dir>] [--seed <n>] [--think-ms 0] [--no-build]
// (also: node --import tsx bench/mixed.ts …)
//
// The mixed load of the 128-connection target: N keep-alive connections, each a closed loop of
// requests drawn by these weights — 40 % ticket lists (B4 filters: status, queue, owner, team,
// cf, sorts, offsets), 10 % `q` searches (words of the dataset), 10 % ticket pages (HTML),
// 15 % creates, 10 % public replies, 10 % PATCH (status, priority, owner), 5 % /mailgate (RFC 822
// messages: new ones and replies to tickets by their subject tag). It talks to the server only
// over HTTP, so it measures any commit and either store.
//
// Without --url it builds (or reuses) the dataset of --size with bench/seed.ts, copies it, builds
// the tree given by --root (default: this one) with tsc and starts it as `npm start` does, in
// production mode (bench/server.ts). With --url (repeatable) or --ports it starts nothing and
// spreads the connections round-robin over those servers, which must already serve a bench
// dataset (it signs in to each as the bench admin for a token of its own, unless --token is
// given; mail needs --mailgate-token or MAILGATE_TOKEN in the environment when the server's
// differs from the bench's). --size only chooses the dataset of a server it starts.
//
// All connections are opened (one GET /healthz each) before the load: a connection opened while
// the server is saturated can wait seconds in the kernel's accept queue (docs/performance-history.md).
//
// --store postgres: the server it starts gets a fresh copy (CREATE DATABASE … TEMPLATE, dropped
// afterwards) of the database --database-url names, which must hold the bench dataset (copy it
// there once with `hxdesk copy-store --from data/bench/dataset-<n>/hxdesk.db --to …`); without
// --database-url, of the dataset copied into a throwaway cluster the bench starts (bench/pg.ts).
// The server reaches it through a relay delaying each chunk --pg-delay-ms (default 1) each way,
// as from another host (bench/relay.ts; 0: directly).
//
// --processes <n> (PostgreSQL): starts n servers on the one database copy and spreads the
// connections over them round-robin (connection i goes to server i mod n), as a load balancer
// would; server CPU and RSS are then their sums. --weights kind=n,…: another mix (the kinds are
// list, q, page, create, reply, patch, mailgate; those not named are left out), e.g.
// `--weights list=40,q=10,page=10` for reads alone.
//
// --think-ms <n>: each connection pauses 0–2n ms (uniform) between its requests (default 0: a
// closed loop, where mean latency = connections ÷ throughput).
//
// Requests of the first --warmup seconds are not counted. A request still unanswered after 10 s
// is aborted and counted as a timeout; the percentiles count it as 10 s (a floor: a kind whose
// requests all time out shows p50 10000, not 0). A probe outside the mix asks GET /healthz on its own
// connection every 100 ms: its latency is the time any request waits for the event loop.
// Prints, per kind and overall: count, req/s, p50, p90, p99, max, answers over 2 s, timeouts and
// errors (non-2xx by status); with --json one JSON document instead. --cpu-prof <dir> starts the
// server with `--cpu-prof` (written to <dir> when it stops).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_ADMIN, BODY_ONLY_WORD, COMMON, ensureDataset, RARE, SUBJECT_WORD } from './seed.js';
import { type BenchPostgres, benchPostgres } from './pg.js';
import { root as here, startProductionServer, statusMb } from './server.js';

const { values: opt } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--mixed'),
  options: {
    size: { type: 'string', default: '100k' },
    connections: { type: 'string', default: '128' },
    seconds: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    store: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    'pg-delay-ms': { type: 'string', default: '1' },
    root: { type: 'string', default: here },
    url: { type: 'string', multiple: true },
    ports: { type: 'string' },
    token: { type: 'string' },
    'mailgate-token': { type: 'string' },
    json: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    'think-ms': { type: 'string', default: '0' },
    processes: { type: 'string', default: '1' },
    weights: { type: 'string' },
  },
  allowPositionals: false,
});

const parseSize = (s: string) => {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s);
  if (!m) throw new Error(`bad --size ${s}`);
  return Math.round(Number(m[1]) * (m[2].toLowerCase() === 'k' ? 1e3 : m[2].toLowerCase() === 'm' ? 1e6 : 1));
};
const SIZE = parseSize(opt.size!);
const CONNECTIONS = Number(opt.connections);
const SECONDS = Number(opt.seconds);
const WARMUP = Number(opt.warmup);
const TREE = path.resolve(opt.root!);
const THINK_MS = Number(opt['think-ms']);
const TIMEOUT_MS = 10_000;
const SLOW_MS = 2_000;
const BENCH_MAILGATE_TOKEN = 'bench-mailgate-token-0123456789';
const MAILGATE_TOKEN =
  opt['mailgate-token'] ?? (opt.url || opt.ports ? process.env.MAILGATE_TOKEN : undefined) ?? BENCH_MAILGATE_TOKEN;
const log = (m: string) => process.stderr.write(`mixed: ${m}\n`);

// ---------------------------------------------------------------------------------------------
// The mix.
type Kind = 'list' | 'q' | 'page' | 'create' | 'reply' | 'patch' | 'mailgate';
const MIX: [Kind, number][] = [
  ['list', 40],
  ['q', 10],
  ['page', 10],
  ['create', 15],
  ['reply', 10],
  ['patch', 10],
  ['mailgate', 5],
];
function parseWeights(text: string): [Kind, number][] {
  return text.split(',').map((part) => {
    const [k, n] = part.split('=');
    if (!MIX.some(([m]) => m === k) || !(Number(n) > 0))
      throw new Error(`--weights: "${part}" is not kind=n with a kind of ${MIX.map(([m]) => m).join(', ')} and n > 0`);
    return [k as Kind, Number(n)];
  });
}
const WEIGHTS = opt.weights ? parseWeights(opt.weights) : MIX;
const KINDS = WEIGHTS.map(([k]) => k);
const PROCESSES = Number(opt.processes);

/** xorshift32, one per connection: the same --seed gives the same request sequence. */
function rng(seed: number) {
  let s = (seed * 2654435761) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(a: readonly T[]): T => a[Math.floor(next() * a.length)],
    weighted: <T>(w: readonly (readonly [T, number])[]): T => {
      const total = w.reduce((a, [, n]) => a + n, 0);
      let r = next() * total;
      for (const [v, n] of w) {
        if ((r -= n) < 0) return v;
      }
      return w[w.length - 1][0];
    },
  };
}
type Rng = ReturnType<typeof rng>;

interface World {
  maxId: number;
  queues: number[];
  agents: number[];
  teams: number[];
  aliases: string[] /** tickets made during the run, by server (separate SQLite copies do not share them) */;
  created: number[][];
}
interface Req {
  kind: Kind;
  variant: string;
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
}

const WORDS = COMMON.slice(COMMON.indexOf('access')); // helpdesk vocabulary: frequent in the data, but not function words
const SENT = (r: Rng, n: number) => {
  const w = Array.from({ length: n }, () => (r.next() < 0.7 ? r.pick(COMMON) : r.pick(RARE)));
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  return `${w.join(' ')}.`;
};
const PARA = (r: Rng, sentences: number) => Array.from({ length: sentences }, () => SENT(r, r.int(6, 16))).join(' ');
const SUBJECTS = [
  'Cannot log in to',
  'Invoice question about',
  'Refund for',
  'Error when opening',
  'Slow',
  'Broken',
  'Problem with',
  'Question about',
  'Access to',
];
const THINGS = [
  'the VPN',
  'my account',
  'order',
  'the printer',
  'email',
  'the portal',
  'laptop',
  'invoice',
  'the app',
  'phone',
];

/**
 * A ticket to read or change: 70 % among the newest 5 % (at least 500) of the tickets (the ones
 * being worked on) or made during this run, 30 % anywhere.
 */
function ticketId(r: Rng, w: World, server: number): number {
  if (r.next() < 0.3) return r.int(1, w.maxId);
  const recent = Math.max(500, Math.round(w.maxId * 0.05));
  const created = w.created[server] ?? [];
  if (created.length && r.next() < 0.3) return r.pick(created);
  return r.int(Math.max(1, w.maxId - recent + 1), w.maxId);
}

const J = { 'content-type': 'application/json' };
function makeRequest(r: Rng, w: World, seq: number, server: number): Req {
  const kind = r.weighted(WEIGHTS);
  const get = (variant: string, p: string, headers: Record<string, string> = {}): Req => ({
    kind,
    variant,
    method: 'GET',
    path: p,
    headers,
  });
  switch (kind) {
    case 'list': {
      const v = r.weighted([
        ['active, updated', 20],
        ['queue+status', 20],
        ['owner+active', 15],
        ['owner=none', 10],
        ['team', 10],
        ['cf.severity', 8],
        ['priority+offset', 7],
        ['all, default', 5],
        ['created asc+offset', 5],
      ] as const);
      const q = r.pick(w.queues),
        a = r.pick(w.agents),
        t = r.pick(w.teams);
      const off = r.next() < 0.8 ? 0 : 50 * r.int(1, 20);
      switch (v) {
        case 'active, updated':
          return get(v, `/tickets?status=new,open,stalled&sort=-updated${off ? `&offset=${off}` : ''}`);
        case 'queue+status':
          return get(
            v,
            `/tickets?queue_id=${q}&status=${r.pick(['open', 'new', 'new,open', 'stalled'])}${off ? `&offset=${off}` : ''}`,
          );
        case 'owner+active':
          return get(v, `/tickets?owner_id=${a}&status=new,open,stalled&sort=${r.pick(['-updated', '-priority'])}`);
        case 'owner=none':
          return get(v, `/tickets?owner_id=none&status=new${off ? `&offset=${off}` : ''}`);
        case 'team':
          return get(v, `/tickets?team_id=${t}&status=open`);
        case 'cf.severity':
          return get(v, `/tickets?cf.severity=${r.pick(['high', 'critical'])}&status=${r.pick(['open', 'new,open'])}`);
        case 'priority+offset':
          return get(v, `/tickets?sort=-priority&offset=${50 * r.int(0, 100)}`);
        case 'all, default':
          return get(v, `/tickets?limit=${r.pick([25, 50, 100])}`);
        default:
          return get(v, `/tickets?queue_id=${q}&sort=created&offset=${50 * r.int(0, 40)}`);
      }
    }
    case 'q': {
      // Rare words (most searches look for something specific), helpdesk words, and the two
      // stress words of bench/seed.ts (printer: 29 % of tickets; password: common).
      const v = r.weighted([
        ['rare word', 50],
        ['helpdesk word', 30],
        ['printer/password', 15],
        ['body-only word', 5],
      ] as const);
      const word =
        v === 'rare word'
          ? RARE[r.int(300, RARE.length - 1)]
          : v === 'helpdesk word'
            ? r.pick(WORDS)
            : v === 'printer/password'
              ? r.pick([SUBJECT_WORD, 'password'])
              : BODY_ONLY_WORD;
      return get(v, `/tickets?q=${encodeURIComponent(word)}${r.next() < 0.4 ? '&status=new,open,stalled' : ''}`);
    }
    case 'page':
      return get('ticket page', `/tickets/${ticketId(r, w, server)}`, { accept: 'text/html' });
    case 'create': {
      const owner = r.next() < 0.5 ? r.pick(w.agents) : null;
      const body = {
        queue_id: r.pick(w.queues),
        subject: `${r.pick(SUBJECTS)} ${r.pick(THINGS)} ${r.pick(RARE)}`,
        description: PARA(r, r.int(2, 5)),
        owner_id: owner,
        priority: r.int(0, 100),
      };
      return {
        kind,
        variant: owner ? 'owned' : 'unowned',
        method: 'POST',
        path: '/tickets',
        body: JSON.stringify(body),
        headers: J,
      };
    }
    case 'reply':
      return {
        kind,
        variant: 'public',
        method: 'POST',
        path: `/tickets/${ticketId(r, w, server)}/comment`,
        body: JSON.stringify({ body: PARA(r, r.int(1, 4)), internal: false }),
        headers: J,
      };
    case 'patch': {
      const v = r.weighted([
        ['status', 50],
        ['priority', 25],
        ['owner', 25],
      ] as const);
      const body =
        v === 'status'
          ? { status: r.pick(['open', 'open', 'stalled', 'resolved', 'new']) }
          : v === 'priority'
            ? { priority: r.int(0, 100) }
            : { owner_id: r.next() < 0.15 ? null : r.pick(w.agents) };
      return {
        kind,
        variant: v,
        method: 'PATCH',
        path: `/tickets/${ticketId(r, w, server)}`,
        body: JSON.stringify(body),
        headers: J,
      };
    }
    case 'mailgate': {
      const reply = r.next() < 0.4;
      const html = r.next() < 0.5;
      const who = r.int(0, 999);
      const id = ticketId(r, w, server);
      const subject = reply
        ? `Re: [hxdesk #${id}] ${r.pick(SUBJECTS)} ${r.pick(THINGS)}`
        : `${r.pick(SUBJECTS)} ${r.pick(THINGS)} ${r.pick(RARE)}`;
      const text = `${PARA(r, r.int(1, 4))}\r\n\r\nRegards,\r\nMail Sender ${who}`;
      const head = [
        `From: "Mail Sender ${who}" <mixed${who}@customers.example>`,
        `To: ${r.pick(w.aliases)}`,
        `Subject: ${subject}`,
        `Date: ${new Date().toUTCString()}`,
        `Message-ID: <mixed-${process.pid}-${seq}-${Date.now()}@customers.example>`,
        'MIME-Version: 1.0',
      ];
      const raw = html
        ? [
            ...head,
            'Content-Type: multipart/alternative; boundary="b1"',
            '',
            '--b1',
            'Content-Type: text/plain; charset=utf-8',
            '',
            text,
            '--b1',
            'Content-Type: text/html; charset=utf-8',
            '',
            `<html><body><p>${text.replace(/\r\n/g, '<br>')}</p></body></html>`,
            '--b1--',
            '',
          ].join('\r\n')
        : [...head, 'Content-Type: text/plain; charset=utf-8', '', text, ''].join('\r\n');
      return {
        kind,
        variant: `${reply ? 'reply' : 'new'}, ${html ? 'text+html' : 'text'}`,
        method: 'POST',
        path: '/mailgate',
        body: raw,
        headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${MAILGATE_TOKEN}` },
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP: one keep-alive socket per connection (an Agent of one socket), a hard 10 s deadline.
interface Answer {
  status: number;
  ms: number;
  body: string;
  error?: string /** how far a timed-out request got */;
  stage?: string;
}
function send(agent: http.Agent, base: URL, req: Req, auth: Record<string, string>): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now();
    let done = false;
    const finish = (a: Omit<Answer, 'ms'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...a, ms: performance.now() - started });
    };
    const headers: Record<string, string | number> = { ...auth, ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    let stage = 'queued in the client';
    const r = http.request(
      { agent, host: base.hostname, port: base.port, method: req.method, path: req.path, headers },
      (res) => {
        stage = 'reading the answer';
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', (e) => finish({ status: 0, body: '', error: (e as NodeJS.ErrnoException).code ?? e.message }));
      },
    );
    r.on('socket', (sock) => {
      if (sock.connecting) {
        stage = 'connecting';
        sock.once('connect', () => {
          stage = 'waiting for the answer (new connection)';
        });
      } else stage = 'waiting for the answer (reused connection)';
    });
    const timer = setTimeout(() => {
      finish({ status: 0, body: '', error: 'timeout', stage });
      r.destroy(new Error('timeout'));
    }, TIMEOUT_MS);
    r.on('error', (e) => finish({ status: 0, body: '', error: (e as NodeJS.ErrnoException).code ?? e.message }));
    r.end(req.body);
  });
}

// ---------------------------------------------------------------------------------------------
// Statistics.
class Stat {
  ms: number[] = [];
  errors: Record<string, number> = {};
  timeouts = 0;
  add(a: Answer) {
    if (a.error === 'timeout') {
      this.timeouts++;
      return;
    }
    this.ms.push(a.ms);
    if (a.error) this.errors[a.error] = (this.errors[a.error] ?? 0) + 1;
    else if (a.status < 200 || a.status >= 300) this.errors[a.status] = (this.errors[a.status] ?? 0) + 1;
  }
  summary(seconds: number) {
    const s = [...this.ms, ...Array<number>(this.timeouts).fill(TIMEOUT_MS)].sort((a, b) => a - b);
    const pct = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : 0);
    const r = (n: number) => Math.round(n * 10) / 10;
    const n = s.length;
    return {
      count: n,
      per_s: r(n / seconds),
      p50_ms: r(pct(50)),
      p90_ms: r(pct(90)),
      p99_ms: r(pct(99)),
      max_ms: r(s[s.length - 1] ?? 0),
      over_2s: s.filter((x) => x > SLOW_MS).length,
      timeouts: this.timeouts,
      errors: this.errors,
    };
  }
}

/** utime + stime of a process in seconds (Linux /proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------------------------------------
async function signIn(base: string): Promise<Record<string, string>> {
  if (opt.token) return { authorization: `Bearer ${opt.token}` };
  const login = await fetch(`${base}/login`, { method: 'POST', headers: J, body: JSON.stringify(BENCH_ADMIN) });
  if (login.status !== 200)
    throw new Error(`sign-in as ${BENCH_ADMIN.email} at ${base}: ${login.status} ${await login.text()} (give --token)`);
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  const res = await fetch(`${base}/tokens`, {
    method: 'POST',
    headers: { cookie, origin: base, ...J },
    body: JSON.stringify({ name: 'mixed bench' }),
  });
  return { authorization: `Bearer ${((await res.json()) as { token: string }).token}` };
}

/** What the requests need to know of the dataset, asked over HTTP. */
async function discover(base: string, auth: Record<string, string>): Promise<World> {
  const getJson = async <T>(p: string): Promise<T> => {
    const res = await fetch(base + p, { headers: auth });
    if (!res.ok) throw new Error(`GET ${p}: ${res.status}`);
    return (await res.json()) as T;
  };
  const { tickets } = await getJson<{ tickets: { id: number }[] }>('/tickets?sort=-id&limit=1');
  const { queues } = await getJson<{ queues: { id: number; mail_alias: string | null }[] }>('/queues');
  const { users } = await getJson<{ users: { id: number; disabled: boolean }[] }>('/users?role=agent');
  const { teams } = await getJson<{ teams: { id: number }[] }>('/teams');
  const aliases = queues.map((q) => q.mail_alias).filter((a): a is string => !!a);
  return {
    maxId: tickets[0]?.id ?? 1,
    queues: queues.map((q) => q.id),
    agents: users.filter((u) => !u.disabled).map((u) => u.id),
    teams: teams.map((t) => t.id),
    aliases: aliases.length ? aliases : ['support@example.com'],
    created: [],
  };
}

async function main() {
  if (opt.store !== 'sqlite' && opt.store !== 'postgres')
    throw new Error(`--store is sqlite or postgres, not ${opt.store}`);
  let bases: string[] = opt.url ?? [];
  if (opt.ports) bases = [...bases, ...opt.ports.split(',').map((p) => `http://127.0.0.1:${p.trim()}`)];
  if (!(PROCESSES >= 1)) throw new Error(`--processes is a number ≥ 1, not ${opt.processes}`);
  if (PROCESSES > 1 && opt.store !== 'postgres')
    throw new Error('--processes above 1 needs --store postgres (several processes share one PostgreSQL database)');
  if (PROCESSES > 1 && bases.length)
    throw new Error('--processes starts servers; with --url or --ports they are already running');
  let servers: Awaited<ReturnType<typeof startProductionServer>>[] = [];
  let pgb: BenchPostgres | undefined;
  let pgCopy: { url: string; drop(): Promise<void> } | undefined;
  let dataset: unknown;
  if (!bases.length) {
    const dataRoot = path.join(here, 'data', 'bench');
    const { dbPath, stats, reused } = await ensureDataset(path.join(dataRoot, `dataset-${SIZE}`), SIZE, log);
    dataset = stats;
    log(
      `dataset ${reused ? 'reused' : `built in ${(stats.ms / 1000).toFixed(1)} s`}: ${stats.tickets} tickets, ${stats.transactions} transactions`,
    );
    const runDir = path.join(dataRoot, `mixed-${SIZE}`);
    fs.rmSync(runDir, { recursive: true, force: true });
    fs.mkdirSync(runDir, { recursive: true });
    fs.copyFileSync(dbPath, path.join(runDir, 'hxdesk.db'));
    if (!opt['no-build'])
      execFileSync(
        process.execPath,
        [path.join(TREE, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
        { cwd: TREE, stdio: 'inherit' },
      );
    // Idle keep-alive connections stay open (as behind a load balancer, README): a pre-opened one must not be closed under the client.
    const env: Record<string, string> = {
      MAILGATE_TOKEN,
      MAIL_SENDER_MAX_PER_HOUR: '100000000',
      LOGIN_MAX_ATTEMPTS_PER_IP: '100000',
      HTTP_KEEPALIVE_TIMEOUT_MS: '60000',
    };
    // On a fresh copy of the dataset's database (its writes leave the dataset as it was).
    if (opt.store === 'postgres') {
      pgb = await benchPostgres({
        databaseUrl: opt['database-url'],
        dbPath,
        delayMs: Number(opt['pg-delay-ms']),
        log,
      });
      env.DATABASE_URL = (pgCopy = await pgb.freshCopy(`hxdesk_bench_mixed_${process.pid}`)).url;
    }
    const flags = opt['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opt['cpu-prof'])}`] : [];
    // Each process gets a data directory of its own (on PostgreSQL it holds only backups and locks).
    servers = await Promise.all(
      Array.from({ length: PROCESSES }, (_, n) => {
        const dir = n ? fs.mkdtempSync(path.join(runDir, `process-${n}-`)) : runDir;
        return startProductionServer(dir, env, TREE, flags);
      }),
    );
    bases = servers.map((s) => s.url);
    log(
      `${servers.length} server(s) ${TREE} on ${bases.join(', ')} (${opt.store}), started in ${servers.map((s) => s.startMs).join(', ')} ms`,
    );
  }
  try {
    // A token per server (on one shared PostgreSQL database any would do; separate SQLite copies each need their own).
    const auths = await Promise.all(bases.map((b) => signIn(b)));
    const world = await discover(bases[0], auths[0]);
    const size = servers.length ? SIZE : world.maxId;
    log(
      `${world.maxId} tickets, ${world.queues.length} queues, ${world.agents.length} agents; ${CONNECTIONS} connections over ${bases.join(', ')}; warm-up ${WARMUP} s, measured ${SECONDS} s`,
    );

    // Every connection is opened (one GET /healthz each, a few at a time) before the load starts:
    // a connection opened while the server is saturated waits in the kernel's accept queue for
    // seconds (docs/performance-history.md, "Mixed load at 128 connections"), which would measure
    // connection set-up under overload rather than the steady state of 128 open connections.
    const agents = Array.from({ length: CONNECTIONS }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    for (let i = 0; i < CONNECTIONS; i += 16) {
      await Promise.all(
        agents.slice(i, i + 16).map(async (agent, k) => {
          const a = await send(
            agent,
            new URL(bases[(i + k) % bases.length]),
            { kind: 'list', variant: 'open', method: 'GET', path: '/healthz', headers: {} },
            {},
          );
          if (a.status !== 200) throw new Error(`opening connection ${i + k}: ${a.error ?? a.status}`);
        }),
      );
    }
    const stats = new Map<string, Stat>();
    const stat = (k: string) => {
      let s = stats.get(k);
      if (!s) stats.set(k, (s = new Stat()));
      return s;
    };
    const probe = new Stat();
    const t0 = performance.now();
    const measureFrom = t0 + WARMUP * 1000;
    const end = measureFrom + SECONDS * 1000;
    let seq = 0;
    /** Every measured request: when it was sent (s after the warm-up), how long it took, what it was. */
    const trace: { at: number; ms: number; what: string; status: number | string }[] = [];
    let cpu0 = { server: NaN, client: process.cpuUsage() };

    const loop = async (i: number) => {
      const r = rng(Number(opt.seed) * 1000 + i + 1);
      const agent = agents[i];
      const base = new URL(bases[i % bases.length]);
      const auth = auths[i % bases.length];
      while (performance.now() < end) {
        const req = makeRequest(r, world, seq++, i % bases.length);
        const sentAt = performance.now();
        const a = await send(agent, base, req, auth);
        if (req.kind === 'create' && a.status === 201) {
          const id = Number(/"id":(\d+)/.exec(a.body)?.[1]);
          const mine = (world.created[i % bases.length] ??= []);
          if (id && mine.length < 50_000) mine.push(id);
        }
        if (sentAt >= measureFrom && sentAt < end) {
          stat(req.kind).add(a);
          stat(`${req.kind}: ${req.variant}`).add(a);
          stat('all').add(a);
          trace.push({
            at: (sentAt - measureFrom) / 1000,
            ms: a.ms,
            what: `${req.method} ${req.path.slice(0, 60)} (${req.kind}: ${req.variant})`,
            status: a.error ? `${a.error}${a.stage ? ` (${a.stage})` : ''}` : a.status,
          });
        }
        if (THINK_MS) await new Promise((res) => setTimeout(res, r.int(0, 2 * THINK_MS)));
      }
      agent.destroy();
    };
    const probeLoop = async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const base = new URL(bases[0]);
      while (performance.now() < end) {
        const sentAt = performance.now();
        const a = await send(
          agent,
          base,
          { kind: 'list', variant: 'probe', method: 'GET', path: '/healthz', headers: {} },
          {},
        );
        if (sentAt >= measureFrom) probe.add(a);
        await new Promise((res) => setTimeout(res, Math.max(0, 100 - a.ms)));
      }
      agent.destroy();
    };
    const serversCpu = () => (servers.length ? servers.reduce((sum, s) => sum + cpuSeconds(s.proc.pid!), 0) : NaN);
    const warm = setTimeout(() => {
      cpu0 = { server: serversCpu(), client: process.cpuUsage() };
    }, WARMUP * 1000);
    let peakRss = 0;
    const rssTimer = setInterval(() => {
      if (servers.length)
        peakRss = Math.max(
          peakRss,
          servers.reduce((sum, s) => sum + statusMb(s.proc.pid!, 'VmRSS'), 0),
        );
    }, 500);
    // The load generator's own event loop, checked every 20 ms: a pause here (its GC, the machine)
    // delays every answer it is waiting for at once and would pass for a server stall.
    const clientLag: number[] = [];
    let tick = performance.now();
    const lagTimer = setInterval(() => {
      const now = performance.now();
      const late = now - tick - 20;
      tick = now;
      if (now >= measureFrom && now < end) {
        const sec = Math.floor((now - measureFrom) / 1000);
        clientLag[sec] = Math.max(clientLag[sec] ?? 0, late);
      }
    }, 20);
    await Promise.all([...Array.from({ length: CONNECTIONS }, (_, i) => loop(i)), probeLoop()]);
    clearInterval(lagTimer);
    clearTimeout(warm);
    clearInterval(rssTimer);
    const serverCpu = serversCpu() - cpu0.server;
    const clientCpu = process.cpuUsage(cpu0.client);
    const wall = (performance.now() - measureFrom) / 1000;

    const rows = [...KINDS.map((k) => [k, stat(k)] as const), ['all', stat('all')] as const];
    const variants = [...stats.entries()].filter(([k]) => k.includes(': ')).sort(([a], [b]) => a.localeCompare(b));
    // Per second of the measured window (by send time): requests, p50, p99, max — a stall shows as a spike across kinds.
    const timeline = Array.from({ length: Math.ceil(SECONDS) }, (_, sec) => {
      const ms = trace
        .filter((t) => Math.floor(t.at) === sec)
        .map((t) => t.ms)
        .sort((a, b) => a - b);
      const q = (p: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0);
      return {
        s: sec,
        n: ms.length,
        p50: q(0.5),
        p99: q(0.99),
        max: Math.round(ms[ms.length - 1] ?? 0),
        client_lag_ms: Math.round(clientLag[sec] ?? 0),
      };
    });
    const slowest = [...trace]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10)
      .map((t) => ({ ...t, at: Math.round(t.at * 100) / 100, ms: Math.round(t.ms) }));
    const out = {
      size,
      connections: CONNECTIONS,
      think_ms: THINK_MS,
      seconds: SECONDS,
      warmup: WARMUP,
      store: opt.store,
      tree: servers.length ? TREE : null,
      urls: bases,
      processes: servers.length || null,
      pg_relay_delay_ms: pgb ? pgb.delayMs : null,
      pg_round_trip: pgb?.roundTrip ?? null,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      weights: Object.fromEntries(WEIGHTS),
      dataset,
      kinds: Object.fromEntries(rows.map(([k, s]) => [k, s.summary(SECONDS)])),
      variants: Object.fromEntries(variants.map(([k, s]) => [k, s.summary(SECONDS)])),
      healthz_probe: probe.summary(SECONDS),
      server_cpu_pct: servers.length ? Math.round((serverCpu / wall) * 100) : null,
      client_cpu_pct: Math.round(((clientCpu.user + clientCpu.system) / 1e6 / wall) * 100),
      server_peak_rss_mb: servers.length ? Math.round(peakRss) : null,
      client_max_lag_ms: Math.round(Math.max(0, ...clientLag.filter((x) => x !== undefined))),
      timeline,
      slowest,
    };
    if (opt.json) {
      process.stdout.write(`${JSON.stringify(out)}\n`);
      return;
    }
    const errs = (e: Record<string, number>) =>
      Object.entries(e)
        .map(([k, v]) => `${k}×${v}`)
        .join(' ') || '0';
    const line = (name: string, s: ReturnType<Stat['summary']>) =>
      `| ${name} | ${s.count} | ${s.per_s} | ${s.p50_ms} | ${s.p90_ms} | ${s.p99_ms} | ${s.max_ms} | ${s.over_2s} | ${s.timeouts} | ${errs(s.errors)} |`;
    const head = [
      '| kind | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | > 2 s | timeouts | errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ];
    process.stdout.write(
      [
        '',
        `### Mixed load: ${size.toLocaleString('en')} tickets, ${CONNECTIONS} connections${THINK_MS ? ` (think time 0–${2 * THINK_MS} ms)` : ''}, ${SECONDS} s (after ${WARMUP} s warm-up), ${opt.store}${bases.length > 1 ? `, ${bases.length} servers` : ''}`,
        '',
        ...(opt.weights ? [`Mix: ${WEIGHTS.map(([k, n]) => `${k} ${n}`).join(', ')}`, ''] : []),
        ...head,
        ...rows.map(([k, s]) => line(k === 'all' ? '**all**' : k, s.summary(SECONDS))),
        line('/healthz probe (not in the mix)', out.healthz_probe),
        '',
        'By variant:',
        '',
        ...head,
        ...variants.map(([k, s]) => line(k, s.summary(SECONDS))),
        '',
        `Load average ${out.load_average.join(' ')} at the end${pgb ? ` · PostgreSQL ${pgb.delayMs ? `through a relay of ${pgb.delayMs} ms each way (SELECT 1 p50 ${pgb.roundTrip?.relay_p50_ms} ms)` : 'directly'}, ${pgb.origin}` : ''}`,
        '',
        `Server CPU ${out.server_cpu_pct ?? '–'} % of one core (all its threads${servers.length > 1 ? `, ${servers.length} processes` : ''}) · load generator CPU ${out.client_cpu_pct} % · server peak RSS ${out.server_peak_rss_mb ?? '–'} MB · load generator's event loop late by up to ${out.client_max_lag_ms} ms`,
        '',
        `Per second (by send time) — requests p50/p99/max ms [load generator late by]: ${timeline.map((t) => `${t.s}s ${t.n} ${t.p50}/${t.p99}/${t.max} [${t.client_lag_ms}]`).join(' · ')}`,
        '',
        'Slowest requests:',
        ...slowest.map((t) => `- ${t.ms} ms, sent at ${t.at} s: ${t.what} → ${t.status}`),
        '',
      ].join('\n'),
    );
  } finally {
    if (servers.length) {
      await Promise.all(
        servers.map(async (server) => {
          const exited = new Promise((res) => server.proc.once('exit', res));
          server.proc.kill('SIGTERM');
          await Promise.race([exited, new Promise((res) => setTimeout(res, 10_000))]);
        }),
      );
      const serverOut = servers.map((s) => s.output()).join('\n');
      if (/"level":"(error|warn)"/.test(serverOut))
        log(
          `server warnings/errors (last lines):\n${serverOut
            .split('\n')
            .filter((l) => /"level":"(error|warn)"/.test(l))
            .slice(-10)
            .join('\n')}`,
        );
    }
    await pgCopy?.drop();
    await pgb?.close();
  }
}

main().catch((e) => {
  process.stderr.write(`mixed: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
