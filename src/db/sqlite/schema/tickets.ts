import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './columns.js';
import { teams, users } from './people.js';
import { customFields, queues } from './config.js';

// Tickets and everything that belongs to one: its history (transactions), watchers, tags,
// links and merges, custom values, attachments, time worked, ratings, what each reader has seen
// and their drafts, its timers. Part of the one schema description (../schema.ts, decision 025).

export const tickets = sqliteTable(
  'tickets',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    queue_id: integer('queue_id')
      .notNull()
      .references(() => queues.id),
    subject: text('subject').notNull(),
    // No description column: the description is the body of the ticket's Create transaction
    // (kept once, and the row stays small — list filters read many ticket rows).
    status: text('status').notNull().default('new'),
    owner_id: integer('owner_id').references(() => users.id),
    team_id: integer('team_id').references(() => teams.id, { onDelete: 'set null' }),
    requester_id: integer('requester_id').references(() => users.id),
    priority: integer('priority').notNull().default(0),
    ...timestamps,
    resolved_at: text('resolved_at'),
    /**
     * SPEC D6 unread marks: the id of the ticket's newest transaction written by a customer (a
     * requester, a Cc or an outside sender: anyone not staff), null when there is none. Compared
     * with ticket_reads.seen_txn_id of the agent looking.
     */
    customer_txn_id: integer('customer_txn_id'),
    /**
     * SPEC D2: the ticket's SLA clocks as JSON (`{ policy_id, first_response, next_response,
     * resolution, paused, … }`, what the policy and the history so far make of them), null when no
     * policy applies. `next_due_at` is the earliest unmet, running due time (what `sort=due` orders
     * by); `next_warn_at` that clock's warning time (`sla=due_soon`).
     */
    sla: text('sla'),
    next_due_at: text('next_due_at'),
    next_warn_at: text('next_warn_at'),
    /** SPEC D2 snooze: when the ticket wakes (null: not snoozed). */
    snoozed_until: text('snoozed_until'),
    /** Whether a requester's or Cc's message wakes a snoozed ticket at once. */
    unsnooze_on_reply: integer('unsnooze_on_reply', { mode: 'boolean' }).notNull().default(true),
    /** A customer wrote while the ticket slept on (unsnooze_on_reply false): shown until it wakes. */
    replied_while_snoozed: integer('replied_while_snoozed', { mode: 'boolean' }).notNull().default(false),
    /**
     * SPEC D2 on_idle: the later of the ticket's last public message and its last status change:
     * what an idle scrip counts its hours from.
     */
    idle_since: text('idle_since'),
    /**
     * SPEC D3 merge: the ticket this one was merged into (a tombstone: its history, people, tags
     * and links moved there; ticket_merges keeps what an unmerge restores). Null for a live ticket.
     */
    merged_into: integer('merged_into'),
    /** SPEC D4: the sum of the ticket's time_entries (minutes; kept in the unit of work that adds one). */
    time_worked_minutes: integer('time_worked_minutes').notNull().default(0),
    /**
     * SPEC D4: the ticket's current rating as JSON (`{ rating, comment, rated_at }`, ticket JSON's
     * `csat`), null when never rated; ticket_ratings keeps one per resolve, Rating entries each one.
     */
    csat: text('csat'),
  },
  (t) => [
    // Every GET /tickets filter is an index prefix followed by the default sort (updated_at).
    index('tickets_queue_status_updated_idx').on(t.queue_id, t.status, t.updated_at),
    index('tickets_status_updated_idx').on(t.status, t.updated_at),
    // A queue without a status (issue 32): walked in order, not 12,500 tickets sorted at 100k (6 ms a page).
    index('tickets_queue_updated_idx').on(t.queue_id, t.updated_at),
    index('tickets_owner_updated_idx').on(t.owner_id, t.updated_at),
    index('tickets_team_updated_idx').on(t.team_id, t.updated_at),
    // An owner (or a team's members) or a ticket team with a status: counted in the index alone (decision 031).
    index('tickets_owner_status_updated_idx').on(t.owner_id, t.status, t.updated_at),
    index('tickets_team_status_updated_idx').on(t.team_id, t.status, t.updated_at),
    index('tickets_requester_updated_idx').on(t.requester_id, t.updated_at),
    index('tickets_updated_idx').on(t.updated_at),
    index('tickets_created_idx').on(t.created_at),
    // Oldest first (decision 107): a queue's, a status's, or both, read in order from the index.
    // Without, SQLite read every ticket of the status through its updated_at index and sorted them
    // (`status=open&sort=created`: 25,099 at 100k, 15 ms), or walked tickets_created_idx past the
    // oldest tickets, mostly resolved in a real helpdesk.
    // Partial on a condition every ticket meets, which only a list by `created` names
    // (OLDEST_FIRST in src/db/shared/listSort.ts): no other query may take them.
    index('tickets_status_created_idx').on(t.status, t.created_at).where(sql`created_at > ''`),
    index('tickets_queue_status_created_idx').on(t.queue_id, t.status, t.created_at).where(sql`created_at > ''`),
    index('tickets_queue_created_idx').on(t.queue_id, t.created_at).where(sql`created_at > ''`),
    index('tickets_priority_idx').on(t.priority),
    // SPEC D2: sort=due, and the lists of breached and soon-due tickets (most tickets have no due time).
    index('tickets_next_due_idx').on(t.next_due_at).where(sql`next_due_at IS NOT NULL`),
    index('tickets_next_warn_idx').on(t.next_warn_at).where(sql`next_warn_at IS NOT NULL`),
    index('tickets_snoozed_idx').on(t.snoozed_until).where(sql`snoozed_until IS NOT NULL`),
    // SPEC D3: the tickets merged into one (an unmerge, a chain of merges).
    index('tickets_merged_into_idx').on(t.merged_into).where(sql`merged_into IS NOT NULL`),
  ],
);

