import { randomUUID } from 'node:crypto';
import { logAppend, type Tx } from '../db/port.js';
import { outbox } from '../db/tables.js';
import { nowIso } from '../domain/clock.js';
import { formatMailbox, type Mailbox } from './outbox.js';

// Mail about a person's account rather than a ticket (a password-reset link, decision 056): an
// outbox row like a notification's (SPEC B6) — written in the caller's unit of work, sent once by
// whichever delivery worker claims it, kept across a crash — with no ticket, transaction or scrip.

export interface AccountMail {
  to: Mailbox;
  from: Mailbox;
  subject: string;
  /** Plain text; delivery adds the HTML alternative. */
  body: string;
}

/** Queues `mail` inside the caller's unit of work and wakes the delivery workers once it commits. */
export async function enqueueAccountMail(tx: Tx, mail: AccountMail): Promise<void> {
  const domain = mail.from.address.split('@')[1] || 'localhost';
  const now = nowIso(tx);
  // The store's change signal, which the delivery workers follow (decision 045): the mail leaves at once.
  await logAppend(tx);
  await tx.insert(outbox).values({
    kind: 'email',
    recipient: mail.to.address,
    subject: mail.subject,
    body: mail.body,
    headers: JSON.stringify({
      From: formatMailbox(mail.from),
      To: formatMailbox(mail.to),
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
    }),
    message_id: `<hxdesk.account.${randomUUID()}@${domain}>`,
    status: 'queued',
    // real time: the delivery schedule (as scrips/outbox.ts): a test clock standing still must not hold mail back.
    next_attempt_at: new Date(Date.now()).toISOString(),
    created_at: now,
  });
}
