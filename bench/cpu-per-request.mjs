// CPU time per request, in process (app.fetch, no network), to compare two trees of hxdesk:
//   node bench/cpu-per-request.mjs <tree> [n]   (build the tree first: npx tsc -p tsconfig.build.json;
//   the 10k dataset must exist: npm run bench -- --size 10k --quick makes it). Prints JSON, µs per request.
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
const tree = process.argv[2]; const N = Number(process.argv[3] ?? 300);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpucmp-'));
fs.copyFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'data', 'bench', 'dataset-10000', 'hxdesk.db'), path.join(dir, 'hxdesk.db'));
const d = (p) => import(path.join(tree, 'dist', p));
const { loadEnv } = await d('env.js');
const storeMod = fs.existsSync(path.join(tree, 'dist/db/store.js')) ? await d('db/store.js') : await d('db/client.js');
const { createApp } = await d('app.js');
const { createToken } = await d('domain/auth.js');
const env = loadEnv({ NODE_ENV: 'production', DATA_DIR: dir, MAILGATE_TOKEN: 'x'.repeat(32) });
const db = storeMod.openDb(path.join(dir, 'hxdesk.db'));
const log = () => {};
const app = await createApp({ db, env, log });
const token = (await createToken(db, { id: 1, email: 'a', name: 'a', role: 'admin' }, 'cpu')).token;
const H = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const call = async (method, p, body, extra = {}) => {
  const res = await app.fetch(new Request(`http://x${p}`, { method, headers: { ...H, ...extra }, body: body ? JSON.stringify(body) : undefined }));
  const t = await res.text(); if (res.status >= 400) throw new Error(`${method} ${p} ${res.status} ${t.slice(0, 200)}`); return t;
};
let ticket = JSON.parse(await call('POST', '/tickets', { queue_id: 1, subject: 'cpu base', description: 'x' })).ticket.id;
const ops = {
  'create ticket': (i) => call('POST', '/tickets', { queue_id: 1, subject: `CPU ticket ${i}`, description: `Body ${i}` }),
  'public reply': (i) => call('POST', `/tickets/${ticket}/comment`, { body: `Reply ${i}`, internal: false }),
  'internal comment': (i) => call('POST', `/tickets/${ticket}/comment`, { body: `Note ${i}`, internal: true }),
  'PATCH status': (i) => call('PATCH', `/tickets/${ticket}`, { status: i % 2 ? 'open' : 'stalled' }),
  'list queue+status': () => call('GET', '/tickets?queue_id=1&status=open'),
  'list owner_id=none': () => call('GET', '/tickets?owner_id=none&status=new'),
  'q subject word': () => call('GET', '/tickets?q=printer'),
  'ticket page HTML': () => call('GET', `/tickets/${ticket}`, undefined, { accept: 'text/html' }),
  'ticket list HTML': () => call('GET', '/tickets', undefined, { accept: 'text/html' }),
};
const out = {};
for (const [name, fn] of Object.entries(ops)) {
  for (let i = 0; i < 20; i++) await fn(i); // warm
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < N; i++) await fn(i);
  const c = process.cpuUsage(c0); const t = performance.now() - t0;
  out[name] = { cpu_us: Math.round((c.user + c.system) / N), wall_us: Math.round((t * 1000) / N) };
}
console.log(JSON.stringify(out));
process.exit(0);
