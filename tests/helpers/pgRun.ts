import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopRun } from './postgres.js';

/**
 * vitest's globalSetup for the run's PostgreSQL clusters (tests/helpers/postgres.ts): a directory
 * for the run, named to the workers by HXDESK_PG_RUN_DIR, in which each worker slot's first file
 * that needs PostgreSQL starts the slot's cluster. The teardown stops them all and removes the
 * directory, whatever the tests did; should the run itself be killed before, the next run stops
 * what it left (a run directory whose vitest process is gone).
 */
const PREFIX = 'hxdesk-pg-run-';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export default function setup(): () => void {
  for (const e of fs.readdirSync(os.tmpdir())) {
    if (!e.startsWith(PREFIX)) continue;
    const dir = path.join(os.tmpdir(), e);
    const owner = Number(fs.readFileSync(path.join(dir, 'owner'), 'utf8').trim() || 0);
    if (!owner || !alive(owner)) stopRun(dir);
  }
  const run = fs.mkdtempSync(path.join(os.tmpdir(), PREFIX));
  fs.chmodSync(run, 0o755); // the postgres user reaches its clusters' dirs through it
  fs.writeFileSync(path.join(run, 'owner'), String(process.pid));
  process.env.HXDESK_PG_RUN_DIR = run;
  const teardown = () => {
    process.off('exit', teardown);
    stopRun(run);
  };
  process.on('exit', teardown);
  return teardown;
}
