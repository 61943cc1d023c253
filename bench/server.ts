// The benchmarks' way of running hxdesk: as `npm start` does (compiled dist/, the Node flags of
// package.json's start script), in production mode, on a data directory of the caller's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The Node flags of `npm start` (`node <flags> dist/server.js`) of the tree at `tree`. */
export function startFlags(tree = root): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(tree, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  return start.split(/\s+/).filter((t) => t.startsWith('--'));
}

/**
 * Starts the compiled server (build it first) with these settings over the production defaults;
 * resolves once it listens. Its output (the access log's line per request, warnings) goes to
 * `<dataDir>/server.log`, as a server's log goes to a file or a journal: not through a pipe into
 * this process, whose event loop is the benchmark's client (a pipe woke it on every request's line,
 * inside the measured time, and the whole output was kept in one growing string). `output()` reads
 * the end of that file. `tree` is the checkout to run (this one by default; another commit's
 * worktree to compare against); `nodeFlags` go to node after npm start's own (e.g. `--cpu-prof`,
 * which NODE_OPTIONS does not take).
 */
export async function startProductionServer(
  dataDir: string,
  env: Record<string, string>,
  tree = root,
  nodeFlags: string[] = [],
): Promise<{ proc: ChildProcess; url: string; startMs: number; output(bytes?: number): string }> {
  const logFile = path.join(dataDir, 'server.log');
  const fd = fs.openSync(logFile, 'w');
  const output = (bytes = 20_000) => {
    const size = fs.statSync(logFile).size;
    const buf = Buffer.alloc(Math.min(bytes, size));
    const r = fs.openSync(logFile, 'r');
    try {
      fs.readSync(r, buf, 0, buf.length, size - buf.length);
    } finally {
      fs.closeSync(r);
    }
    return buf.toString('utf8');
  };
  const started = performance.now();
  const proc = spawn(process.execPath, [...startFlags(tree), ...nodeFlags, 'dist/server.js'], {
    cwd: tree,
    stdio: ['ignore', fd, fd],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SMTP_URL: '',
      IMAP_URL: '',
      ...env,
    },
  });
  fs.closeSync(fd);
  // The listening line is looked for whenever the file changes (inotify), and every 50 ms besides.
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(fs.readFileSync(logFile, 'utf8'));
      if (!m) return;
      done();
      resolve(m[1]);
    };
    const watcher = fs.watch(logFile, look);
    const timer = setInterval(look, 50);
    const exited = (code: number | null) => {
      done();
      reject(new Error(`server exited with ${code}\n${output()}`));
    };
    const done = () => {
      watcher.close();
      clearInterval(timer);
      proc.off('exit', exited);
    };
    proc.on('exit', exited);
  });
  return { proc, url, startMs: Math.round(performance.now() - started), output };
}

/** A memory figure of /proc/<pid>/status (VmHWM: the peak RSS) in MB; 0 once the process is gone. */
export function statusMb(pid: number, field = 'VmHWM'): number {
  let text = '';
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
}

/**
 * A fresh copy of the PostgreSQL database at `url` (CREATE DATABASE … TEMPLATE: a file copy in
 * the server), so that a benchmark's writes leave the dataset as it was. The source database
 * must have no other connections. Resolves to the copy's URL and a function that drops it.
 */
export async function copyPgDatabase(url: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const source = new URL(url);
  const from = decodeURIComponent(source.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  // Statements one by one on one connection (CREATE DATABASE cannot run in a transaction block).
  const run = async (...statements: string[]) => {
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      for (const sql of statements) await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
  await run(`DROP DATABASE IF EXISTS ${ident(name)}`, `CREATE DATABASE ${ident(name)} TEMPLATE ${ident(from)}`);
  const copy = new URL(url);
  copy.pathname = `/${name}`;
  return { url: copy.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`) };
}
