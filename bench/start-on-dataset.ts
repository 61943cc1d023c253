// How long the compiled server takes to start on a migrated dataset (issue 32's "start-up at 100k
// ≤ 700 ms"), spawn to its "listening" line, and what a bare request costs over HTTP from this
// process (`GET /healthz`: the floor under every single-client figure of `npm run bench`):
//   node --import tsx bench/start-on-dataset.ts <dataset dir holding hxdesk.db> [runs=5]
// The dataset is copied once; the first start (which migrates a dataset older than the tree, and
// is not counted) is followed by `runs` starts on the same copy. Build first (npm run build).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startProductionServer } from './server.js';

const [from, runsArg] = process.argv.slice(2);
if (!from || !fs.existsSync(path.join(from, 'hxdesk.db')))
  throw new Error('usage: start-on-dataset.ts <dir with hxdesk.db> [runs]');
const runs = Number(runsArg ?? 5);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-start-'));
execFileSync('cp', [path.join(from, 'hxdesk.db'), path.join(dir, 'hxdesk.db')]);
const env = { MAILGATE_TOKEN: 'x'.repeat(32), MAIL_ADDRESSES: 'support@bench.example' };
const stop = (p: import('node:child_process').ChildProcess) =>
  new Promise<void>((resolve) => {
    p.once('exit', () => resolve());
    p.kill('SIGTERM');
  });
try {
  const first = await startProductionServer(dir, env);
  await stop(first.proc);
  const times: number[] = [];
  let floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = await startProductionServer(dir, env);
    times.push(s.startMs);
    if (i === runs - 1) {
      for (let j = 0; j < 50; j++) await (await fetch(`${s.url}/healthz`)).text();
      floor = [];
      for (let j = 0; j < 300; j++) {
        const t = performance.now();
        await (await fetch(`${s.url}/healthz`)).text();
        floor.push(performance.now() - t);
      }
    }
    await stop(s.proc);
  }
  const sorted = [...times].sort((a, b) => a - b);
  floor.sort((a, b) => a - b);
  console.log(
    `start (spawn to listening), ${runs} runs: ${times.join(', ')} ms; median ${sorted[Math.floor(runs / 2)]} ms`,
  );
  console.log(`GET /healthz over HTTP, 300 requests: p50 ${floor[150].toFixed(2)} ms, p95 ${floor[285].toFixed(2)} ms`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
