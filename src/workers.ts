import fs from 'node:fs';
import path from 'node:path';
import { tightenFile, writePrivateFile } from './dataDir.js';
import { errorMessage, type Store, storageUnavailable } from './db/port.js';
import { clockOf } from './domain/clock.js';
import { sweepStagedFiles } from './domain/stagedFiles.js';
import { newSecret } from './domain/secrets.js';
import type { Env } from './env.js';
import { throttled, type Logger } from './log.js';
import type { ImapPoller } from './mail/imap.js';
import { closeMailReading } from './mail/reader.js';
import { startDelivery, type DeliveryWorker } from './scrips/delivery.js';
import { startTimerWorker, type TimerWorker } from './domain/time/worker.js';
import { refreshTestClock, useTestClock } from './domain/time/testClock.js';
import { loadSettings, type Settings } from './settings.js';

export interface Workers {
  delivery: DeliveryWorker;
  imap: ImapPoller | null;
  /** SPEC D2: fires due timers (SLA warnings and breaches, snooze wake-ups, idle scrips). */
  timers: TimerWorker;
  /** Deletes files staged over an hour ago and never attached (decision 061): what the timer runs. How many went. */
  sweepStaged(): Promise<number>;
  stop(): Promise<void>;
}

/** How often (real time) the workers look for staged files left by a crash; their age is read on the store's clock. */
const STAGED_SWEEP_MS = 10 * 60_000;

/**
 * The background work of the process: outbox delivery, IMAP polling, the store's own upkeep
 * (search indexing). Their failures are said once per worker and cause every 10 s (decision 042)
 * of the store's clock (decision 047: a test that holds the clock holds that window too).
 *
 * `settings`: the app's (src/settings.ts), the same object the app is given, for the mail the
 * IMAP poller takes in; built from `env` and the store when not given (and IMAP_URL is set).
 */
export async function startWorkers(
  store: Store,
  env: Env,
  log: Logger,
  opts: { settings?: Settings } = {},
): Promise<Workers> {
  const db = store.db;
  // SPEC D2: the test clock kept in the store, read before anything notes the time (decision 071).
  if (env.HXDESK_TEST_CLOCK) await useTestClock(db);
  const clock = clockOf(db);
  const say = throttled(log, { now: () => clock.now() });
  const maintenance = store.startMaintenance(
    (what, error) => {
      const storage = storageUnavailable(db, error);
      say(
        `${what}:${storage?.storage ?? errorMessage(error)}`,
        'warn',
        storage ? `${what}: ${storage.message}; trying again` : what,
        { error: errorMessage(error) },
      );
    },
    { searchIndexMs: env.SEARCH_INDEX_MS },
  );
  const delivery = await startDelivery(db, {
    smtpUrl: env.SMTP_URL,
    webhookSecret: env.WEBHOOK_SECRET ?? storedSecret(path.join(env.DATA_DIR, 'webhook-secret'), log),
    pollMs: env.OUTBOX_POLL_MS,
    retryBaseMs: env.OUTBOX_RETRY_BASE_MS,
    maxAttempts: env.OUTBOX_MAX_ATTEMPTS,
    leaseMs: env.OUTBOX_LEASE_MS,
    log,
    say,
  });
  // Read when first needed (a timer fires, IMAP starts): reading them may write (a first portal
  // key), which a full disk refuses — the workers start anyway and say so (decision 042).
  let settingsRead: Promise<Settings> | undefined;
  const settingsOf = () => {
    settingsRead ??= opts.settings ? Promise.resolve(opts.settings) : loadSettings(db, env);
    settingsRead.catch(() => {
      settingsRead = undefined;
    });
    return settingsRead;
  };
  const timers = startTimerWorker(db, {
    notify: async () => (await settingsOf()).notify,
    leaseMs: env.TIMER_LEASE_MS,
    log,
    say,
    beforePass: env.HXDESK_TEST_CLOCK ? () => refreshTestClock(db) : undefined,
  });
  // Loaded only when IMAP is set: imapflow is the heaviest module of a start (decision 057).
  const imap = env.IMAP_URL
    ? (await import('./mail/imap.js')).startImapPoller(store, {
        url: env.IMAP_URL,
        pollSeconds: env.IMAP_POLL_SECONDS,
        moveTo: env.IMAP_MOVE_TO,
        log,
        say,
        settings: await settingsOf(),
      })
    : null;
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweepStaged = () => {
    const run = sweepStagedFiles(db);
    sweeping = run.catch(() => undefined);
    return run;
  };
  const sweeper = setInterval(() => {
    sweepStaged().catch((error) => {
      const storage = storageUnavailable(db, error);
      say(`staged-files:${storage?.storage ?? errorMessage(error)}`, 'warn', 'sweeping staged files failed', {
        error: errorMessage(error),
      });
    });
  }, STAGED_SWEEP_MS);
  sweeper.unref();
  return {
    delivery,
    imap,
    timers,
    sweepStaged,
    stop: async () => {
      clearInterval(sweeper);
      await sweeping;
      await timers.stop();
      await imap?.stop();
      await delivery.stop();
      await maintenance.stop();
      await closeMailReading();
    },
  };
}

/**
 * Webhooks are always signed (SPEC B6). Without WEBHOOK_SECRET a secret is generated once and
 * kept beside the database (mode 0600 whatever the umask; an older install's looser file is
 * tightened, decision 042), so receivers can be given it and it survives restarts.
 */
function storedSecret(file: string, log: Logger): string {
  try {
    const secret = fs.readFileSync(file, 'utf8').trim();
    tightenFile(file);
    return secret;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    const secret = newSecret();
    writePrivateFile(file, `${secret}\n`);
    log('info', `generated a webhook signing secret in ${file} (set WEBHOOK_SECRET to choose one)`);
    return secret;
  }
}
