// Every list shape at once, slowest first: each of a few filters crossed with each sort, range,
// set and count option of SPEC B4, in process (app.fetch), p50 of N runs, on a copy of a dataset.
//   DATASET=data/bench/dataset-100000/hxdesk.db [N=9] [TOP=40] [TREE=.] node bench/list-shapes.mjs
// Build first (npx tsc -p tsconfig.build.json). `npm run bench` measures a handful of lists; this
// finds the shapes it does not have (decision 108 came out of it: tag_any, priority with a status,
// two sets). The dataset's seed spreads statuses evenly over time and gives every requester the
// same domain: a shape slow here may be slow only on such data (requester_domain), and a shape
// fast here may not be on an aged helpdesk's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appInProcess } from './appInProcess.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dataset = process.env.DATASET ?? path.join(root, 'data/bench/dataset-100000/hxdesk.db');
const N = Number(process.env.N ?? 9);
const TOP = Number(process.env.TOP ?? 40);
const tree = path.resolve(process.env.TREE ?? root);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hx-list-shapes-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.copyFileSync(dataset, path.join(dir, 'hxdesk.db'));
const made = await appInProcess(tree, path.join(dir, 'hxdesk.db'), 'list-shapes');

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
for (const f of filters)
  for (const o of options) {
    const url = `/tickets?${[f, o].filter(Boolean).join('&')}`;
    const times = [];
    for (let i = 0; i < N; i++) {
      const started = performance.now();
      const res = await made.app.fetch(
        new Request(`http://bench${url}`, { headers: { authorization: `Bearer ${made.token}` } }),
      );
      await res.text();
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    rows.push({ ms: times[Math.floor(times.length / 2)], url });
  }
await made.close();
rows.sort((a, b) => b.ms - a.ms);
process.stdout.write(
  `${rows.length} list shapes, p50 of ${N} in process; the ${Math.min(TOP, rows.length)} slowest:\n`,
);
for (const r of rows.slice(0, TOP)) process.stdout.write(`${r.ms.toFixed(2).padStart(9)} ms  ${r.url}\n`);
