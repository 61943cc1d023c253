// `npm run kill-load -- [--seconds 60] [--writers 8] [--store sqlite|postgres] [--processes 1|2]`:
// SIGKILL under load. Real server processes (the compiled dist/server.js, as `npm start` runs it)
// on one SQLite file or one PostgreSQL database (a throwaway cluster), a real SMTP sink, writers
// that open tickets and reply publicly through the HTTP API, and a killer that SIGKILLs a server
// process every 1–3 s and starts it again on the same data and port. At the end every write the
// server acknowledged (201) must be there, and every notification in the outbox must have reached
// the sink exactly once (counted by Message-ID). Prints a JSON summary; exits 1 on any loss.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres } from '../tests/helpers/postgres.js';
import { startSmtpSink } from '../tests/helpers/smtp.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    writers: { type: 'string', default: '8' },
    store: { type: 'string', default: 'sqlite' },
    processes: { type: 'string', default: '1' },
  },
});
const seconds = Number(values.seconds);
const writers = Number(values.writers);
const processes = Number(values.processes);
if (
  !(seconds > 0 && writers > 0 && [1, 2].includes(processes) && ['sqlite', 'postgres'].includes(values.store!)) ||
  (processes === 2 && values.store !== 'postgres')
) {
  process.stderr.write(
    'usage: npm run kill-load -- [--seconds N] [--writers N] [--store sqlite|postgres] [--processes 1|2 (2: postgres)]\n',
  );
  process.exit(2);
}

const root = path.resolve(import.meta.dirname, '..');
execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

const sink = await startSmtpSink();
const cluster = values.store === 'postgres' ? await startPostgres() : null;
const databaseUrl = cluster ? await cluster.createDatabase() : undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-kill-load-'));
const ADMIN = { email: 'admin@kill.example', password: 'admin-password-123' };
const AGENT = { email: 'agent@kill.example', password: 'agent-password-123' };
const ports = await Promise.all(Array.from({ length: processes }, () => freePort()));
const env = (port: number, i: number) => ({
  ...process.env,
  NODE_ENV: 'development',
  HOST: '127.0.0.1',
  PORT: String(port),
  DATA_DIR: processes === 1 ? dataDir : path.join(dataDir, `p${i}`),
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
  SMTP_URL: sink.url,
  OUTBOX_POLL_MS: '50',
  OUTBOX_RETRY_BASE_MS: '200',
  MAIL_FROM: 'support@kill.example',
  MAIL_SENDER_MAX_PER_HOUR: '1000000',
  WEBHOOK_SECRET: 'kill-load-webhook-secret',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
});

interface Proc {
  child: ChildProcess;
  exited: Promise<void>;
}
const procs: (Proc | null)[] = Array.from({ length: processes }, () => null);
async function start(i: number): Promise<void> {
  const child = spawn(process.execPath, [path.join(root, 'dist/server.js')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: env(ports[i], i),
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server ${i} did not start:\n${out}`)), 30_000);
    const on = (d: Buffer) => {
      out += d;
      if (/listening on/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server ${i} exited:\n${out}`));
    });
  });
  procs[i] = { child, exited };
}
async function kill(i: number): Promise<void> {
  const p = procs[i];
  if (!p) return;
  procs[i] = null;
  try {
    process.kill(-p.child.pid!, 'SIGKILL');
  } catch {
    /* gone */
  }
  await p.exited;
}

for (let i = 0; i < processes; i++) await start(i);
const base = (i: number) => `http://127.0.0.1:${ports[i]}`;

