import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/** The log levels, least important first (the logger's `Level`; env.ts is a leaf and imports none of ours). */
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** Every setting hxdesk reads, validated once at boot. */
const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    DATA_DIR: z.string().min(1).default('./data'),
    /**
     * The least important log lines written: `info` has a line per request (production: one JSON
     * line each, docs/decisions/044); `warn` leaves those out and keeps warnings and errors.
     */
    LOG_LEVEL: z.enum(LOG_LEVELS, `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`).default('info'),
    /** postgres://user:password@host:5432/db: run on PostgreSQL instead of DATA_DIR/hxdesk.db (SPEC C6). */
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'Expected postgres:// or postgresql:// URL')
      .optional(),
    /**
     * PostgreSQL: connections this process keeps to the database, and so the units of work it
     * runs side by side (SPEC D1). Several processes each have their own; the server's
     * max_connections must cover them all.
     */
    PG_POOL_SIZE: z.coerce.number().int().min(1, 'PG_POOL_SIZE must be at least 1').max(1000).default(10),
    /**
     * PostgreSQL: of PG_POOL_SIZE, the connections reads (lists, pages, searches) never take, so a
     * change finds one while reads are busy (decision 066). Reads get the rest (at least one).
     */
    PG_WRITE_RESERVE: z.coerce.number().int().min(0, 'PG_WRITE_RESERVE must be at least 0').max(1000).default(6),
    /** Public URL of the server, used for links in mail and as an extra allowed CSRF origin. */
    PUBLIC_URL: z.url().optional(),
    ADMIN_EMAIL: z.email().default('admin@localhost'),
    ADMIN_PASSWORD: z.string().min(12, 'ADMIN_PASSWORD must be at least 12 characters').optional(),
    /** Failed sign-ins allowed per account per 15 minutes. */
    LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(10),
    /** Sign-in attempts allowed per client address per 15 minutes. */
    LOGIN_MAX_ATTEMPTS_PER_IP: z.coerce.number().int().min(1).default(100),
    SESSION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
    /** Password-reset mails one address may be sent per hour (further requests get the same answer, no mail). */
    PASSWORD_RESET_MAX_PER_ADDRESS: z.coerce.number().int().min(1).default(3),
    /** Password-reset requests one client address may make per hour (then 429). */
    PASSWORD_RESET_MAX_PER_CLIENT: z.coerce.number().int().min(1).default(20),
    /** Outbound mail: smtp://user:pass@host:port (or smtps://). Unset: mail waits in the outbox. */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'Expected smtp:// or smtps:// URL')
      .optional(),
    /** Sender of notifications when the ticket's queue has no mail_alias; its domain names our Message-IDs. */
    MAIL_FROM: z.email().default('hxdesk@localhost'),
    /** How long a portal link in customer mail stays valid (SPEC C2). */
    PORTAL_LINK_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /**
     * Bytes of files one person may send through the portal in a day (413 past it; their replies
     * an hour are MAIL_SENDER_MAX_PER_HOUR, 429 past it). At most 2 GiB − 1: what the brake's counter holds.
     */
    PORTAL_MAX_BYTES_PER_DAY: z.coerce
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .default(100 * 1024 * 1024),
    /**
     * Other addresses that deliver to hxdesk (comma-separated), besides queue aliases and MAIL_FROM:
     * never made a watcher, never mailed, and mail from them is ours (no loops). The IMAP_URL user
     * counts when it is an address.
     */
    MAIL_ADDRESSES: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((a) => a.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(z.array(z.email('MAIL_ADDRESSES must be e-mail addresses, comma-separated'))),
    /** Key for the X-Hxdesk-Signature HMAC-SHA256 header on webhook deliveries. */
    WEBHOOK_SECRET: z.string().min(16, 'WEBHOOK_SECRET must be at least 16 characters').optional(),
    OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1000),
    OUTBOX_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
    OUTBOX_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
    /**
     * How long a delivery worker's claim on a notification lasts unless renewed (it is renewed
     * while held); a process that died leaves its claims to the others once they end (decision 059).
     */
    OUTBOX_LEASE_MS: z.coerce.number().int().min(1000).default(120_000),
    TIMER_LEASE_MS: z.coerce.number().int().min(100).default(10_000),
    /**
     * SPEC D2: the test clock. The time every process of the database reads is kept in the store
     * and set with POST /test/clock (admins); without it that route does not exist. Never in production.
     */
    HXDESK_TEST_CLOCK: z
      .enum(['0', '1', 'false', 'true'], 'HXDESK_TEST_CLOCK must be 1 or 0')
      .default('0')
      .transform((v) => v === '1' || v === 'true'),
    /**
     * SQLite: threads that run ticket lists and searches, each on its own read-only connection, so
     * that the thread serving HTTP never waits for one (0: on that thread). Default: one per core, at most 2.
     */
    READ_THREADS: z.coerce.number().int().min(0).max(16).default(Math.min(2, availableParallelism())),
    /** How often new text moves into the full-text index (searches see it before that too). */
    SEARCH_INDEX_MS: z.coerce.number().int().min(10).default(100),
    /** Bearer secret for POST /mailgate. Required in production (503 without it). */
    MAILGATE_TOKEN: z.string().min(16, 'MAILGATE_TOKEN must be at least 16 characters').optional(),
    MAX_MAIL_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(25 * 1024 * 1024),
    /** Files one staff reply or note may carry, in all (SPEC C4); more is refused with 413. */
    MAX_ATTACHMENT_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(25 * 1024 * 1024),
    /** How long one message may take to read (MIME, charsets, HTML to text) before only its headers are read and the raw message is attached. */
    MAIL_PARSE_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
    /** Messages one sender may open or append per hour before more are rejected (mail loop brake). */
    MAIL_SENDER_MAX_PER_HOUR: z.coerce.number().int().min(1).default(30),
    /** imap://user:password@host:143/INBOX or imaps://…:993/INBOX. Unset: no polling. */
    IMAP_URL: z
      .string()
      .regex(/^imaps?:\/\//, 'Expected imap:// or imaps:// URL')
      .optional(),
    IMAP_POLL_SECONDS: z.coerce.number().min(0.05).default(60),
    /** Move handled messages to this folder instead of only flagging them \\Seen. */
    IMAP_MOVE_TO: z.string().min(1).optional(),
    /** SPEC C5: how often an idle live stream (GET /events) gets a heartbeat, so proxies keep it open. */
    EVENTS_HEARTBEAT_MS: z.coerce.number().int().min(100).max(600_000).default(25_000),
    /** How long a browser waits before it reconnects a dropped live stream. */
    EVENTS_RETRY_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
    /** Live streams one user may have open at a time (one per tab); more are answered 429. */
    EVENTS_MAX_STREAMS_PER_USER: z.coerce.number().int().min(1).max(10_000).default(20),
    /** Live streams one process keeps open in all; more are answered 429. */
    EVENTS_MAX_STREAMS: z.coerce.number().int().min(1).max(1_000_000).default(5_000),
    /** Time a client has to send its request headers (slow-header clients are cut off with 408). */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
    /** Time a client has to send a whole request, body included: covers MAX_MAIL_BYTES at ~2 Mbit/s. */
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
    /** How long an idle keep-alive connection stays open; behind a proxy, set it above the proxy's idle timeout. */
    HTTP_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  })
  .refine((e) => !(e.HXDESK_TEST_CLOCK && e.NODE_ENV === 'production'), {
    path: ['HXDESK_TEST_CLOCK'],
    message:
      'HXDESK_TEST_CLOCK must not be set in production (NODE_ENV=production): it lets an administrator set the time',
  })
  .refine((e) => e.HTTP_HEADERS_TIMEOUT_MS <= e.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS',
  });

