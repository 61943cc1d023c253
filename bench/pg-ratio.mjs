// PostgreSQL ÷ SQLite per request, measured side by side in one process (app.fetch, no network):
// each round sends one request to a SQLite app and the same request to a PostgreSQL app, so both
// see the same machine load (on a shared 2-core machine the bench's SQLite-then-PostgreSQL runs
// drifted 3× between the halves). Reads only; build first: npx tsc -p tsconfig.build.json.
//   SQLITE=<a copy of dataset-100000/hxdesk.db> DATABASE_URL=postgres://…/<a copy of the dataset>
//   [DIST=dist] [N=100] node bench/pg-ratio.mjs
// Prints per URL the p50 of each store in ms and their ratio (docs/decisions/088).
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = path.resolve(root, process.env.DIST ?? 'dist');
const N = Number(process.env.N ?? 100);
if (!process.env.SQLITE || !process.env.DATABASE_URL) throw new Error('SQLITE=<file> DATABASE_URL=postgres://…');
const { appOnStore } = await import('./appInProcess.mjs');
const app = (extra) => appOnStore(dist, { DATA_DIR: path.dirname(process.env.SQLITE), ...extra }, 'pg-ratio');
const sqlite = await app({});
const pg = await app({ DATABASE_URL: process.env.DATABASE_URL });
const json = 'application/json';
const html = 'text/html';
const ops = [
  ['list queue+status', (i) => `/tickets?queue_id=${1 + (i % 8)}&status=open`, json],
  ['list owner_id=none', () => '/tickets?owner_id=none', json],
  ['list team_id', (i) => `/tickets?team_id=${1 + (i % 6)}`, json],
  ['list cf.severity', (i) => `/tickets?cf.severity=${['low', 'medium', 'high', 'critical'][i % 4]}`, json],
  ['list tag', (i) => `/tickets?tag=${['billing', 'hardware', 'vpn', 'vip'][i % 4]}`, json],
  ['list queue+stage', (i) => `/tickets?queue_id=${1 + (i % 8)}&status_category=active`, json],
  ['sort priority, deep offset', (i) => `/tickets?sort=-priority&offset=${5000 + (i % 50) * 10}`, json],
  ['ticket page HTML', (i) => `/tickets/${1000 + (i % 50) * 37}`, html],
  ['ticket list HTML', () => '/tickets', html],
  ['q subject word', () => '/tickets?q=printer', json],
  ['q body-only word', () => '/tickets?q=quuxfrobnicator', json],
  ['q common word', () => '/tickets?q=password', json],
  ['q common word, a prefix', () => '/tickets?q=passw', json],
  ['q common word, open ones', () => '/tickets?q=password&status=new,open,stalled', json],
];
// ONLY=<a part of the operations' names> measures those alone.
const only = process.env.ONLY;
const p50 = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log('| operation | SQLite p50 ms | PostgreSQL p50 ms | PG ÷ SQLite |\n|---|---:|---:|---:|');
for (const [op, url, accept] of ops.filter(([name]) => !only || name.includes(only))) {
  const s = [];
  const p = [];
  for (let i = 0; i < 10; i++) {
    await sqlite.call(url(i), accept);
    await pg.call(url(i), accept);
  }
  for (let i = 0; i < N; i++) {
    // Alternate which store goes first, so neither always follows the other's garbage.
    if (i % 2) {
      s.push(await sqlite.call(url(i), accept));
      p.push(await pg.call(url(i), accept));
    } else {
      p.push(await pg.call(url(i), accept));
      s.push(await sqlite.call(url(i), accept));
    }
  }
  const a = p50(s);
  const b = p50(p);
  console.log(`| ${op} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(2)} |`);
}
await sqlite.store.close();
await pg.store.close();
process.exit(0);
