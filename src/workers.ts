import type { Db } from './db/client.js';
import type { Env } from './env.js';
import type { Logger } from './log.js';
import { startDelivery, type DeliveryWorker } from './scrips/delivery.js';

export interface Workers { delivery: DeliveryWorker; stop(): Promise<void> }

/** The background work of the one process: outbox delivery (and, later, mail polling). */
export function startWorkers(db: Db, env: Env, log: Logger): Workers {
  const delivery = startDelivery(db, {
    smtpUrl: env.SMTP_URL, webhookSecret: env.WEBHOOK_SECRET, pollMs: env.OUTBOX_POLL_MS,
    retryBaseMs: env.OUTBOX_RETRY_BASE_MS, maxAttempts: env.OUTBOX_MAX_ATTEMPTS, log,
  });
  return { delivery, stop: () => delivery.stop() };
}
