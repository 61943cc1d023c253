// Where one request's PostgreSQL time goes, in process (app.fetch, no network), on a database
// holding a dataset (`hxdesk copy-store --to …`; reads only, so no copy is made):
//   DATABASE_URL=postgres://…/hxdesk_bench URL='/tickets?queue_id=1' node bench/pg-statements.mjs
// ACCEPT=text/html for the page. Build first: npx tsc -p tsconfig.build.json.
// Prints the wall time per request, the round trips per request (every statement is one), and
// the time per statement from sending it to its rows (the server's time plus the socket's);
// the PostgreSQL twin of bench/statements.mjs (issue 32, docs/decisions/088).
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const url = process.env.URL ?? '/tickets?queue_id=1&status=open';
const N = Number(process.env.N ?? 300);
if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL=postgres://…/<a database holding the dataset>');
const { default: pg } = await import(path.join(root, 'node_modules/pg/lib/index.js'));

let on = false;
const statements = new Map();
// TRACE=1: one more request after the measured ones, its statements printed in the order they were
// sent with their start and end (ms from the request's start): the page's round trips in sequence.
let trace = null;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  if (!on) return query.call(this, config, ...rest);
  const text = (typeof config === 'string' ? config : (config?.text ?? config?.name ?? '?')).replace(/\s+/g, ' ');
  const t = process.hrtime.bigint();
  const traced = trace ? { text, start: Number(t - trace.t0) / 1e6, end: 0 } : null;
  if (traced) trace.rows.push(traced);
  const done = () => {
    if (traced) traced.end = Number(process.hrtime.bigint() - trace.t0) / 1e6;
    const s = statements.get(text) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += Number(process.hrtime.bigint() - t) / 1e6;
    statements.set(text, s);
  };
  // pg-pool's pool.query passes a callback; a checked-out client's query returns a promise.
  const cb = rest.length && typeof rest[rest.length - 1] === 'function' ? rest.pop() : null;
  if (cb)
    return query.call(this, config, ...rest, (...a) => {
      done();
      cb(...a);
    });
  const r = query.call(this, config, ...rest);
  r?.then?.(done, () => {});
  return r;
};

const { appOnStore } = await import('./appInProcess.mjs');
const { call: get, store } = await appOnStore(
  path.join(root, 'dist'),
  { DATA_DIR: '/tmp', DATABASE_URL: process.env.DATABASE_URL },
  'pg-statements',
);
const call = () => get(url, process.env.ACCEPT ?? 'application/json');
for (let i = 0; i < 30; i++) await call();
on = true;
const times = [];
for (let i = 0; i < N; i++) {
  const t = performance.now();
  await call();
  times.push(performance.now() - t);
}
on = false;
times.sort((a, b) => a - b);
const rows = [...statements].sort((a, b) => b[1].ms - a[1].ms);
const sum = rows.reduce((a, [, s]) => a + s.ms, 0) / N;
const trips = rows.reduce((a, [, s]) => a + s.n, 0) / N;
console.log(
  `GET ${url}: p50 ${times[Math.floor(N / 2)].toFixed(2)} ms a request (in process), ${trips.toFixed(1)} statements, ${sum.toFixed(2)} ms waiting on them`,
);
for (const [k, s] of rows.slice(0, Number(process.env.TOP ?? 15)))
  console.log(
    `${(s.ms / N).toFixed(3).padStart(7)} ms  ×${(s.n / N).toFixed(1)}  ${k.slice(0, Number(process.env.WIDTH ?? 220))}`,
  );
if (process.env.TRACE) {
  trace = { t0: process.hrtime.bigint(), rows: [] };
  on = true;
  await call();
  const total = Number(process.hrtime.bigint() - trace.t0) / 1e6;
  console.log(`\none request traced: ${total.toFixed(2)} ms, ${trace.rows.length} statements (start → end ms)`);
  for (const r of trace.rows)
    console.log(
      `${r.start.toFixed(2).padStart(7)} → ${r.end.toFixed(2).padStart(7)}  ${r.text.slice(0, Number(process.env.WIDTH ?? 160))}`,
    );
}
await store.close();
process.exit(0);
