import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { migratePostgres } from '../../src/db/postgres/migrate.js';

/**
 * Throwaway PostgreSQL clusters for tests (Debian's postgresql-15; see ../shared/STACK.md).
 *
 * A cluster lives in a temp dir owned by the `postgres` OS user (the server refuses to run as
 * root): its data, its Unix socket and its log. It listens on a free port on 127.0.0.1 with
 * `trust` authentication and durability switched off (fsync, synchronous_commit,
 * full_page_writes: a crash loses a test's data, which is thrown away anyway). Starting one
 * costs about a second, a database in it a few milliseconds, so a test file starts one cluster
 * and takes a fresh database per test:
 *
 *   const pgTest = describe.skipIf(!pgAvailable());
 *   pgTest('…', () => {
 *     afterAll(stopPostgres);
 *     it('…', async () => { const url = await createMigratedDatabase(); … });
 *   });
 */

const execFileP = promisify(execFile);

/** Where the server binaries are: PG_BIN, else the newest /usr/lib/postgresql/<n>/bin (15 on Debian 12). */
function binDir(): string | null {
  if (process.env.PG_BIN) return fs.existsSync(path.join(process.env.PG_BIN, 'initdb')) ? process.env.PG_BIN : null;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const dir = path.join(root, v, 'bin');
    if (fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

const isRoot = () => process.getuid?.() === 0;

/** The uid and gid of the `postgres` OS user, which runs the server when we are root. */
function postgresUser(): { uid: number; gid: number } | null {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) return null;
  const f = line.split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

/**
 * Whether a throwaway cluster can be started here: the server binaries exist and, when we are
 * root, so does the `postgres` user to run them as.
 */
export function pgAvailable(): boolean {
  if (!binDir()) return false;
  return !isRoot() || (postgresUser() !== null && fs.existsSync('/usr/sbin/runuser'));
}

/** Runs a server binary as the `postgres` user (through runuser when we are root). */
function asPostgres(bin: string, args: string[]) {
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return execFileP(cmd, argv, { encoding: 'utf8' });
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const srv = net.createServer();
  srv.once('error', reject);
  srv.listen(0, '127.0.0.1', () => { const { port } = srv.address() as net.AddressInfo; srv.close(() => resolve(port)); });
});

export interface PgCluster {
  host: '127.0.0.1';
  port: number;
  /** The temp dir holding the data (`data/`), the socket and the log (`log`). */
  dir: string;
  /** How long initdb plus start took, in ms. */
  startMs: number;
  /** postgres://postgres@127.0.0.1:port/<database> */
  url(database?: string): string;
  /** A new, empty database; returns its URL. */
  createDatabase(): Promise<string>;
  /**
   * A new database with every migration of src/db/postgres/migrations applied. The first call
   * migrates a template database; later ones copy it (CREATE DATABASE … TEMPLATE), which is
   * much cheaper than migrating again.
   */
  createMigratedDatabase(): Promise<string>;
  /** The server log so far (for failure messages). */
  log(): string;
  /** Stops the server (fast shutdown: open connections are cut) and removes the temp dir. */
  stop(): Promise<void>;
}

/** Starts a new throwaway cluster. Prefer the shared one of a test file: `createDatabase()`. */
export async function startPostgres(): Promise<PgCluster> {
  const bin = binDir();
  if (!bin || !pgAvailable()) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql); check pgAvailable() first');
  const t0 = performance.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-pg-'));
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'log');
  fs.chmodSync(dir, 0o700);
  if (isRoot()) { const u = postgresUser()!; fs.chownSync(dir, u.uid, u.gid); }
  const cleanupOnExit = () => {
    // The test process is going away without stop(): take the server down with it.
    spawnSync(isRoot() ? 'runuser' : path.join(bin, 'pg_ctl'),
      isRoot() ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'] : ['-D', data, '-m', 'immediate', 'stop'],
      { stdio: 'ignore' });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', cleanupOnExit);
  let port = 0;
  try {
    // C.UTF-8: lower() and ILIKE fold non-ASCII letters too (a C locale folds ASCII only).
    await asPostgres(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const opts = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
      try {
        await asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-o', opts.join(' '), '-l', logFile, '-w', '-t', '30', 'start']);
        break;
      } catch (e) {
        // Another process may have taken the port between freePort() and the server's bind.
        if (attempt >= 3) throw new Error(`pg_ctl start failed: ${(e as Error).message}\n${readLog(logFile)}`);
      }
    }
  } catch (e) {
    process.off('exit', cleanupOnExit);
    cleanupOnExit();
    throw e;
  }
  const startMs = Math.round(performance.now() - t0);
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = new pg.Client({ connectionString: url() });
  admin.on('error', () => {}); // the server going away (stop(), a crash) must not throw out of the test process
  await admin.connect();
  // CREATE DATABASE … STRATEGY exists from PostgreSQL 15 on (PG_BIN may point at an older server).
  const version = Number((await admin.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0].v);
  const strategy = version >= 150000 ? ' STRATEGY FILE_COPY' : '';
  let n = 0;
  let template: Promise<string> | null = null;
  let stopped = false;

  const createFrom = async (source: string | null): Promise<string> => {
    const name = `hx_${++n}`;
    // FILE_COPY copies the template's files instead of WAL-logging every block: faster for small databases.
    const ddl = `CREATE DATABASE ${name}${source ? ` TEMPLATE ${source}` : ''}${strategy}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(ddl);
        return url(name);
      } catch (e) {
        // 55006: the template still has a session (a client that just disconnected whose backend has not exited yet).
        if ((e as { code?: string }).code !== '55006' || attempt >= 50) throw e;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };

  const cluster: PgCluster = {
    host: '127.0.0.1',
    port,
    dir,
    startMs,
    url,
    createDatabase: () => createFrom(null),
    createMigratedDatabase: async () => {
      template ??= (async () => {
        await admin.query(`CREATE DATABASE hx_template${strategy}`);
        await migratePostgres(url('hx_template'));
        return 'hx_template';
      })();
      return createFrom(await template);
    },
    log: () => readLog(logFile),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await admin.end().catch(() => {});
      try {
        await asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        process.off('exit', cleanupOnExit);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return cluster;
}

function readLog(file: string): string {
  try { return fs.readFileSync(file, 'utf8'); } catch { return ''; }
}

// One cluster per test file (vitest gives each file its own module instance), started on first use.
let shared: Promise<PgCluster> | null = null;

/** This test file's cluster, started on first use. */
export function postgres(): Promise<PgCluster> {
  shared ??= startPostgres();
  return shared;
}

/** A new empty database in this test file's cluster; returns its postgres:// URL. */
export async function createDatabase(): Promise<string> {
  return (await postgres()).createDatabase();
}

/** A new database with all PostgreSQL migrations applied, in this test file's cluster. */
export async function createMigratedDatabase(): Promise<string> {
  return (await postgres()).createMigratedDatabase();
}

/** Stops this test file's cluster and removes its files; for `afterAll`. */
export async function stopPostgres(): Promise<void> {
  if (!shared) return;
  const c = shared;
  shared = null;
  await (await c.catch(() => null))?.stop();
}
