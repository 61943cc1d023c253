// CPU time per request, in process (app.fetch, no network), of two trees of hxdesk side by side:
//   node bench/cpu-per-request.mjs <treeA> <treeB> [rounds=15] [n=40]
// Both trees are loaded into this one process, each on its own copy of the 10k dataset (its own
// node_modules too: build each tree first with npx tsc -p tsconfig.build.json; the dataset comes
// from npm run bench -- --size 10k --quick). For each operation, `rounds` times: n requests on A,
// n on B (the order alternates each round), after a warm-up. Pairs taken a few milliseconds apart
// see the same machine, so B ÷ A per round cancels this VM's drift (±30 % between whole runs);
// the median of those ratios, with the spread of the middle half, is what is printed.
// One tree only (`<treeA>`) prints its medians alone. OPS=name,name limits the operations.
// SLA_POLICY=a, b or ab gives that tree (those trees) an SLA policy matching every ticket (SPEC
// D2's measure); the same tree may be given twice (`dist` is copied for the second).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const [treeA, treeB] = process.argv.slice(2, 4).map((t) => (t && !/^\d+$/.test(t) ? path.resolve(t) : undefined));
const nums = process.argv
  .slice(2)
  .filter((a) => /^\d+$/.test(a))
  .map(Number);
const ROUNDS = nums[0] ?? 15;
const N = nums[1] ?? 40;
if (!treeA) {
  console.error('usage: node bench/cpu-per-request.mjs <treeA> [treeB] [rounds] [n]');
  process.exit(2);
}
// DATASET=<file> measures another dataset (the 100k one of npm run bench -- --size 100k).
const dataset =
  process.env.DATASET ??
  path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'data', 'bench', 'dataset-10000', 'hxdesk.db');

async function load(tree, slaPolicy) {
  const treeTag = path.basename(tree);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpucmp-'));
  // The copy of the dataset goes when the script ends (a 100k copy is ~0.9 GB).
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(dataset, path.join(dir, 'hxdesk.db'));
  const d = (p) => import(path.join(tree, 'dist', p));
  const { loadEnv } = await d('env.js');
  const storeMod = fs.existsSync(path.join(tree, 'dist/db/store.js'))
    ? await d('db/store.js')
    : await d('db/client.js');
  const { createApp } = await d('app.js');
  const { createToken } = await d('domain/auth.js');
  const env = loadEnv({
    NODE_ENV: 'production',
    DATA_DIR: dir,
    MAILGATE_TOKEN: 'x'.repeat(32),
    MAIL_SENDER_MAX_PER_HOUR: '1000000',
    MAIL_ADDRESSES: 'support@cpu.example',
  });
  const db = storeMod.openDb(path.join(dir, 'hxdesk.db'));
  // store: what the app is handed since decision 065 (db: before it; the handle carries its store)
  const app = await createApp({ db, store: db.store, env, log: () => {} });
  const token = (await createToken(db, { id: 1, email: 'a', name: 'a', role: 'admin' }, 'cpu')).token;
  const H = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method, p, body, extra = {}) => {
    const res = await app.fetch(
      new Request(`http://x${p}`, {
        method,
        headers: { ...H, ...extra },
        body: body ? JSON.stringify(body) : undefined,
      }),
    );
    const t = await res.text();
    if (res.status >= 400) throw new Error(`${tree}: ${method} ${p} ${res.status} ${t.slice(0, 200)}`);
    return t;
  };
  if (slaPolicy)
    await call('POST', '/sla-policies', {
      name: 'Bench: every ticket',
      position: 1,
      match: {},
      calendar_id: null,
      first_response_minutes: 240,
      next_response_minutes: 480,
      resolution_minutes: 2880,
      warn_before_minutes: 30,
    });
  const ticket = JSON.parse(await call('POST', '/tickets', { queue_id: 1, subject: 'cpu base', description: 'x' }))
    .ticket.id;
  // A ticket page to read that does not grow while it is measured (the comments go to `ticket`).
  const page = JSON.parse(await call('POST', '/tickets', { queue_id: 1, subject: 'cpu page', description: 'x' })).ticket
    .id;
  for (let i = 0; i < 50; i++)
    await call('POST', `/tickets/${page}/comment`, { body: `Entry ${i}`, internal: i % 3 === 0 });
  // Mail on a customer's ticket (SPEC D0 reads who is on it, bounds its Cc, gates the relay): the
  // customer's own replies naming three colleagues (on the ticket after the first), and mail from
  // people who are not on it.
  const customer = JSON.parse(
    await call('POST', '/tickets', {
      queue_id: 1,
      subject: 'cpu mail',
      description: 'x',
      requesters: ['cust@cpu.example'],
    }),
  ).ticket.id;
  const mail = (from, i, cc = '') =>
    call(
      'POST',
      '/mailgate',
      {
        message:
          `From: ${from}\r\nTo: support@cpu.example\r\n${cc ? `Cc: ${cc}\r\n` : ''}` +
          `Subject: Re: [hxdesk #${customer}] cpu mail\r\nMessage-ID: <cpu.${i}.${Math.random().toString(36).slice(2)}@${treeTag}>\r\n\r\nReply ${i}\r\n`,
      },
      { authorization: `Bearer ${'x'.repeat(32)}` },
    );
  return {
    'mail reply (customer; 3 Cc)': (i) => mail('cust@cpu.example', i, 'a@cpu.example, b@cpu.example, c@cpu.example'),
    'mail from someone not on the ticket': (i) => mail(`stranger${i}@else.example`, i),
    'create ticket': (i) =>
      call('POST', '/tickets', { queue_id: 1, subject: `CPU ticket ${i}`, description: `Body ${i}` }),
    'public reply': (i) => call('POST', `/tickets/${ticket}/comment`, { body: `Reply ${i}`, internal: false }),
    'internal comment': (i) => call('POST', `/tickets/${ticket}/comment`, { body: `Note ${i}`, internal: true }),
    'PATCH status': (i) => call('PATCH', `/tickets/${ticket}`, { status: i % 2 ? 'open' : 'stalled' }),
    'list queue+status': () => call('GET', '/tickets?queue_id=1&status=open'),
    'list owner_id=none': () => call('GET', '/tickets?owner_id=none&status=new'),
    'list cf.severity': (i) => call('GET', `/tickets?cf.severity=${['low', 'medium', 'high', 'critical'][i % 4]}`),
    'sort priority deep offset': (i) => call('GET', `/tickets?sort=-priority&offset=${5000 + (i % 40) * 10}`),
    'q subject word': () => call('GET', '/tickets?q=printer'),
    // As bench/run.ts: a word of bodies only, a word of ~30 % of tickets, and text inside words (trigrams).
    'q body-only word': () => call('GET', '/tickets?q=quuxfrobnicator'),
    'q common word': () => call('GET', '/tickets?q=password'),
    'q inside words': () => call('GET', '/tickets?q=asswor'),
    'ticket page HTML (50 entries)': () => call('GET', `/tickets/${page}`, undefined, { accept: 'text/html' }),
    'ticket list HTML': () => call('GET', '/tickets', undefined, { accept: 'text/html' }),
    // Since C4 a q also looks for requesters by name and address (docs/decisions/035), and GET
    // /users pages (50 by default) where it answered everyone before.
    'q requester name': () => call('GET', '/tickets?q=Customer%20123'),
    'GET /users': () => call('GET', '/users'),
  };
}

