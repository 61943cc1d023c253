// Where one request's SQLite time goes, in process (app.fetch, no network), on a copy of a dataset:
//   DATASET=data/bench/dataset-100000/hxdesk.db URL='/tickets?queue_id=1' node bench/statements.mjs
// ACCEPT=text/html for the page; METHOD=POST BODY='{"queue_id":1,"subject":"s #"}' for a write
// (each # becomes the request's number). Build first: npx tsc -p tsconfig.build.json.
// Prints the wall time per request, the time in SQLite statements per request by statement, and
// the queries drizzle built per request (a query built on each call instead of prepared once:
// building one costs ~50–150 µs, often more than SQLite running it). Issue 32's profile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dataset = process.env.DATASET ?? path.join(root, 'data/bench/dataset-10000/hxdesk.db');
const url = process.env.URL ?? '/tickets?queue_id=1&status=open';
const N = Number(process.env.N ?? 300);
const { default: Database } = await import(path.join(root, 'node_modules/better-sqlite3/lib/index.js'));
const { SQLiteSelectBase } = await import(path.join(root, 'node_modules/drizzle-orm/sqlite-core/index.js'));

// IN_PLACE=1 opens the dataset itself (GETs only: a 1M dataset is 8.7 GB to copy; as
// bench/in-place.mjs, the file is migrated on open and gets one API token, nothing else).
const inPlace = Boolean(process.env.IN_PLACE);
const dir = inPlace ? path.dirname(dataset) : fs.mkdtempSync(path.join(os.tmpdir(), 'hx-statements-'));
// The copy of the dataset goes when the script ends (a 100k copy is ~0.9 GB).
if (!inPlace) {
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(dataset, path.join(dir, 'hxdesk.db'));
}
let on = false;
const statements = new Map();
const built = new Map();
const note = (map, key, ms) => {
  const s = map.get(key) ?? { n: 0, ms: 0 };
  s.n++;
  s.ms += ms;
  map.set(key, s);
};
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (source) {
  const st = prepare.call(this, source);
  const key = source.replace(/\s+/g, ' ');
  for (const m of ['all', 'get', 'run', 'iterate']) {
    const orig = st[m];
    st[m] = function (...a) {
      if (!on) return orig.apply(this, a);
      const t = process.hrtime.bigint();
      try {
        return orig.apply(this, a);
      } finally {
        note(statements, key, Number(process.hrtime.bigint() - t) / 1e6);
      }
    };
  }
  return st;
};
const build = SQLiteSelectBase.prototype._prepare;
SQLiteSelectBase.prototype._prepare = function (...a) {
  const q = build.apply(this, a);
  if (on) note(built, q.getQuery?.().sql.replace(/\s+/g, ' ') ?? '?', 0);
  return q;
};

const { appInProcess } = await import('./appInProcess.mjs');
const { app, token, close } = await appInProcess(root, path.join(dir, 'hxdesk.db'), 'statements');
let seq = 0;
const call = async () => {
  const body = process.env.BODY?.replaceAll('#', String(seq++));
  const res = await app.fetch(
    new Request(`http://x${url}`, {
      method: process.env.METHOD ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        accept: process.env.ACCEPT ?? 'application/json',
        'content-type': 'application/json',
      },
      body,
    }),
  );
  await res.text();
  if (res.status >= 400) throw new Error(`${url}: ${res.status}`);
};
for (let i = 0; i < 50; i++) await call();
on = true;
const t0 = performance.now();
for (let i = 0; i < N; i++) await call();
const wall = (performance.now() - t0) / N;
on = false;
const rows = [...statements].sort((a, b) => b[1].ms - a[1].ms);
const sum = rows.reduce((a, [, s]) => a + s.ms, 0) / N;
console.log(
  `${process.env.METHOD ?? 'GET'} ${url}: ${wall.toFixed(2)} ms a request (wall, in process), ${sum.toFixed(2)} ms of it in SQLite statements`,
);
for (const [k, s] of rows.slice(0, Number(process.env.TOP ?? 12)))
  console.log(
    `${(s.ms / N).toFixed(3).padStart(7)} ms  ×${(s.n / N).toFixed(1)}  ${k.slice(0, Number(process.env.WIDTH ?? 150))}`,
  );
const nBuilt = [...built.values()].reduce((a, s) => a + s.n, 0) / N;
console.log(`queries built per request (not prepared): ${nBuilt}`);
for (const [k, s] of [...built].sort((a, b) => b[1].n - a[1].n).slice(0, 20))
  console.log(`  ×${(s.n / N).toFixed(1)}  ${k.slice(0, Number(process.env.WIDTH ?? 150))}`);
await close();
if (!inPlace) fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
