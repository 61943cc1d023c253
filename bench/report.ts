// SPEC D4's report measure (decision 079): a 90-day summary by queue at 100,000 tickets on SQLite,
// in process (the domain function the route calls), and the CSV of the same period.
//   node --import tsx bench/report.ts [--size 100k] [--runs 5]
// The dataset is bench/seed.ts's (reused between runs), copied and given what reports read:
// each resolved or rejected ticket its Status entry at its last update, one in 20 of the resolved
// a resolve and a reopen before that, a time entry on one ticket in 3, a rating on one resolved
// ticket in 5.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDb, openDb, sqliteOf } from '../src/db/store.js';
import { ticketsCsv } from '../src/domain/reports/csv.js';
import { reportSummary } from '../src/domain/reports/summary.js';
import { ensureDataset } from './seed.js';

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] as string) : def;
};
const sizeArg = arg('size', '100k');
const SIZE = Number(sizeArg.replace(/k$/, '000').replace(/m$/, '000000'));
const RUNS = Number(arg('runs', '5'));
const dir = path.join(os.tmpdir(), `hxdesk-bench-${SIZE}`);
const { dbPath } = await ensureDataset(dir, SIZE, (m) => process.stderr.write(`${m}\n`));
const work = path.join(os.tmpdir(), `hxdesk-bench-report-${SIZE}`);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const file = path.join(work, 'hxdesk.db');
fs.copyFileSync(dbPath, file);

{
  const db = openDb(file, { readThreads: 0 });
  const sql = sqliteOf(db);
  sql.exec(`
    INSERT INTO transactions (ticket_id, type, creator_id, field, old_value, new_value, scrip_results, created_at)
      SELECT id, 'Status', owner_id, 'status', 'open', 'resolved', '[]', strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '-3 hours')
      FROM tickets WHERE status = 'resolved' AND id % 20 = 0;
    INSERT INTO transactions (ticket_id, type, creator_id, field, old_value, new_value, scrip_results, created_at)
      SELECT id, 'Status', owner_id, 'status', 'resolved', 'open', '[]', strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '-2 hours')
      FROM tickets WHERE status = 'resolved' AND id % 20 = 0;
    INSERT INTO transactions (ticket_id, type, creator_id, field, old_value, new_value, scrip_results, created_at)
      SELECT id, 'Status', owner_id, 'status', 'open', status, '[]', updated_at
      FROM tickets WHERE status IN ('resolved', 'rejected');
    INSERT INTO time_entries (ticket_id, user_id, creator_id, minutes, worked_on, note, created_at)
      SELECT t.id, u.id, u.id, 5 + t.id % 55, substr(t.updated_at, 1, 10), '', t.updated_at
      FROM tickets AS t JOIN (SELECT min(id) AS id FROM users WHERE role = 'agent') AS u WHERE t.id % 3 = 0;
    INSERT INTO ticket_ratings (ticket_id, resolve_txn_id, requester_id, rating, comment, transaction_id, rated_at)
      SELECT id, id, requester_id, CASE id % 3 WHEN 0 THEN 'bad' WHEN 1 THEN 'good' ELSE 'okay' END, '', id, updated_at
      FROM tickets WHERE status = 'resolved' AND id % 5 = 0;
    ANALYZE;`);
  await closeDb(db);
}

const db = openDb(file);
const admin = { id: 1, email: 'admin@bench.local', name: 'Admin', role: 'admin' as const };
const to = new Date(Date.now() + 86400_000).toISOString().slice(0, 10);
const from = new Date(Date.now() - 89 * 86400_000).toISOString().slice(0, 10);
const times: number[] = [];
const cpu: number[] = [];
let report: Awaited<ReturnType<typeof reportSummary>> | undefined;
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  report = await reportSummary(db, admin, { from, to, group_by: 'queue' });
  times.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
}
const t0 = performance.now();
let bytes = 0;
for await (const chunk of await ticketsCsv(db, admin, { from, to })) bytes += chunk.length;
const csvMs = performance.now() - t0;
const sorted = [...times].sort((a, b) => a - b);
console.log(
  JSON.stringify(
    {
      size: SIZE,
      period: { from, to },
      totals: report && {
        created: report.totals.created,
        resolved: report.totals.resolved,
        reopened: report.totals.reopened,
        time_worked_minutes: report.totals.time_worked_minutes,
        csat: report.totals.csat.count,
      },
      summary_ms: {
        first: Math.round(times[0] as number),
        median: Math.round(sorted[sorted.length >> 1] as number),
        all: times.map(Math.round),
      },
      // CPU time of this process: what the wall time is when the machine's cores are not shared.
      summary_cpu_ms: cpu.map(Math.round),
      load_average: os.loadavg().map((x) => Math.round(x * 100) / 100),
      csv: { ms: Math.round(csvMs), bytes },
    },
    null,
    2,
  ),
);
await closeDb(db);
