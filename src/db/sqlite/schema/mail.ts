import { blob, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { scrips } from './config.js';
import { tickets, transactions } from './tickets.js';

// Mail out and in: the outbox (notifications waiting for delivery), the intake log of every
// inbound message, and where IMAP polling stands. Part of the one schema description
// (../schema.ts, decision 025).

/** Notifications waiting for (or done with) delivery; written in the ticket change's transaction. */
export const outbox = sqliteTable(
  'outbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    kind: text('kind', { enum: ['email', 'webhook'] }).notNull(),
    ticket_id: integer('ticket_id').references(() => tickets.id, { onDelete: 'set null' }),
    transaction_id: integer('transaction_id').references(() => transactions.id, { onDelete: 'set null' }),
    scrip_id: integer('scrip_id').references(() => scrips.id, { onDelete: 'set null' }),
    recipient: text('recipient').notNull(), // e-mail address or webhook URL
    subject: text('subject'),
    body: text('body').notNull(),
    headers: text('headers').notNull().default('{}'), // JSON object
    message_id: text('message_id'),
    /** Who the mail is for: `customer` mail links to the portal, `staff` mail to the ticket page. */
    audience: text('audience', { enum: ['customer', 'staff'] }),
    attachment_ids: text('attachment_ids').notNull().default('[]'), // JSON array: files sent with the mail
    status: text('status', { enum: ['queued', 'sending', 'sent', 'failed'] })
      .notNull()
      .default('queued'),
    attempts: integer('attempts').notNull().default(0),
    last_error: text('last_error'),
    next_attempt_at: text('next_attempt_at').notNull(),
    created_at: text('created_at').notNull(),
    sent_at: text('sent_at'),
    /** The delivery worker whose attempt a `sending` row is (decision 030): put back when that worker is gone. */
    claimed_by: text('claimed_by'),
    /**
     * The end of a `sending` row's lease (SPEC D1): until then it is its claimer's; after it, any
     * process may claim the row again (its claimer is taken to have died).
     */
    claimed_until: text('claimed_until'),
  },
  (t) => [
    index('outbox_due_idx').on(t.status, t.kind, t.next_attempt_at),
    index('outbox_message_id_idx').on(t.message_id),
    index('outbox_ticket_idx').on(t.ticket_id, t.id),
  ],
);

/** Every inbound message, raw, with the processor's verdict. */
export const mailIntake = sqliteTable(
  'mail_intake',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    identity: text('identity').notNull(), // Message-ID, or a hash of the raw message when it has none
    message_id: text('message_id'),
    source: text('source').notNull(), // 'mailgate' | 'imap' | 'replay'
    sender: text('sender'),
    subject: text('subject'),
    raw: blob('raw', { mode: 'buffer' }).notNull(),
    verdict: text('verdict', {
      enum: ['created', 'appended', 'duplicate', 'ignored_auto', 'rejected', 'failed', 'spam'],
    }).notNull(),
    rule: text('rule'),
    ticket_id: integer('ticket_id').references(() => tickets.id, { onDelete: 'set null' }),
    transaction_id: integer('transaction_id').references(() => transactions.id, { onDelete: 'set null' }),
    error: text('error'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('mail_intake_identity_idx').on(t.identity),
    index('mail_intake_created_idx').on(t.created_at),
    index('mail_intake_sender_idx').on(t.sender, t.created_at),
  ],
);

/** Where IMAP polling stands per mailbox: UIDVALIDITY and the highest UID handled. */
export const imapState = sqliteTable('imap_state', {
  mailbox: text('mailbox').primaryKey(), // user@host/mailbox
  uid_validity: text('uid_validity').notNull(),
  last_uid: integer('last_uid').notNull(),
  updated_at: text('updated_at').notNull(),
});
