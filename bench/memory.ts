// Where the server's memory goes (issue 32's "server peak RSS"; decision 115).
//   node --import tsx bench/memory.ts [--size 100k|1m] [--seconds 20] [--root <tree>]
// Starts the compiled server as `npm start` does (production mode, npm start's Node flags) on a
// copy of bench/seed.ts's dataset, signs in over HTTP (a phase of its own: scrypt's 32 MB for the
// password), and runs phases one after another: 300 lists of six filters, 100 pages (ticket pages
// and the list page), 300 word searches (the bench's probes, common and rare words), then 8
// connections of lists, pages and searches for `--seconds`, then 8 connections of mail for 10 s.
// After each phase it prints the server's RSS, its anonymous and file-backed parts, and its peak
// (VmHWM). At the end, the anonymous memory by kind of mapping (/proc/<pid>/smaps): V8's heap
// pages (256 KB each), glibc's per-thread malloc arenas (64 MB-aligned: SQLite's page caches and
// statements on the threads), the main arena ([heap]), and the rest. `--root` runs another
// checkout's build (as bench/mixed.ts does).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { root, startProductionServer, statusMb } from './server.js';
import { BENCH_ADMIN, BODY_ONLY_WORD, COMMON, ensureDataset, RARE, SUBJECT_WORD } from './seed.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] as string) : def;
};
const SIZE = Number(arg('size', '100k').replace(/k$/, '000').replace(/m$/, '000000'));
const SECONDS = Number(arg('seconds', '20'));
const tree = path.resolve(arg('root', root));
const MAILGATE_TOKEN = 'bench-mailgate-token-0123456789';

const { dbPath } = await ensureDataset(path.join(root, 'data', 'bench', `dataset-${SIZE}`), SIZE, (m) =>
  process.stderr.write(`${m}\n`),
);
const run = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-bench-memory-'));
fs.copyFileSync(dbPath, path.join(run, 'hxdesk.db'));
const { proc, url } = await startProductionServer(run, { MAILGATE_TOKEN }, tree);
const pid = proc.pid!;
const mb = (kb: number) => Math.round(kb / 1024);

function line(phase: string): void {
  const t = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`\\n${k}:\\s+(\\d+)`).exec(t)?.[1] ?? 0);
  const rss = kb('Rss');
  const anon = kb('Anonymous');
  process.stdout.write(`| ${phase} | ${mb(rss)} | ${mb(anon)} | ${mb(rss - anon)} | ${Math.round(statusMb(pid))} |\n`);
}

function byMapping(): void {
  const kinds = new Map<string, number>();
  for (const m of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const anon = Number(/\nAnonymous:\s+(\d+)/.exec(m)?.[1] ?? 0);
    if (!anon) continue;
    const [range, , , , , name = ''] = (m.split('\n')[0] as string).split(/\s+/);
    const [from, to] = (range as string).split('-').map((x) => Number.parseInt(x, 16)) as [number, number];
    const kind = name
      ? name
      : from % (64 * 1024 * 1024) === 0
        ? "threads' malloc arenas"
        : to - from === 256 * 1024
          ? "V8's heap pages"
          : 'other anonymous';
    kinds.set(kind, (kinds.get(kind) ?? 0) + anon);
  }
  process.stdout.write('\n| anonymous memory | MB |\n|---|---:|\n');
  for (const [kind, kb] of [...kinds].sort((a, b) => b[1] - a[1]).filter(([, kb]) => kb >= 1024))
    process.stdout.write(`| ${kind} | ${mb(kb)} |\n`);
}

const closedLoop = (connections: number, duration: number, make: (i: number) => autocannon.Request) =>
  new Promise<void>((resolve, reject) => {
    let i = 0;
    autocannon(
      {
        url,
        connections,
        duration,
        requests: [{ method: 'GET', path: '/healthz', setupRequest: (req) => ({ ...req, ...make(i++) }) }],
      },
      (err) => (err ? reject(err) : resolve()),
    );
  });

try {
  process.stdout.write(
    `### Memory, ${SIZE.toLocaleString('en')} tickets (${tree})\n\n| after | RSS MB | anonymous | file-backed | peak (VmHWM) |\n|---|---:|---:|---:|---:|\n`,
  );
  line('start');
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BENCH_ADMIN),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0] as string;
  const tokenRes = await fetch(`${url}/tokens`, {
    method: 'POST',
    headers: { cookie, origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench memory' }),
  });
  const auth = { authorization: `Bearer ${((await tokenRes.json()) as { token: string }).token}` };
  const get = async (p: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url + p, { headers: { ...auth, ...headers } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
  };
  const list = (i: number) =>
    [
      `/tickets?queue_id=${1 + (i % 8)}&status=open`,
      '/tickets?owner_id=none',
      `/tickets?team_id=${1 + (i % 6)}`,
      `/tickets?cf.severity=${['low', 'medium', 'high', 'critical'][i % 4]}`,
      `/tickets?tag=${['billing', 'hardware', 'vpn', 'vip'][i % 4]}`,
      `/tickets?sort=-priority&offset=${5000 + i * 10}`,
    ][i % 6] as string;
  const ticket = (i: number) => `/tickets/${1 + ((i * 7919) % SIZE)}`;
  const word = (i: number) =>
    [SUBJECT_WORD, BODY_ONLY_WORD, 'password', COMMON[i % COMMON.length], RARE[(i * 13) % RARE.length]][i % 5];

  line('signed in (a password hash)');
  for (let i = 0; i < 300; i++) await get(list(i));
  line('300 lists');
  for (let i = 0; i < 50; i++) await get(ticket(i), { accept: 'text/html' });
  for (let i = 0; i < 50; i++) await get('/tickets', { accept: 'text/html' });
  line('100 pages');
  for (let i = 0; i < 300; i++) await get(`/tickets?q=${word(i)}`);
  line('300 searches');
  await closedLoop(8, SECONDS, (i) => ({
    method: 'GET',
    path: i % 3 === 0 ? list(i) : i % 3 === 1 ? ticket(i) : `/tickets?q=${word(i)}`,
    headers: auth,
  }));
  line(`8 connections of lists, pages, searches, ${SECONDS} s`);
  await closedLoop(8, 10, (i) => ({
    method: 'POST',
    path: '/mailgate',
    headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${MAILGATE_TOKEN}` },
    body:
      `From: "Sender ${i % 500}" <sender${i % 500}@customers.example>\r\nTo: it@bench.local\r\n` +
      `Subject: Memory probe ${i}\r\nMessage-ID: <memory-${i}-${Date.now()}@customers.example>\r\n` +
      'Content-Type: text/plain; charset=utf-8\r\n\r\nThe printer stopped after the update; the password reset did not help.\r\n',
  }));
  line('8 connections of mail, 10 s');
  byMapping();
} finally {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  fs.rmSync(run, { recursive: true, force: true });
}