/** The IMAP account's user name, when it is an address (support@example.com): mail to it is mail to us. */
function imapAddress(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const user = decodeURIComponent(new URL(url).username).toLowerCase();
    return z.email().safeParse(user).success ? [user] : [];
  } catch {
    return [];
  }
}

export type Env = z.infer<typeof EnvSchema> & { production: boolean; dbPath: string };

/**
 * The environment's addresses of ours and where each comes from (SPEC D6: the admin page shows
 * them, read-only, beside the list admins keep): MAIL_FROM, MAIL_ADDRESSES, and the IMAP_URL
 * user when it is an address (which loadEnv has already added to MAIL_ADDRESSES).
 */
export function configuredOwnAddresses(
  env: Pick<Env, 'MAIL_FROM' | 'MAIL_ADDRESSES' | 'IMAP_URL'>,
): { address: string; from: string }[] {
  const imap = imapAddress(env.IMAP_URL);
  return [
    { address: env.MAIL_FROM.toLowerCase(), from: 'MAIL_FROM' },
    ...env.MAIL_ADDRESSES.map((address) => ({
      address,
      from: imap.includes(address) ? 'IMAP_URL user' : 'MAIL_ADDRESSES',
    })),
  ];
}

export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings mean "unset" (a common result of `FOO= npm start`).
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  const dataDir = path.resolve(env.DATA_DIR);
  return {
    ...env,
    MAIL_ADDRESSES: [...new Set([...env.MAIL_ADDRESSES, ...imapAddress(env.IMAP_URL)])],
    DATA_DIR: dataDir,
    production: env.NODE_ENV === 'production',
    dbPath: path.join(dataDir, 'hxdesk.db'),
  };
}
