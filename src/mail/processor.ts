import { createHash } from 'node:crypto';
import { type Db, errorMessage } from '../db/port.js';
import { AppError } from '../domain/errors.js';
import { applyInboundMail, logFailedMail, logRejectedMail, type IntakeResult } from '../domain/mailIntake.js';
import type { InboundMessage, IntakeOptions } from '../domain/inboundMessage.js';
import { deliveredHere, ownAddresses } from '../domain/mailRouting.js';
import type { NotifySettings } from '../scrips/config.js';
import { classify } from './classify.js';
import { spamMark } from './spam.js';
import { MalformedMail } from './malformed.js';
import { readMail } from './reader.js';

/** How mail is read and taken in. */
export interface MailSettings {
  /** Messages one sender may open or append per hour (MAIL_SENDER_MAX_PER_HOUR). */
  senderLimitPerHour: number;
  /** How long reading one message may take (MAIL_PARSE_TIMEOUT_MS). */
  parseTimeoutMs: number;
}

/**
 * What the processor is handed by whoever received the mail (/mailgate, the IMAP poller):
 * part of the app's settings (src/settings.ts). `notify.mailFrom` and `notify.ownAddresses`
 * (MAIL_FROM, MAIL_ADDRESSES, the IMAP account) are ours, besides the queue aliases and the list
 * admins keep (SPEC D6, read with each message).
 */
export interface ProcessorSettings {
  notify: NotifySettings;
  mail: MailSettings;
}

/**
 * The transport-agnostic e-mail processor: raw RFC 822 in, intake result out. /mailgate, the
 * IMAP poller and replay all call it. Nothing is dropped: a message that cannot be applied
 * because of what it is (no sender, an unknown queue) is kept in the intake log as `rejected`
 * with the reason and answered 422 (`MailRejected`); any other failure is kept as `failed` and
 * rethrown, so the transport can retry. The intake is one unit of work (on SQLite it may share a
 * group commit with other changes of the moment).
 */
export async function processMail(
  db: Db,
  raw: Buffer,
  settings: ProcessorSettings,
  opts: Omit<IntakeOptions, 'senderLimitPerHour' | 'notify'>,
): Promise<IntakeResult> {
  let reading;
  try {
    reading = await readMail(raw, settings.mail.parseTimeoutMs);
  } catch (e) {
    if (!(e instanceof MalformedMail)) throw e;
    const identity = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
    throw await rejected(
      db,
      { identity, messageId: null, from: { address: '', name: '' }, subject: '', raw },
      opts.source,
      e.message,
    );
  }
  const { mail, degraded } = reading;
  // Ours: MAIL_FROM, the configured and admin-kept addresses, the queue aliases (read now: a
  // change by another process counts at once), and the address the message was delivered to.
  const own = [...new Set([...(await ownAddresses(db, settings.notify.mailFrom)), ...settings.notify.ownAddresses])];
  const kind = classify(mail, [...own, ...deliveredHere(mail, opts.queue !== undefined)]);
  const { headers: _headers, contentType: _type, reportType: _report, ...parsed } = mail;
  const message: InboundMessage = {
    ...parsed,
    raw,
    kind: kind.kind,
    kindReason: kind.kind === 'human' ? undefined : kind.reason,
    spam: spamMark(mail) ?? undefined,
    degraded,
  };
  try {
    return await applyInboundMail(db, message, {
      ...opts,
      senderLimitPerHour: settings.mail.senderLimitPerHour,
      ownAddresses: own,
      notify: settings.notify,
    });
  } catch (e) {
    if (e instanceof AppError && e.status < 500) throw await rejected(db, message, opts.source, e.message, e); // an unknown queue
    await logFailedMail(db, message, opts.source, errorMessage(e));
    throw e;
  }
}

/** A 422 whose message was kept in the intake log (verdict `rejected`), so an admin can replay it. */
export class MailRejected extends AppError {
  constructor(
    message: string,
    readonly intakeId: number,
    cause?: AppError,
  ) {
    super(
      'validation_failed',
      `${message} (kept in the intake log as entry ${intakeId})`,
      cause?.details ?? [{ path: 'message', message }],
    );
  }
}

async function rejected(
  db: Db,
  m: Parameters<typeof logRejectedMail>[1],
  source: string,
  reason: string,
  cause?: AppError,
): Promise<MailRejected> {
  return new MailRejected(reason, (await logRejectedMail(db, m, source, reason)).intake_id!, cause);
}
