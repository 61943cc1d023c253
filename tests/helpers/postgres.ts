import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { migratePostgres } from '../../src/db/postgres/migrate.js';
import { freePort } from './net.js';

/**
 * Throwaway PostgreSQL clusters for tests (Debian's postgresql-15).
 *
 * A cluster lives in a temp dir owned by the `postgres` OS user (the server refuses to run as
 * root): its data, its Unix socket and its log. It listens on a free port on 127.0.0.1 with
 * `trust` authentication and durability switched off (fsync, synchronous_commit,
 * full_page_writes: a crash loses a test's data, which is thrown away anyway). Starting one
 * costs a second or two of CPU (initdb), a database in it a few milliseconds, so the run starts
 * one cluster per vitest worker slot (decision 047) and a test takes a fresh database per server
 * or per test; when a file is done its databases are dropped:
 *
 *   const pgTest = describe.skipIf(!pgAvailable());
 *   pgTest('…', () => {
 *     afterAll(releasePostgres);
 *     it('…', async () => { const url = await createMigratedDatabase(); … });
 *   });
 *
 * vitest runs each file in a process of its own (`isolate`), so a worker's cluster outlives the
 * process that started it: the global setup (tests/helpers/pgRun.ts) makes the run's directory
 * (HXDESK_PG_RUN_DIR), the first file of worker slot N (VITEST_POOL_ID, 1…maxWorkers; a slot runs
 * one file at a time) starts `worker-N` there and notes its port, later files of the slot use it,
 * and the global teardown stops every cluster of the run — after failed tests too, and at the
 * next run for a run that was killed. A test that changes the cluster itself (ALTER SYSTEM, a
 * tablespace, a restart) starts one of its own with startPostgres().
 */

const execFileP = promisify(execFile);

/** Where the server binaries are: PG_BIN, else the newest /usr/lib/postgresql/<n>/bin (15 on Debian 12). */
function binDir(): string | null {
  if (process.env.PG_BIN) return fs.existsSync(path.join(process.env.PG_BIN, 'initdb')) ? process.env.PG_BIN : null;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) {
    const dir = path.join(root, v, 'bin');
    if (fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

const isRoot = () => process.getuid?.() === 0;

/** The uid and gid of the `postgres` OS user, which runs the server when we are root. */
function postgresUser(): { uid: number; gid: number } | null {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
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

export interface PgCluster {
  host: '127.0.0.1';
  port: number;
  /** The dir holding the data (`data/`), the socket and the log (`log`). */
  dir: string;
  /** How long initdb plus start took, in ms (0 for a worker's cluster a previous file started). */
  startMs: number;
  /** postgres://postgres@127.0.0.1:port/<database> */
  url(database?: string): string;
  /** A new, empty database; returns its URL. */
  createDatabase(): Promise<string>;
  /**
   * A new database with every migration of src/db/postgres/migrations applied. The first call
   * migrates a template database (once per cluster); later ones copy it (CREATE DATABASE …
   * TEMPLATE), which is much cheaper than migrating again.
   */
  createMigratedDatabase(): Promise<string>;
  /** The server log so far (for failure messages). */
  log(): string;
  /** Stops the server (fast shutdown: open connections are cut) and removes its dir. */
  stop(): Promise<void>;
}

const TEMPLATE = 'hx_template';
/** The databases a cluster keeps when a file's are dropped. */
const KEPT = ['postgres', 'template0', 'template1', TEMPLATE];

/** The command that stops the server of `data` at once (for exit handlers and the run's teardown). */
function stopNowArgs(bin: string, data: string): [string, string[]] {
  const args = ['-D', data, '-m', 'immediate', 'stop'];
  return isRoot()
    ? ['runuser', ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), ...args]]
    : [path.join(bin, 'pg_ctl'), args];
}

/** A new dir for a cluster, owned by the user that runs the server. */
function clusterDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o700);
  if (isRoot()) {
    const u = postgresUser()!;
    fs.chownSync(dir, u.uid, u.gid);
  }
  return dir;
}

/** initdb and start a server in `dir`; returns its port. */
async function launch(bin: string, dir: string): Promise<number> {
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'log');
  // C.UTF-8: lower() and ILIKE fold non-ASCII letters too (a C locale folds ASCII only).
  await asPostgres(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const opts = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
    ];
    try {
      await asPostgres(path.join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-o',
        opts.join(' '),
        '-l',
        logFile,
        '-w',
        '-t',
        '30',
        'start',
      ]);
      return port;
    } catch (e) {
      // Another process may have taken the port between freePort() and the server's bind.
      if (attempt >= 3) throw new Error(`pg_ctl start failed: ${(e as Error).message}\n${readLog(logFile)}`);
    }
  }
}

