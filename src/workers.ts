import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './db/client.js';
import { startCheckpointer } from './db/checkpointer.js';
import { flushSearch } from './db/search.js';
import { newSecret } from './domain/secrets.js';
import type { Env } from './env.js';
import type { Logger } from './log.js';
import { startImapPoller, type ImapPoller } from './mail/imap.js';
import { closeMailReading } from './mail/reader.js';
import { startDelivery, type DeliveryWorker } from './scrips/delivery.js';

export interface Workers { delivery: DeliveryWorker; imap: ImapPoller | null; stop(): Promise<void> }

/** The background work of the one process: outbox delivery, IMAP polling, search indexing. */
export function startWorkers(db: Db, env: Env, log: Logger): Workers {
  const search = startSearchIndexer(db, log, env.SEARCH_INDEX_MS);
  const checkpointer = startCheckpointer(db, { onError: (error) => log('warn', 'wal checkpoint failed', { error }) });
  const delivery = startDelivery(db, {
    smtpUrl: env.SMTP_URL, webhookSecret: env.WEBHOOK_SECRET ?? storedSecret(path.join(env.DATA_DIR, 'webhook-secret'), log), pollMs: env.OUTBOX_POLL_MS,
    retryBaseMs: env.OUTBOX_RETRY_BASE_MS, maxAttempts: env.OUTBOX_MAX_ATTEMPTS, log,
  });
  const imap = env.IMAP_URL ? startImapPoller(db, {
    url: env.IMAP_URL, pollSeconds: env.IMAP_POLL_SECONDS, moveTo: env.IMAP_MOVE_TO, log,
    settings: { mailFrom: env.MAIL_FROM, senderLimitPerHour: env.MAIL_SENDER_MAX_PER_HOUR, ownAddresses: env.MAIL_ADDRESSES },
  }) : null;
  return { delivery, imap, stop: async () => { await imap?.stop(); await delivery.stop(); search.stop(); await checkpointer?.stop(); await closeMailReading(); } };
}

/**
 * Moves freshly written text into the full-text index in batches (docs/decisions/011): every
 * SEARCH_INDEX_MS (100 ms) while the server runs, all of it at start (left by a crash) and at stop. Searches
 * see pending text anyway, so the interval only bounds how much is matched row by row.
 */
function startSearchIndexer(db: Db, log: Logger, everyMs: number): { stop(): void } {
  const flush = (all: boolean) => {
    try {
      while (flushSearch(db) > 0 && all) { /* a backlog from before a restart: all of it */ }
    } catch (e) {
      log('error', 'search: indexing failed', { error: String(e) });
    }
  };
  flush(true);
  const timer = setInterval(() => flush(false), everyMs);
  timer.unref();
  return { stop() { clearInterval(timer); flush(true); } };
}

/**
 * Webhooks are always signed (SPEC B6). Without WEBHOOK_SECRET a secret is generated once and
 * kept beside the database (mode 0600), so receivers can be given it and it survives restarts.
 */
function storedSecret(file: string, log: Logger): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    const secret = newSecret();
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    log('info', `generated a webhook signing secret in ${file} (set WEBHOOK_SECRET to choose one)`);
    return secret;
  }
}
