import { ImapFlow } from 'imapflow';
import { type HeldLock, type Store, storageUnavailable, tryLock } from '../db/port.js';
import { throttled, type Throttled } from '../log.js';
import { getImapState, saveImapState } from '../domain/imapState.js';
import { MailRejected, processMail, type ProcessorSettings } from './processor.js';

export interface ImapOptions {
  url: string;
  pollSeconds: number;
  moveTo?: string;
  settings: ProcessorSettings;
  log: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
  /** Failed polls, each cause at most once per 10 s (decision 042); made from `log` when not given. */
  say?: Throttled;
}

export interface ImapPoller {
  /** Runs one poll now (waits for a poll already running) — for tests and admin actions. */
  pollNow(): Promise<void>;
  stop(): Promise<void>;
}

export function parseImapUrl(url: string) {
  const u = new URL(url);
  const secure = u.protocol === 'imaps:';
  return {
    host: u.hostname,
    port: Number(u.port) || (secure ? 993 : 143),
    secure,
    user: decodeURIComponent(u.username),
    pass: decodeURIComponent(u.password),
    mailbox: decodeURIComponent(u.pathname.replace(/^\//, '')) || 'INBOX',
  };
}

/**
 * Polls one IMAP mailbox into the mail processor (SPEC B7). It remembers UIDVALIDITY and the
 * highest UID handled rather than trusting \Seen; a message is flagged \Seen (or moved) only
 * after its ticket change has committed; a message that fails stays where it is, logged in
 * the intake log, and does not hold up the rest. After a crash the same messages are fetched
 * again and recognised by their identity, so each becomes exactly one ticket or reply.
 */
export function startImapPoller(store: Store, opts: ImapOptions): ImapPoller {
  const db = store.db;
  const cfg = parseImapUrl(opts.url);
  const key = `${cfg.user}@${cfg.host}:${cfg.port}/${cfg.mailbox}`;
  let client: ImapFlow | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let stopped = false;
  let failures = 0;
  const say = opts.say ?? throttled(opts.log);

  async function connect(): Promise<ImapFlow> {
    if (client?.usable) return client;
    client?.close();
    const c = new ImapFlow({
      host: cfg.host,
      port: cfg.port,
      secure: cfg.secure,
      auth: { user: cfg.user, pass: cfg.pass },
      logger: false,
      connectionTimeout: 15_000,
      greetingTimeout: 10_000,
      socketTimeout: 120_000,
    });
    c.on('error', (e: Error) => opts.log('warn', 'imap: connection error', { mailbox: key, error: e.message }));
    try {
      await c.connect();
    } catch (e) {
      c.close(); // or the socket lingers until the server's own timeout
      throw e;
    }
    client = c;
    return c;
  }

  // One poller per mailbox among all the processes on the store (SPEC C6): a process polls only
  // while it holds the store's lock for it, which a process that dies gives up with its connection.
  let leadership: HeldLock | null = null;
  async function pollOnce(): Promise<void> {
    // A lock whose connection to the database was lost is no longer ours: another process may poll now.
    if (leadership && !(await leadership.held())) {
      opts.log('warn', 'imap: lost the polling lock (database connection); asking for it again', { mailbox: key });
      await leadership.release().catch(() => {});
      leadership = null;
    }
    leadership ??= await tryLock(db, `imap:${key}`);
    if (!leadership) return; // another process polls this mailbox; asked again at the next poll
    const c = await connect();
    const lock = await c.getMailboxLock(cfg.mailbox);
    try {
      // A reused session sees messages delivered since its last command only after a sync: NOOP.
      await c.noop();
      const box = c.mailbox;
      if (!box) throw new Error(`mailbox ${cfg.mailbox} did not open`);
      const validity = String(box.uidValidity);
      const state = await getImapState(db, key);
      let last = state && state.uid_validity === validity ? state.last_uid : 0;
      if (state && state.uid_validity !== validity)
        opts.log('warn', 'imap: UIDVALIDITY changed; rescanning the mailbox', { mailbox: key });
      const found = await c.search({ uid: `${last + 1}:*` }, { uid: true });
      if (!Array.isArray(found)) throw new Error('IMAP search failed'); // imapflow answers false rather than throwing
      for (const uid of found.filter((u) => u > last).sort((a, b) => a - b)) {
        if (stopped) break;
        const msg = await c.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
        if (msg && msg.source) {
          try {
            // A rejected message is kept in the intake log (replayable there): it is handled, not fetched again.
            const result = await processMail(db, msg.source, opts.settings, { source: 'imap' }).catch((e) => {
              if (e instanceof MailRejected)
                return { verdict: 'rejected', ticket_id: null, duplicate: false, intake_id: e.intakeId };
              throw e;
            });
            const done = opts.moveTo
              ? await c.messageMove(String(uid), opts.moveTo, { uid: true })
              : await c.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
            if (!done && c.usable)
              opts.log('warn', 'imap: message handled but not flagged or moved', { uid, moveTo: opts.moveTo });
            opts.log('info', 'imap: message handled', {
              uid,
              verdict: result.verdict,
              ticket: result.ticket_id,
              duplicate: result.duplicate,
            });
          } catch (e) {
            // The store cannot write (decision 042): the message was not even logged as failed. The
            // batch stops here, this UID not done; the next poll (backed off) fetches it again.
            if (storageUnavailable(db, e)) throw e;
            opts.log('warn', 'imap: message failed; left in the mailbox', { uid, error: (e as Error).message });
          }
        }
        // imapflow answers false rather than throwing once the connection is gone: then this UID
        // is not done — the next poll fetches it again (and recognises it if it was applied).
        if (!c.usable) throw new Error('IMAP connection lost during the batch');
        last = uid;
        await saveImapState(db, key, validity, last);
      }
      if (!state || state.uid_validity !== validity) await saveImapState(db, key, validity, last);
    } finally {
      lock.release();
    }
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      void run();
    }, delayMs);
    timer.unref();
  }

  async function run(): Promise<void> {
    if (running) return running;
    running = pollOnce()
      .then(() => {
        failures = 0;
        say.clear('imap:');
      })
      .catch((e) => {
        failures += 1;
        const storage = storageUnavailable(db, e);
        say(
          `imap:${storage?.storage ?? (e as Error).message}`,
          'warn',
          storage ? `imap: poll paused, ${storage.message}; trying again` : 'imap: poll failed; will reconnect',
          { mailbox: key, error: (e as Error).message, failures },
        );
        if (storage) return; // the IMAP session is fine: kept for the next poll
        client?.close();
        client = null;
      })
      .finally(() => {
        running = null;
        const backoff = failures ? Math.min(60_000, 1000 * 2 ** (failures - 1)) : opts.pollSeconds * 1000;
        schedule(backoff);
      });
    return running;
  }

  schedule(0);
  return {
    pollNow: async () => {
      if (running) await running;
      await run();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await leadership?.release().catch(() => {});
      if (client?.usable) await client.logout().catch(() => client?.close());
      else client?.close();
    },
  };
}