function requireBin(): string {
  const bin = binDir();
  if (!bin || !pgAvailable())
    throw new Error('PostgreSQL server binaries not found (apt-get install postgresql); check pgAvailable() first');
  return bin;
}

/**
 * Starts a new throwaway cluster of this process, stopped by stop() or when the process exits.
 * Prefer the worker's: `createDatabase()`, `createMigratedDatabase()`, `postgres()`.
 */
export async function startPostgres(): Promise<PgCluster> {
  const bin = requireBin();
  const t0 = performance.now();
  const dir = clusterDir(fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-pg-')));
  const cleanupOnExit = () => {
    // The test process is going away without stop(): take the server down with it.
    const [cmd, args] = stopNowArgs(bin, path.join(dir, 'data'));
    spawnSync(cmd, args, { stdio: 'ignore' });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', cleanupOnExit);
  let port: number;
  try {
    port = await launch(bin, dir);
  } catch (e) {
    process.off('exit', cleanupOnExit);
    cleanupOnExit();
    throw e;
  }
  return (await connect(bin, dir, port, Math.round(performance.now() - t0), () => process.off('exit', cleanupOnExit)))
    .cluster;
}

/**
 * A PgCluster for the server of `dir` on `port`, and its admin connection. `stop()` stops it and
 * then calls `stopped`; without `stopped` (a worker's cluster, the run stops it) stop() refuses.
 */
async function connect(
  bin: string,
  dir: string,
  port: number,
  startMs: number,
  stopped?: () => void,
): Promise<{ cluster: PgCluster; admin: pg.Client }> {
  const data = path.join(dir, 'data');
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = new pg.Client({ connectionString: url() });
  admin.on('error', () => {}); // the server going away (stop(), a crash) must not throw out of the test process
  await admin.connect();
  // CREATE DATABASE … STRATEGY exists from PostgreSQL 15 on (PG_BIN may point at an older server).
  const version = Number(
    (await admin.query<{ v: string }>("SELECT current_setting('server_version_num') AS v")).rows[0].v,
  );
  const strategy = version >= 150000 ? ' STRATEGY FILE_COPY' : '';
  // Names unique among the processes that share the cluster one after the other.
  let n = 0;
  let template: Promise<string> | null = null;
  let stopped_ = false;

  const createFrom = async (source: string | null, name = `hx_${process.pid}_${++n}`): Promise<string> => {
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

  // The migrated template, made once per cluster: an earlier file of the worker may have made it.
  const migratedTemplate = async (): Promise<string> => {
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE])).rowCount) return TEMPLATE;
    const building = `${TEMPLATE}_${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await createFrom(null, building);
    await migratePostgres(url(building));
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE}`);
    return TEMPLATE;
  };

  const cluster: PgCluster = {
    host: '127.0.0.1',
    port,
    dir,
    startMs,
    url,
    createDatabase: () => createFrom(null),
    createMigratedDatabase: async () => {
      template ??= migratedTemplate();
      template.catch(() => {
        template = null;
      });
      return createFrom(await template);
    },
    log: () => readLog(path.join(dir, 'log')),
    stop: async () => {
      if (!stopped)
        throw new Error(
          "A worker's cluster is stopped by the run (tests/helpers/pgRun.ts), not by a test: start one of your own with startPostgres()",
        );
      if (stopped_) return;
      stopped_ = true;
      await admin.end().catch(() => {});
      try {
        await asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        stopped();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return { cluster, admin };
}

function readLog(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

// ---- the run's clusters: one per worker slot ------------------------------------------------

/** The run's directory (made by the global setup), or undefined outside a vitest run of this repository. */
const runDir = (): string | undefined => process.env.HXDESK_PG_RUN_DIR || undefined;

/** Worker slot N's cluster: its dir and the file noting its port. */
export const workerSlot = (run: string, slot: string) => ({
  dir: path.join(run, `worker-${slot}`),
  info: path.join(run, `worker-${slot}.json`),
});

/**
 * This worker slot's cluster: started by the slot's first file, found again by the next ones.
 * Outside a run (no HXDESK_PG_RUN_DIR or VITEST_POOL_ID) a cluster of this process.
 */
async function workerCluster(): Promise<{ cluster: PgCluster; admin?: pg.Client }> {
  const run = runDir();
  const slotId = process.env.VITEST_POOL_ID;
  if (!run || !slotId) return { cluster: await startPostgres() };
  const bin = requireBin();
  const slot = workerSlot(run, slotId);
  if (fs.existsSync(slot.info)) {
    const { port } = JSON.parse(fs.readFileSync(slot.info, 'utf8')) as { port: number };
    return await connect(bin, slot.dir, port, 0);
  }
  // A file of this slot that died while starting it may have left a half-made one.
  if (fs.existsSync(slot.dir)) {
    const [cmd, args] = stopNowArgs(bin, path.join(slot.dir, 'data'));
    spawnSync(cmd, args, { stdio: 'ignore' });
    fs.rmSync(slot.dir, { recursive: true, force: true });
  }
  const t0 = performance.now();
  clusterDir(slot.dir);
  const port = await launch(bin, slot.dir);
  fs.writeFileSync(`${slot.info}.tmp`, JSON.stringify({ port }));
  fs.renameSync(`${slot.info}.tmp`, slot.info);
  return await connect(bin, slot.dir, port, Math.round(performance.now() - t0));
}

/** This process's cluster; `admin` is set for a worker's (shared) one. */
let mine: Promise<{ cluster: PgCluster; admin?: pg.Client }> | null = null;

/** This worker's cluster (started on first use): a test file's databases go in it. */
export async function postgres(): Promise<PgCluster> {
  mine ??= workerCluster();
  mine.catch(() => {
    mine = null;
  });
  return (await mine).cluster;
}

/** A new empty database in this worker's cluster; returns its postgres:// URL. */
export async function createDatabase(): Promise<string> {
  return (await postgres()).createDatabase();
}

/** A new database with all PostgreSQL migrations applied, in this worker's cluster. */
export async function createMigratedDatabase(): Promise<string> {
  return (await postgres()).createMigratedDatabase();
}

/**
 * For `afterAll`: the file is done with PostgreSQL. In the worker's cluster the databases this
 * process made are dropped, and those of earlier processes of the slot that are gone (a file
 * that died before its `afterAll`): never a database of a process still alive, whose sessions a
 * forced drop would kill (vitest starts the slot's next file while the last one's process is
 * still exiting). A cluster of this process is stopped.
 */
export async function releasePostgres(): Promise<void> {
  if (!mine) return;
  const m = mine;
  mine = null;
  const got = await m.catch(() => null);
  if (!got) return;
  const { cluster, admin } = got;
  if (!admin) {
    await cluster.stop();
    return;
  }
  try {
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE NOT (datname = ANY($1))',
      [KEPT],
    );
    const patience = Date.now() + 1000; // for all the file's databases together
    for (const { datname } of rows) {
      if (!droppable(datname)) continue;
      // A pool's end() resolves before its connections' sessions have ended: give them a moment
      // to go on their own, so the forced drop does not kill them under their client (which
      // reports it as an error of its pool).
      while (Date.now() < patience) {
        const left = await admin.query('SELECT 1 FROM pg_stat_activity WHERE datname = $1 LIMIT 1', [datname]);
        if (left.rowCount === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await admin.end().catch(() => {});
  }
}

/** A database made by this process, or by one that has exited (names carry the maker's pid: `hx_<pid>_<n>`, `hx_template_<pid>`; a test's own `hx_<pid>_<word>`). */
function droppable(datname: string): boolean {
  const pid = Number(/^hx_(?:template_)?(\d+)(?:_\w+)?$/.exec(datname)?.[1] ?? 0);
  if (!pid) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Stops every cluster of a run and removes its directory (the global teardown; a killed run's at the next start). */
export function stopRun(run: string): void {
  const bin = binDir();
  if (bin && fs.existsSync(run)) {
    for (const e of fs.readdirSync(run)) {
      const data = path.join(run, e, 'data');
      if (!e.startsWith('worker-') || !fs.existsSync(path.join(data, 'postmaster.pid'))) continue;
      const [cmd, args] = stopNowArgs(bin, data);
      spawnSync(cmd, args, { stdio: 'ignore' });
    }
  }
  fs.rmSync(run, { recursive: true, force: true });
}
