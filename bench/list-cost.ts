// CPU per list, in process, on a copy of a bench dataset: the list variants of the mixed load
// (bench/mixed.ts) run straight through the store's listTickets, no HTTP, no serialization.
//   node --import tsx bench/list-cost.ts <copy of data/bench/dataset-100000/hxdesk.db> [n per variant]
// Prints per variant the mean CPU ms per list and the rows counted. The copy is migrated.
import type { TicketListSpec } from '../src/db/ticketListSpec.js';
import { openDb, sqliteOf } from '../src/db/store.js';

const file = process.argv[2];
const N = Number(process.argv[3] ?? 40);
if (!file) throw new Error('usage: bench/list-cost.ts <sqlite file> [n]');
const db = openDb(file);
const sqlite = sqliteOf(db);
const pick = <T>(a: readonly T[], i: number) => a[i % a.length];
const agents = (
  sqlite.prepare("SELECT id FROM users WHERE role = 'agent' AND disabled = 0").all() as { id: number }[]
).map((r) => r.id);
const queues = (sqlite.prepare('SELECT id FROM queues').all() as { id: number }[]).map((r) => r.id);
const teams = (sqlite.prepare('SELECT id FROM teams').all() as { id: number }[]).map((r) => r.id);
const severity = (sqlite.prepare("SELECT id FROM custom_fields WHERE key = 'severity'").get() as { id: number }).id;
const base: TicketListSpec = { includeComments: true, cf: [], sort: 'updated', desc: true, limit: 50, offset: 0 };
const active = ['new', 'open', 'stalled'];
const variants: Record<string, (i: number) => TicketListSpec> = {
  'active, updated': (i) => ({ ...base, status: active, offset: i % 5 === 4 ? 50 * (i % 20) : 0 }),
  'queue+status': (i) => ({
    ...base,
    queue_id: pick(queues, i),
    status: pick([['open'], ['new'], ['new', 'open'], ['stalled']], i),
  }),
  'owner+active': (i) => ({
    ...base,
    owner_id: pick(agents, i * 7),
    status: active,
    sort: pick(['updated', 'priority'] as const, i),
  }),
  'owner=none': (i) => ({ ...base, owner_id: 'none', status: ['new'], offset: i % 5 === 4 ? 50 * (i % 20) : 0 }),
  team: (i) => ({ ...base, owner_team_id: pick(teams, i), status: ['open'] }),
  'cf.severity': (i) => ({
    ...base,
    cf: [{ field_id: severity, value: pick(['high', 'critical'], i) }],
    status: pick([['open'], ['new', 'open']], i >> 1),
  }),
  'priority+offset': (i) => ({ ...base, sort: 'priority', offset: 50 * ((i * 37) % 100) }),
  'all, default': (i) => ({ ...base, limit: pick([25, 50, 100], i) }),
  'created asc+offset': (i) => ({
    ...base,
    queue_id: pick(queues, i),
    sort: 'created',
    desc: false,
    offset: 50 * ((i * 13) % 40),
  }),
  'q rare word': (i) => ({ ...base, q: pick(['kelfingra', 'lopolfin', 'quuxfrobnicator', 'drimbosk'], i) }),
  'q helpdesk word': (i) => ({
    ...base,
    q: pick(['install', 'invoice', 'refund', 'login'], i),
    status: i % 2 ? active : undefined,
  }),
  'q printer': () => ({ ...base, q: 'printer' }),
};
const store = db.store;
const out: Record<string, { ms: number; total: number }> = {};
for (const [name, make] of Object.entries(variants)) {
  for (let i = 0; i < 3; i++) await store.queries.listTickets(db, make(i)).catch(() => {});
  let total = 0;
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++)
    total += (await store.queries.listTickets(db, make(i)).catch(() => ({ total: -1 }))).total;
  const c = process.cpuUsage(c0);
  out[name] = { ms: Math.round((c.user + c.system) / N / 10) / 100, total: Math.round(total / N) };
}
console.log(JSON.stringify(out));
