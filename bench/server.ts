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
 * resolves once it listens. `onOutput` sees everything it prints; `tree` is the checkout to run
 * (this one by default; another commit's worktree to compare against); `nodeFlags` go to node
 * after npm start's own (e.g. `--cpu-prof`, which NODE_OPTIONS does not take).
 */
export async function startProductionServer(
  dataDir: string,
  env: Record<string, string>,
  onOutput?: (chunk: string) => void,
  tree = root,
  nodeFlags: string[] = [],
): Promise<{ proc: ChildProcess; url: string; startMs: number }> {
  const started = performance.now();
  const proc = spawn(process.execPath, [...startFlags(tree), ...nodeFlags, 'dist/server.js'], {
    cwd: tree,
    stdio: ['ignore', 'pipe', 'pipe'],
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
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      onOutput?.(String(d));
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}\n${out}`)));
  });
  return { proc, url, startMs: Math.round(performance.now() - started) };
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
