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

/** A minute: a run directory without its owner file yet is another run being set up. */
const SETTING_UP_MS = 60_000;

/**
 * Whether `dir` is a run that is over: its vitest process is gone. Another run may be writing
 * its owner file this moment, or removing its directory (runs go on side by side): neither is
 * left behind.
 */
function leftBehind(dir: string): boolean {
  try {
    const owner = Number(fs.readFileSync(path.join(dir, 'owner'), 'utf8').trim() || 0);
    return !owner || !alive(owner);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    try {
      return Date.now() - fs.statSync(dir).mtimeMs > SETTING_UP_MS;
    } catch {
      return false; // removed meanwhile by its own run
    }
  }
}

export default function setup(): () => void {
  for (const e of fs.readdirSync(os.tmpdir())) {
    if (!e.startsWith(PREFIX)) continue;
    const dir = path.join(os.tmpdir(), e);
    try {
      if (leftBehind(dir)) stopRun(dir);
    } catch (e) {
      // Two runs starting together may both clear the same left-behind directory.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
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