async function call(
  i: number,
  method: string,
  p: string,
  token: string | null,
  body?: unknown,
  extra: Record<string, string> = {},
) {
  const res = await fetch(base(i) + p, {
    method,
    headers: {
      'content-type': 'application/json',
      origin: base(i),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...extra,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}
async function tokenFor(who: { email: string; password: string }): Promise<string> {
  const login = await call(0, 'POST', '/login', null, who);
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  return (await call(0, 'POST', '/tokens', null, { name: 'kill-load' }, { cookie })).body.token;
}
const adminToken = await tokenFor(ADMIN);
const agent = await call(0, 'POST', '/users', adminToken, {
  email: AGENT.email,
  name: 'Agent',
  role: 'agent',
  password: AGENT.password,
});
if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
const agentToken = await tokenFor(AGENT);

// ---- the load and the killer ----------------------------------------------------------------

const acked = { tickets: new Set<number>(), transactions: new Map<number, number>() }; // transaction → ticket
let unanswered = 0;
let refused = 0;
let kills = 0;
const deadline = Date.now() + seconds * 1000;

async function writer(w: number): Promise<void> {
  let n = 0;
  while (Date.now() < deadline) {
    const i = (w + n) % processes;
    try {
      const t = await call(i, 'POST', '/tickets', agentToken, {
        queue_id: 1,
        subject: `Load ${w}-${++n}`,
        description: 'Under load.',
        requesters: [`c${w}-${n}@customer.example`],
      });
      if (t.status !== 201) {
        refused++;
        await sleep(20);
        continue;
      }
      acked.tickets.add(t.body.ticket.id);
      for (let r = 0; r < 2 && Date.now() < deadline; r++) {
        const c = await call(i, 'POST', `/tickets/${t.body.ticket.id}/comment`, agentToken, {
          body: `Reply ${r}`,
          internal: false,
        });
        if (c.status === 201) acked.transactions.set(c.body.transaction.id, t.body.ticket.id);
        else refused++;
      }
    } catch {
      unanswered++; // the server was killed mid-request: the outcome is unknown, so it is not counted as acknowledged
      await sleep(50);
    }
  }
}

async function killer(): Promise<void> {
  let i = 0;
  while (Date.now() < deadline - 1000) {
    await sleep(1000 + Math.random() * 2000);
    if (Date.now() >= deadline - 1000) break;
    await kill(i);
    kills++;
    await start(i);
    i = (i + 1) % processes;
  }
}

const t0 = performance.now();
await Promise.all([killer(), ...Array.from({ length: writers }, (_, w) => writer(w))]);
const loadSeconds = (performance.now() - t0) / 1000;

// ---- what must hold -------------------------------------------------------------------------

async function outboxRows(
  status?: string,
): Promise<{ id: number; kind: string; status: string; message_id: string | null; recipient: string }[]> {
  const out = [];
  for (let offset = 0; ; offset += 500) {
    const page = await call(
      0,
      'GET',
      `/outbox?limit=500&offset=${offset}${status ? `&status=${status}` : ''}`,
      adminToken,
    );
    out.push(...page.body.outbox);
    if (page.body.outbox.length < 500) return out;
  }
}
const settleStart = performance.now();
const settleBy = Date.now() + 600_000;
let unsettled: {
  id: number;
  status: string;
  attempts?: number;
  next_attempt_at?: string;
  last_error?: string | null;
}[] = [];
for (;;) {
  unsettled = [...(await outboxRows('queued')), ...(await outboxRows('sending'))];
  if (unsettled.length === 0 || Date.now() > settleBy) break;
  await sleep(200);
}
await sleep(500); // the sink's last messages are parsed asynchronously

let lostWrites = 0;
for (const id of acked.tickets) if ((await call(0, 'GET', `/tickets/${id}`, adminToken)).status !== 200) lostWrites++;
const byTicket = new Map<number, Set<number>>();
for (const [txn, ticket] of acked.transactions) {
  if (!byTicket.has(ticket))
    byTicket.set(
      ticket,
      new Set(
        (await call(0, 'GET', `/tickets/${ticket}/transactions`, adminToken)).body.transactions.map(
          (t: { id: number }) => t.id,
        ),
      ),
    );
  if (!byTicket.get(ticket)!.has(txn)) lostWrites++;
}
const mails = (await outboxRows()).filter((r) => r.kind === 'email');
const received = new Map<string, number>();
// Copies of one message to several people may share its Message-ID: a notification is one (Message-ID, recipient).
const key = (messageId: string, to: string) => `${messageId}|${to.toLowerCase()}`;
for (const m of sink.messages) {
  const id = m.parsed.messageId ?? '';
  for (const to of m.envelope.to) received.set(key(id, to), (received.get(key(id, to)) ?? 0) + 1);
}
const lost = mails.filter((r) => r.status !== 'sent' || !received.get(key(r.message_id!, r.recipient))).length;
const doubled = mails.filter((r) => (received.get(key(r.message_id!, r.recipient)) ?? 0) > 1).length;
const summary = {
  store: values.store,
  processes,
  writers,
  load_s: +loadSeconds.toFixed(1),
  kills,
  acknowledged_writes: acked.tickets.size + acked.transactions.size,
  unanswered_requests: unanswered,
  refused_requests: refused,
  notifications: mails.length,
  failed_notifications: mails.filter((r) => r.status === 'failed').length,
  lost_writes: lostWrites,
  lost_notifications: lost,
  doubled_notifications: doubled,
  settle_s: +((performance.now() - settleStart) / 1000).toFixed(1),
  unsettled_after_600s: unsettled.map((r) => ({
    id: r.id,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at: r.next_attempt_at,
    last_error: r.last_error,
  })),
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
process.exitCode = lostWrites === 0 && lost === 0 && unsettled.length === 0 ? 0 : 1;

for (let i = 0; i < processes; i++) await kill(i);
await sink.close();
await cluster?.stop();
fs.rmSync(dataDir, { recursive: true, force: true });