/**
 * SPEC D4 time worked: minutes someone worked on a ticket on a day (negative corrects earlier
 * time). `user_id` worked; `creator_id` entered it (an admin may enter anyone's). A reply or note
 * with `time_minutes` has its entry's `transaction_id`.
 */
export const timeEntries = sqliteTable(
  'time_entries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    creator_id: integer('creator_id')
      .notNull()
      .references(() => users.id),
    minutes: integer('minutes').notNull(),
    /** A date (`2032-03-09`) in the zone of the one who entered it; never in the future. */
    worked_on: text('worked_on').notNull(),
    note: text('note').notNull().default(''),
    transaction_id: integer('transaction_id'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('time_entries_worked_on_idx').on(t.worked_on),
    index('time_entries_user_idx').on(t.user_id, t.worked_on),
    index('time_entries_ticket_idx').on(t.ticket_id),
  ],
);

/**
 * SPEC D4 satisfaction: the current rating of one resolve of a ticket (`resolve_txn_id`, the
 * Status entry that resolved it), by the requester the link was mailed to; rating again replaces
 * it (each rating is also its own `Rating` entry, `transaction_id` the latest).
 */
export const ticketRatings = sqliteTable(
  'ticket_ratings',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    resolve_txn_id: integer('resolve_txn_id').notNull(),
    requester_id: integer('requester_id').references(() => users.id),
    rating: text('rating', { enum: ['good', 'okay', 'bad'] }).notNull(),
    comment: text('comment').notNull().default(''),
    transaction_id: integer('transaction_id').notNull(),
    rated_at: text('rated_at').notNull(),
  },
  (t) => [
    uniqueIndex('ticket_ratings_resolve_uq').on(t.ticket_id, t.resolve_txn_id),
    index('ticket_ratings_rated_at_idx').on(t.rated_at),
  ],
);

/** SPEC D3 tags: trimmed, lower-cased, 1–40 of letters, digits, `-`, `_`, `.`, `/`, `:`. */
export const ticketTags = sqliteTable(
  'ticket_tags',
  {
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    tag: text('tag').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticket_id, t.tag] }), index('ticket_tags_tag_idx').on(t.tag, t.ticket_id)],
);

/**
 * SPEC D3 links, stored in the forward direction only (`depends_on`, `refers_to`, `parent_of`):
 * the other side's names (`depended_on_by`, `referred_to_by`, `child_of`) are read from target_id.
 */
export const ticketLinks = sqliteTable(
  'ticket_links',
  {
    base_id: integer('base_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    type: text('type', { enum: ['depends_on', 'refers_to', 'parent_of'] }).notNull(),
    target_id: integer('target_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    creator_id: integer('creator_id').references(() => users.id),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.base_id, t.type, t.target_id] }),
    index('ticket_links_target_idx').on(t.target_id, t.type),
  ],
);

/**
 * SPEC D3 merges: one row per merge of `ticket_id` into `into_id`, with what an unmerge (within 30
 * days) restores — the merged ticket's own row values, people, tags and links as they were
 * (`snapshot`, JSON). `unmerged_at` is set when it was undone.
 */
export const ticketMerges = sqliteTable(
  'ticket_merges',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    into_id: integer('into_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    merged_by: integer('merged_by').references(() => users.id),
    merged_at: text('merged_at').notNull(),
    snapshot: text('snapshot').notNull(),
    unmerged_at: text('unmerged_at'),
  },
  (t) => [index('ticket_merges_ticket_idx').on(t.ticket_id), index('ticket_merges_into_idx').on(t.into_id)],
);

export const WATCHER_ROLES = ['requester', 'cc', 'admin_cc'] as const;

/**
 * People on a ticket (SPEC C2). Every requester is a row here; `tickets.requester_id` is the first.
 * `position` keeps the order they were added in (one more than the ticket's highest so far):
 * people are listed by it, never by id.
 */
export const ticketWatchers = sqliteTable(
  'ticket_watchers',
  {
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    role: text('role', { enum: WATCHER_ROLES }).notNull(),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    position: integer('position').notNull().default(0),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ticket_id, t.role, t.user_id] }),
    index('ticket_watchers_user_idx').on(t.user_id, t.role),
  ],
);

