import { createHash } from 'node:crypto';
import { type Db, errorMessage } from '../db/port.js';
import { AppError } from '../domain/errors.js';
import {
  applyInboundMail, logFailedMail, logRejectedMail, ownAddresses, type InboundMessage, type IntakeOptions, type IntakeResult,
} from '../domain/mailIntake.js';
import { classify } from './classify.js';
import { MalformedMail } from './malformed.js';
import { readMail } from './reader.js';

export interface ProcessorSettings {
  mailFrom: string; senderLimitPerHour: number;
  /** Addresses of ours besides MAIL_FROM and the queue aliases (MAIL_ADDRESSES, the IMAP account). */
  ownAddresses?: string[];
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
  db: Db, raw: Buffer, settings: ProcessorSettings, opts: Omit<IntakeOptions, 'senderLimitPerHour'>,
): Promise<IntakeResult> {
  let reading;
  try {
    reading = await readMail(raw);
  } catch (e) {
    if (!(e instanceof MalformedMail)) throw e;
    const identity = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
    throw await rejected(db, { identity, messageId: null, from: { address: '', name: '' }, subject: '', raw }, opts.source, e.message);
  }
  const { mail, degraded } = reading;
  const own = [...await ownAddresses(db, settings.mailFrom), ...settings.ownAddresses ?? []];
  const kind = classify(mail, own);
  const { headers: _headers, contentType: _type, reportType: _report, ...parsed } = mail;
  const message: InboundMessage = { ...parsed, raw, kind: kind.kind, kindReason: kind.kind === 'human' ? undefined : kind.reason, degraded };
  try {
    return await applyInboundMail(db, message, { ...opts, senderLimitPerHour: settings.senderLimitPerHour, ownAddresses: own });
  } catch (e) {
    if (e instanceof AppError && e.status < 500) throw await rejected(db, message, opts.source, e.message, e); // an unknown queue
    await logFailedMail(db, message, opts.source, errorMessage(e));
    throw e;
  }
}

/** A 422 whose message was kept in the intake log (verdict `rejected`), so an admin can replay it. */
export class MailRejected extends AppError {
  constructor(message: string, readonly intakeId: number, cause?: AppError) {
    super('validation_failed', `${message} (kept in the intake log as entry ${intakeId})`, cause?.details ?? [{ path: 'message', message }]);
  }
}

async function rejected(db: Db, m: Parameters<typeof logRejectedMail>[1], source: string, reason: string, cause?: AppError): Promise<MailRejected> {
  return new MailRejected(reason, (await logRejectedMail(db, m, source, reason)).intake_id!, cause);
}
