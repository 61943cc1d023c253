// Every list shape at once, slowest first: each of a few filters crossed with each sort, range,
// set and count option of SPEC B4, in process (app.fetch), p50 of N runs, on a copy of a dataset.
//   DATASET=data/bench/dataset-100000/hxdesk.db [N=9] [TOP=40] [TREE=.] [SKIP=<regex>] node bench/list-shapes.mjs
// Build first (npx tsc -p tsconfig.build.json). `npm run bench` measures a handful of lists; this
// finds the shapes it does not have (decision 108 came out of it: tag_any, priority with a status,
// two sets). The dataset's seed spreads statuses evenly over time and gives every requester the
// same domain: a shape slow here may be slow only on such data (requester_domain), and a shape
// fast here may not be on an aged helpdesk's.
// DATABASE_URL=postgres://…/<the dataset, copied by hxdesk copy-store> puts PostgreSQL beside it:
// each shape on both stores, request by request, sorted by PostgreSQL ÷ SQLite (appOnStore).
// PostgreSQL plans a named statement for its values on its first five runs on a connection, and
// may keep a generic plan after: a shape slow here is measured again past that (bench/ab-pg.mjs)
// before anything is built for it (decision 109).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appInProcess, appOnStore } from './appInProcess.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dataset = process.env.DATASET ?? path.join(root, 'data/bench/dataset-100000/hxdesk.db');
const N = Number(process.env.N ?? 9);
const TOP = Number(process.env.TOP ?? 40);
const tree = path.resolve(process.env.TREE ?? root);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hx-list-shapes-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.copyFileSync(dataset, path.join(dir, 'hxdesk.db'));
const made = await appInProcess(tree, path.join(dir, 'hxdesk.db'), 'list-shapes');
const pg = process.env.DATABASE_URL
  ? await appOnStore(path.join(tree, 'dist'), { DATABASE_URL: process.env.DATABASE_URL }, 'list-shapes')
  : undefined;

const filters = [
  '',
  'status=open',
  'status=new,open',
  'queue_id=3',
  'queue_id=3&status=open',
  'owner_id=21',
  'owner_id=none',
  'team_id=2',
  'status_category=active',
];
const options = [
  '',
  ...['created', '-priority', 'priority', 'id', '-id', 'owner', 'queue', 'status', 'due'].map((s) => `sort=${s}`),
  'offset=2000',
  'created_from=2026-06-01T00:00:00Z',
  'created_from=2025-01-01T00:00:00Z&created_to=2025-02-01T00:00:00Z',
  'untagged=true',
  'snoozed=false',
  'sla=breached',
  'requester_domain=example.com',
  'requester_id=5000',
  'ticket_team_id=2',
  'ticket_team_id=none',
  'my_teams=true',
  'cf.account=12345',
  'cf.severity=low',
  'tag=hardware',
  'tag_any=billing,hardware',
  'tag=billing&cf.severity=high',
  'q=printer',
  'q=zz',
  'count=exact',
];

const rows = [];
const timed = async (url) => {
  const started = performance.now();
  const res = await made.app.fetch(
    new Request(`http://bench${url}`, { headers: { authorization: `Bearer ${made.token}` } }),
  );
  await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - started;
};
const p50 = (times) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
for (const f of filters)
  for (const o of options) {
    const url = `/tickets?${[f, o].filter(Boolean).join('&')}`;
    if (process.env.SKIP && new RegExp(process.env.SKIP).test(url)) continue;
    const times = [];
    const pgTimes = [];
    for (let i = 0; i < N; i++) {
      times.push(await timed(url));
      if (pg) pgTimes.push(await pg.call(url, 'application/json'));
    }
    rows.push({ ms: p50(times), pg: pg ? p50(pgTimes) : undefined, url });
  }
await made.close();
if (pg) await pg.store.close();
if (pg) rows.sort((a, b) => b.pg / b.ms - a.pg / a.ms);
else rows.sort((a, b) => b.ms - a.ms);
process.stdout.write(
  `${rows.length} list shapes, p50 of ${N} in process; the ${Math.min(TOP, rows.length)} ${pg ? 'furthest from SQLite on PostgreSQL' : 'slowest'}:\n`,
);
for (const r of rows.slice(0, TOP))
  process.stdout.write(
    pg
      ? `${r.ms.toFixed(2).padStart(9)} ms SQLite ${r.pg.toFixed(2).padStart(9)} ms PostgreSQL ${(r.pg / r.ms).toFixed(2).padStart(6)}×  ${r.url}\n`
      : `${r.ms.toFixed(2).padStart(9)} ms  ${r.url}\n`,
  );
if (pg) process.exit(0);