export const transactions = sqliteTable(
  'transactions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    creator_id: integer('creator_id').references(() => users.id),
    body: text('body'),
    field: text('field'),
    old_value: text('old_value'),
    new_value: text('new_value'),
    message_id: text('message_id'),
    scrip_results: text('scrip_results').notNull().default('[]'), // JSON array, SPEC B6
    /** SPEC D0: mail from someone not on the ticket (not a requester, Cc or staff), kept as an internal Comment. */
    outside_sender: integer('outside_sender', { mode: 'boolean' }).notNull().default(false),
    /**
     * SPEC D3: the ticket this entry was moved from by a merge, or the merged ticket whose thread
     * it arrived through afterwards ("from #id"); what an unmerge takes back.
     */
    merged_from: integer('merged_from'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('transactions_ticket_idx').on(t.ticket_id, t.id),
    // Only mail has a Message-ID: web changes add no entry (one page less per commit).
    index('transactions_message_id_idx').on(t.message_id).where(sql`message_id IS NOT NULL`),
    // Finds a ticket's description (its Create transaction) without reading its other messages.
    index('transactions_create_idx').on(t.ticket_id).where(sql`type = 'Create'`),
    // SPEC D4 reports (decision 079): a period's status moves by time, and a ticket's replies in
    // order (its first response), each without reading the ticket's other entries.
    index('transactions_status_at_idx').on(t.created_at).where(sql`type = 'Status'`),
    index('transactions_correspond_idx').on(t.ticket_id, t.created_at).where(sql`type = 'Correspond'`),
  ],
);

/**
 * SPEC D0: the people named in the To/Cc of mail on a ticket, as the Cc bounds judged them: `added`
 * rows count against the queue's `mail_cc_per_ticket`; the others (with the reason) are listed
 * on the ticket as "not added", for staff to add with one action.
 */
export const ticketMailCc = sqliteTable(
  'ticket_mail_cc',
  {
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    email: text('email').notNull(), // lower-cased
    name: text('name').notNull().default(''),
    added: integer('added', { mode: 'boolean' }).notNull(),
    reason: text('reason'),
    /** The message that named them (its Create or Correspond). */
    transaction_id: integer('transaction_id').references(() => transactions.id, { onDelete: 'set null' }),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticket_id, t.email] })],
);

export const attachments = sqliteTable(
  'attachments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // NULL while staged: a file is stored before the unit of work that attaches it (decision 061).
    transaction_id: integer('transaction_id').references(() => transactions.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    content_type: text('content_type').notNull(),
    size: integer('size').notNull(),
    content: blob('content', { mode: 'buffer' }).notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('attachments_transaction_idx').on(t.transaction_id),
    index('attachments_unattached_idx').on(t.created_at).where(sql`transaction_id IS NULL`),
  ],
);

export const ticketCustomValues = sqliteTable(
  'ticket_custom_values',
  {
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    field_id: integer('field_id')
      .notNull()
      .references(() => customFields.id, { onDelete: 'cascade' }),
    value: text('value').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ticket_id, t.field_id] }),
    index('ticket_custom_values_lookup_idx').on(t.field_id, t.value, t.ticket_id),
  ],
);

/**
 * SPEC D6 unread marks: the newest transaction a staff member had seen of a ticket when they last
 * opened it. A ticket whose customer_txn_id is greater (or that they never opened) is unread to them.
 */
export const ticketReads = sqliteTable(
  'ticket_reads',
  {
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    seen_txn_id: integer('seen_txn_id').notNull(),
    seen_at: text('seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.ticket_id] }), index('ticket_reads_ticket_idx').on(t.ticket_id)],
);

/**
 * SPEC D6 drafts: the reply box's text per staff member and ticket, kept on the server so it
 * survives a reload and another device; removed when the reply or note is sent.
 */
export const ticketDrafts = sqliteTable(
  'ticket_drafts',
  {
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['reply', 'note'] })
      .notNull()
      .default('reply'),
    body: text('body').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.ticket_id] }), index('ticket_drafts_ticket_idx').on(t.ticket_id)],
);

/**
 * SPEC D2 timers: something that happens to a ticket at a time (an SLA warning or breach, a
 * snoozed ticket's wake-up, an idle scrip's firing). One row per ticket, kind and key (the clock,
 * the scrip); `cycle` names what it was armed for (a due time, an idle start): armed again for
 * the same cycle after it fired, it stays fired — each fires once per cycle. Claimed by a
 * process as outbox rows are (SPEC D1): `claimed_by`, and `claimed_until` the end of its lease.
 */
export const timers = sqliteTable(
  'timers',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ticket_id: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    key: text('key').notNull().default(''),
    due_at: text('due_at').notNull(),
    cycle: text('cycle').notNull().default(''),
    fired_at: text('fired_at'),
    claimed_by: text('claimed_by'),
    claimed_until: text('claimed_until'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('timers_ticket_kind_key_uq').on(t.ticket_id, t.kind, t.key),
    // The pending ones, by due time: the next wake-up, and what is due now.
    index('timers_pending_due_idx').on(t.due_at).where(sql`fired_at IS NULL`),
  ],
);
