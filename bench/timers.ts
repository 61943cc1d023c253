// npm run bench -- --timers [--count 10000] [--store sqlite|postgres] [--connections 8] [--no-build]
//
// SPEC D2's timer throughput (issue 29, "Measure"): --count tickets whose first response falls
// due in the same minute; the time from the test clock passing their warning time until every
// warning (`SLA` entry, new_value `warning`) is written, and the server's CPU meanwhile.
//
// Starts the compiled server on an empty data directory (PostgreSQL: a database of a throwaway
// cluster, reached directly) with HXDESK_TEST_CLOCK=1 — so in development mode: the test clock
// refuses production —, sets the clock, adds a policy (first response 60 min, warning 10 min
// before, around the clock) matching every ticket, creates the tickets over HTTP with
// --connections clients (all at the same instant of the standing clock), then moves the clock
// 50 minutes and 1 second on and counts the warnings in the database every 100 ms.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { root, startProductionServer } from './server.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const COUNT = Number(arg('count', '10000'));
const STORE = arg('store', 'sqlite');
const CONNECTIONS = Number(arg('connections', '8'));
const ADMIN = { email: 'admin@timers.bench', password: 'timers-bench-password' };
const START = '2030-01-07T09:00:00.000Z';
const log = (m: string) => process.stderr.write(`bench timers: ${m}\n`);

function cpuSeconds(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function timersBench(): Promise<void> {
  if (!args.includes('--no-build'))
    execFileSync(
      process.execPath,
      [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-timers-'));
  let cluster: { url(db?: string): string; stop(): Promise<void> } | undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    HXDESK_TEST_CLOCK: '1',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  };
  let countWarnings: () => Promise<number>;
  let closeCounter = async () => {};
  if (STORE === 'postgres') {
    const { startPostgres } = await import('../tests/helpers/postgres.js');
    const c = await startPostgres();
    cluster = c;
    const admin = new pg.Client({ connectionString: c.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE hxdesk_timers');
    await admin.end();
    env.DATABASE_URL = c.url('hxdesk_timers');
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    countWarnings = async () => {
      if (!(client as unknown as { _connected?: boolean })._connected) await client.connect();
      const r = await client.query(
        `SELECT count(*)::int AS n FROM transactions WHERE type = 'SLA' AND new_value = 'warning'`,
      );
      return r.rows[0].n as number;
    };
    closeCounter = () => client.end();
  } else {
    let db: Database.Database | undefined;
    countWarnings = async () => {
      db ??= new Database(path.join(dir, 'hxdesk.db'), { readonly: true });
      return (
        db.prepare(`SELECT count(*) AS n FROM transactions WHERE type = 'SLA' AND new_value = 'warning'`).get() as {
          n: number;
        }
      ).n;
    };
    closeCounter = async () => {
      db?.close();
    };
  }
  const server = await startProductionServer(dir, env);
  const base = server.url;
  try {
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    if (login.status !== 200) throw new Error(`sign-in: ${login.status} ${await login.text()}`);
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const tokenRes = await fetch(`${base}/tokens`, {
      method: 'POST',
      headers: { cookie, origin: base, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'timers bench' }),
    });
    const token = ((await tokenRes.json()) as { token: string }).token;
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const call = async (method: string, p: string, body?: unknown) => {
      const r = await fetch(`${base}${p}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : null;
    };
    await call('POST', '/test/clock', { now: START });
    await call('POST', '/sla-policies', {
      name: 'Everything',
      position: 1,
      match: {},
      calendar_id: null,
      first_response_minutes: 60,
      next_response_minutes: null,
      resolution_minutes: null,
      warn_before_minutes: 10,
    });
    const t0 = performance.now();
    let made = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (made < COUNT) {
          made++;
          await call('POST', '/tickets', { queue_id: 1, subject: `Timer bench ticket ${made}` });
        }
      }),
    );
    log(`${COUNT} tickets created in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    if ((await countWarnings()) !== 0) throw new Error('warnings before the clock moved');
    const cpu0 = cpuSeconds(server.proc.pid!);
    const t1 = performance.now();
    await call('POST', '/test/clock', { now: new Date(Date.parse(START) + 50 * 60_000 + 1000).toISOString() });
    let n = 0;
    let lastChange = performance.now();
    while (n < COUNT) {
      await new Promise((r) => setTimeout(r, 100));
      const m = await countWarnings();
      if (m !== n) lastChange = performance.now();
      n = m;
      if (performance.now() - lastChange > 60_000) throw new Error(`stuck at ${n} of ${COUNT} warnings`);
    }
    const seconds = (performance.now() - t1) / 1000;
    const cpu = cpuSeconds(server.proc.pid!) - cpu0;
    const result = {
      store: STORE,
      tickets: COUNT,
      warnings: n,
      seconds: Number(seconds.toFixed(2)),
      server_cpu_s: Number(cpu.toFixed(2)),
      per_s: Math.round(n / seconds),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.stdout.write(
      `\n| store | warnings | written in | server CPU | per second |\n|---|---:|---:|---:|---:|\n| ${STORE} | ${n} | ${result.seconds} s | ${result.server_cpu_s} s | ${result.per_s} |\n`,
    );
  } finally {
    server.proc.kill('SIGTERM');
    await new Promise((r) => server.proc.once('exit', r));
    // The server's lines that name an error (its log is in <dir>/server.log).
    for (const line of server.output(1_000_000).split('\n')) if (/error/i.test(line)) process.stderr.write(`${line}\n`);
    await closeCounter();
    await cluster?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

timersBench().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
