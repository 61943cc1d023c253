import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { closeDb, openDb } from './db/client.js';
import { seedIfEmpty } from './domain/seed.js';
import { loadEnv } from './env.js';
import { httpServerOptions } from './httpServer.js';
import { createLogger } from './log.js';
import { startWorkers } from './workers.js';

const started = performance.now();
let env;
try {
  env = loadEnv();
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
}
const log = createLogger({ json: env.production });
const db = openDb(env.dbPath);
const seed = await seedIfEmpty(db, { adminEmail: env.ADMIN_EMAIL, adminPassword: env.ADMIN_PASSWORD });
if (seed.seeded) {
  log('info', 'initialized a new database', { path: env.dbPath, admin: seed.adminEmail });
  if (seed.generatedPassword) {
    // Printed once, on first start only; it is stored hashed and cannot be shown again.
    process.stdout.write(`\n  First start: sign in as ${seed.adminEmail} with password ${seed.generatedPassword}\n  (set ADMIN_PASSWORD before the first start to choose it; change it under /users)\n\n`);
  }
}

const workers = startWorkers(db, env, log);
const app = createApp({ db, env, log, afterWrite: () => workers.delivery.kick() });
const server = serve({ fetch: app.fetch, hostname: env.HOST, port: env.PORT, serverOptions: httpServerOptions(env) }, (info) => {
  log('info', `hxdesk listening on http://${info.address}:${info.port}`, {
    env: env.NODE_ENV, data: env.dbPath, startup_ms: Math.round(performance.now() - started),
  });
});

let stopping = false;
function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log('info', `${signal}: shutting down`);
  server.close(async () => { await workers.stop(); closeDb(db); process.exit(0); });
  (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
  setTimeout(() => process.exit(0), 3000).unref();
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
