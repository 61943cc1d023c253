import { createHash } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { Commit } from '../db/groupCommit.js';
import { AppError } from '../domain/errors.js';
import { applyInboundMail, logFailedMail, ownAddresses, type IntakeOptions, type IntakeResult } from '../domain/mailIntake.js';
import { classify } from './classify.js';
import { MalformedMail, parseMail } from './parse.js';

export interface ProcessorSettings { mailFrom: string; senderLimitPerHour: number }

/**
 * The transport-agnostic e-mail processor: raw RFC 822 in, intake result out. /mailgate and
 * the IMAP poller both call it. Malformed mail is a 422 (stored only when polled); any other failure
 * is logged in the intake log (verdict `failed`) and rethrown, so the transport can retry.
 * With `commit` (the web server's group commit) the intake shares a SQL transaction with other
 * changes of the moment; without it, it runs on its own.
 */
export async function processMail(
  db: Db, raw: Buffer, settings: ProcessorSettings, opts: Omit<IntakeOptions, 'senderLimitPerHour'>, commit?: Commit,
): Promise<IntakeResult> {
  let mail;
  try {
    mail = await parseMail(raw);
  } catch (e) {
    if (!(e instanceof MalformedMail)) throw e;
    // /mailgate answers 422 and stores nothing; a polled message is logged, as every failure is.
    if (opts.source !== 'mailgate') {
      const identity = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
      logFailedMail(db, { identity, messageId: null, from: { address: '', name: '' }, subject: '', raw }, opts.source, e.message);
    }
    throw new AppError('validation_failed', e.message, [{ path: 'message', message: e.message }]);
  }
  const kind = classify(mail, ownAddresses(db, settings.mailFrom));
  const { headers: _headers, contentType: _type, ...parsed } = mail;
  const message = { ...parsed, raw, kind: kind.kind, kindReason: kind.kind === 'human' ? undefined : kind.reason };
  try {
    const apply = () => applyInboundMail(db, message, { ...opts, senderLimitPerHour: settings.senderLimitPerHour });
    return await (commit ? commit(apply) : apply());
  } catch (e) {
    if (e instanceof AppError && e.status < 500) throw e; // the caller's mistake (an unknown queue): nothing stored
    logFailedMail(db, message, opts.source, (e as Error).message || String(e));
    throw e;
  }
}
