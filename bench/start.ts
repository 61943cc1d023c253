// npm run bench -- --start [--runs 5]: how long `npm start` takes, with nothing changed since the
// last build, from the command to the first 200 of /healthz (SPEC D6 "Start fast": ≤ 2 s;
// docs/decisions/057). One warm-up start builds what is stale and migrates a fresh data
// directory; then each measured run spawns `npm start` (npm itself, its prestart freshness check,
// the server's boot on the same data directory), polls /healthz every 10 ms, and stops the
// process group. Prints each run and the median, minimum and maximum in ms.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { root } from './server.js';

const args = process.argv.slice(2);
const at = args.indexOf('--runs');
const RUNS = at >= 0 ? Number(args[at + 1]) : 5;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/**
 * CPU seconds the processes of group `pgrp` used so far (Linux /proc; clock ticks of 10 ms): each
 * live member's own, plus what its finished children used (npm's prestart). A load-independent
 * figure beside the wall time, which on a shared machine is mostly waiting for a core.
 */
function groupCpuSec(pgrp: number): number {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
    if (Number(f[2]) !== pgrp) continue;
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return ticks / 100;
}

/** One `npm start`: ms from spawning it to /healthz answering 200 and the CPU it took, then the whole process group stopped. */
async function startOnce(dataDir: string, timeoutMs: number): Promise<{ ms: number; cpu: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    detached: true, // its own process group: npm, sh and node stop together
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SMTP_URL: '',
      IMAP_URL: '',
    },
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}\n${stderr}`))),
  );
  try {
    for (;;) {
      const ok = await Promise.race([
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        ),
        exited,
      ]);
      const ms = performance.now() - started;
      if (ok) return { ms: Math.round(ms), cpu: groupCpuSec(child.pid!) };
      if (ms > timeoutMs) throw new Error(`no /healthz 200 within ${timeoutMs} ms\n${stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    exited.catch(() => {});
    const gone = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid!, 'SIGTERM');
    await gone;
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-bench-start-'));
try {
  const warm = await startOnce(dataDir, 300_000);
  console.log(`warm-up (builds what changed, migrates a fresh data directory): ${warm.ms} ms`);
  const runs: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await startOnce(dataDir, 60_000);
    runs.push(r.ms);
    cpu.push(r.cpu);
    console.log(`run ${i + 1}: ${r.ms} ms (${r.cpu.toFixed(2)} s of CPU)`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    JSON.stringify({
      op: 'npm start → /healthz 200, nothing changed',
      runs,
      median_ms: median(runs),
      min_ms: Math.min(...runs),
      max_ms: Math.max(...runs),
      median_cpu_s: median(cpu),
      load_average: os.loadavg().map((l) => +l.toFixed(2)),
      cores: os.cpus().length,
    }),
  );
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