const trees = [treeA, treeB].filter(Boolean);
if (trees.length === 2 && trees[0] === trees[1]) {
  // One tree twice: the second loads a copy of its dist (a module is loaded once per path).
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'cpucmp-tree-'));
  process.on('exit', () => fs.rmSync(copy, { recursive: true, force: true }));
  fs.cpSync(path.join(trees[0], 'dist'), path.join(copy, 'dist'), { recursive: true });
  fs.cpSync(path.join(trees[0], 'package.json'), path.join(copy, 'package.json'));
  for (const d of ['node_modules', 'src']) fs.symlinkSync(path.join(trees[0], d), path.join(copy, d));
  trees[1] = copy;
}
const policyFor = (process.env.SLA_POLICY ?? '').toLowerCase();
const opsOf = [];
for (const [i, t] of trees.entries()) opsOf.push(await load(t, policyFor.includes('ab'[i])));
const only = process.env.OPS?.split(',');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const quart = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
async function batch(fn, n, from) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(from + i);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}
const out = {};
let k = 0;
for (const name of Object.keys(opsOf[0]).filter((n) => !only || only.includes(n))) {
  for (const ops of opsOf) await batch(ops[name], 20, (k += 20)); // warm
  const per = trees.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...trees.keys()].reverse() : [...trees.keys()];
    for (const t of order) per[t].push(await batch(opsOf[t][name], N, (k += N)));
  }
  const row = { a_us: Math.round(median(per[0])) };
  if (trees.length > 1) {
    const ratios = per[0].map((a, i) => per[1][i] / a);
    Object.assign(row, {
      b_us: Math.round(median(per[1])),
      b_over_a: +median(ratios).toFixed(3),
      q1: +quart(ratios, 0.25).toFixed(3),
      q3: +quart(ratios, 0.75).toFixed(3),
    });
  }
  out[name] = row;
  console.error(name, JSON.stringify(row));
}
console.log(JSON.stringify({ a: treeA, b: treeB, rounds: ROUNDS, n: N, ops: out }));
process.exit(0);
