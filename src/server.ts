import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import type { Deps } from './routes/context.js';
import { DataDirError, prepareDataDir } from './dataDir.js';
import { type Store, storageUnavailable } from './db/port.js';
import { openStore, storeLocation } from './db/store.js';
import { seedIfEmpty } from './domain/seed.js';
import { loadEnv } from './env.js';
import { httpServerOptions } from './httpServer.js';
import { createLogger } from './log.js';
import { startMailReading } from './mail/reader.js';
import { loadSettings } from './settings.js';
import { startWorkers } from './workers.js';

const started = performance.now();

/** Stops the start with words naming what to fix; one JSON line in production, as every log line is. */
function fatal(msg: string, json: boolean): never {
  process.stderr.write(
    json ? `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg })}\n` : `${msg}\n`,
  );
  process.exit(1);
}

let env;
try {
  env = loadEnv();
} catch (e) {
  fatal((e as Error).message, process.env.NODE_ENV === 'production');
}
// Decision 042: DATA_DIR is 0700 and must take files — the SQLite store lives there, and so does
// the webhook secret (needed on PostgreSQL too, unless WEBHOOK_SECRET is set). A directory that
// cannot be written stops the start here, on one line naming it.
if (!env.DATABASE_URL || !env.WEBHOOK_SECRET) {
  try {
    prepareDataDir(env.DATA_DIR);
  } catch (e) {
    if (!(e instanceof DataDirError)) throw e;
    fatal(e.message, env.production);
  }
}
const log = createLogger({ json: env.production, level: env.LOG_LEVEL });
if (!env.MAILGATE_TOKEN) {
  // SPEC C1: an open mail gateway must never go unnoticed.
  if (env.production) log('warn', 'POST /mailgate is off (503) until MAILGATE_TOKEN is set');
  else
    log(
      'warn',
      'POST /mailgate accepts unauthenticated mail: MAILGATE_TOKEN is not set (production refuses mail without it)',
    );
}
let store: Store;
try {
  store = await openStore(env, { log });
} catch (e) {
  fatal(
    env.DATABASE_URL
      ? `Cannot open the database ${storeLocation(env)} (DATABASE_URL): ${(e as Error).message}`
      : `Cannot open the database ${env.dbPath} (DATA_DIR=${env.DATA_DIR}): ${(e as Error).message}`,
    env.production,
  );
}
/** A start that meets a full disk or a read-only store says so on one line (decision 042); anything else is a bug, thrown. */
const orStop = <T>(p: Promise<T>): Promise<T> =>
  p.catch((e: unknown) => {
    const storage = storageUnavailable(store.db, e);
    if (!storage) throw e;
    return fatal(`Cannot start: ${storage.message} (${storeLocation(env)})`, env.production);
  });
const db = store.db;
const seed = await orStop(seedIfEmpty(db, { adminEmail: env.ADMIN_EMAIL, adminPassword: env.ADMIN_PASSWORD }));
if (seed.seeded) {
  log('info', 'initialized a new database', { path: storeLocation(env), admin: seed.adminEmail });
  // Printed once, on first start only; it is stored hashed and cannot be shown again.
  if (seed.generatedPassword && env.production) {
    log(
      'info',
      `First start: sign in as ${seed.adminEmail} with password ${seed.generatedPassword} (it is shown only once)`,
    );
  } else if (seed.generatedPassword) {
    process.stdout.write(
      `\n  First start: sign in as ${seed.adminEmail} with password ${seed.generatedPassword}\n  (set ADMIN_PASSWORD before the first start to choose it; change it under /users)\n\n`,
    );
  }
}

// One settings object for the app and its workers (docs/decisions/045).
const settings = await orStop(loadSettings(db, env));
const workers = await orStop(startWorkers(store, env, log, { settings }));
const deps: Deps = { store, env, log, settings };
const app = await orStop(createApp(deps));
const server = serve(
  { fetch: app.fetch, hostname: env.HOST, port: env.PORT, serverOptions: httpServerOptions(env) },
  (info) => {
    log('info', `hxdesk listening on http://${info.address}:${info.port}`, {
      env: env.NODE_ENV,
      data: storeLocation(env),
      startup_ms: Math.round(performance.now() - started),
    });
    startMailReading(); // after listening: the first mail need not wait for the worker thread
  },
);
server.on('error', (e: NodeJS.ErrnoException) => {
  const at = `HOST=${env.HOST} PORT=${env.PORT}`;
  if (e.code === 'EADDRINUSE')
    fatal(`Cannot listen: PORT=${env.PORT} is already in use on ${env.HOST}`, env.production);
  if (e.code === 'EACCES')
    fatal(`Cannot listen on ${at}: not allowed (ports below 1024 need privileges)`, env.production);
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
    fatal(`Cannot listen: HOST=${env.HOST} is not an address of this machine`, env.production);
  fatal(`Cannot listen on ${at}: ${e.message}`, env.production);
});

let stopping = false;
function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log('info', `${signal}: shutting down`);
  server.close(async () => {
    deps.hub?.stop();
    await workers.stop();
    await store.close();
    process.exit(0);
  });
  (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
  setTimeout(() => process.exit(0), 3000).unref();
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
