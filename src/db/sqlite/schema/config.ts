import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './columns.js';
import { teams, users } from './people.js';

// What admins configure (decision 067 keeps most of it in each process's cache): lifecycles,
// queues and their watchers, custom fields, templates, scrips, calendars and SLA policies, the
// settings; and what agents keep for themselves (dashboards, saved views, canned responses).
// Part of the one schema description (../schema.ts, decision 025).

/**
 * SPEC D3 lifecycles: `statuses` is JSON `[{ name, category, color }]` (category initial | active |
 * waiting | inactive, exactly one initial), `transitions` JSON `{ status: [status, …] }` or null
 * (any to any), `on_customer_reply` the status a waiting or inactive ticket moves to when a
 * requester writes (null: the first active one). Queues without one use RT's default (B3).
 */
export const lifecycles = sqliteTable(
  'lifecycles',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    statuses: text('statuses').notNull(),
    transitions: text('transitions'),
    on_customer_reply: text('on_customer_reply'),
    ...timestamps,
  },
  (t) => [uniqueIndex('lifecycles_name_uq').on(sql`${t.name} COLLATE NOCASE`)],
);

export const queues = sqliteTable(
  'queues',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    mail_alias: text('mail_alias'), // stored lower-cased
    team_id: integer('team_id').references(() => teams.id, { onDelete: 'set null' }),
    /** New mail's other To/Cc addresses become Cc watchers of the ticket (SPEC C2). */
    keep_mail_cc: integer('keep_mail_cc', { mode: 'boolean' }).notNull().default(true),
    signature: text('signature').notNull().default(''), // Liquid, closes public replies from this queue
    /** SPEC D0: at most this many new people of one message become Cc (0–10) … */
    mail_cc_per_message: integer('mail_cc_per_message').notNull().default(10),
    /** … and at most this many of one ticket's people come from mail (0–20); the rest are listed as not added. */
    mail_cc_per_ticket: integer('mail_cc_per_ticket').notNull().default(20),
    /** SPEC D6: requesters may open a new request in this queue from the portal (the seed's General queue does). */
    portal_create: integer('portal_create', { mode: 'boolean' }).notNull().default(false),
    /** SPEC D3: the queue's lifecycle; null is RT's default lifecycle (SPEC B3). */
    lifecycle_id: integer('lifecycle_id').references(() => lifecycles.id),
    /** SPEC D4: the "Resolved" mail asks the requester for a rating (a signed link). */
    csat_enabled: integer('csat_enabled', { mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('queues_name_uq').on(sql`${t.name} COLLATE NOCASE`),
    uniqueIndex('queues_mail_alias_uq').on(t.mail_alias),
  ],
);

/** Cc and AdminCc of a queue: they watch every ticket in it. */
export const queueWatchers = sqliteTable(
  'queue_watchers',
  {
    queue_id: integer('queue_id')
      .notNull()
      .references(() => queues.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['cc', 'admin_cc'] }).notNull(),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.queue_id, t.role, t.user_id] }), index('queue_watchers_user_idx').on(t.user_id)],
);

export const customFields = sqliteTable(
  'custom_fields',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    key: text('key').notNull(),
    name: text('name').notNull(),
    type: text('type', { enum: ['text', 'number', 'select', 'date'] }).notNull(),
    options: text('options').notNull().default('[]'), // JSON array of strings
    pattern: text('pattern'),
    required: integer('required', { mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex('custom_fields_key_uq').on(t.key)],
);

/** Which queues a custom field applies to; no rows = every queue. */
export const customFieldQueues = sqliteTable(
  'custom_field_queues',
  {
    field_id: integer('field_id')
      .notNull()
      .references(() => customFields.id, { onDelete: 'cascade' }),
    queue_id: integer('queue_id')
      .notNull()
      .references(() => queues.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.field_id, t.queue_id] })],
);

export const templates = sqliteTable(
  'templates',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    subject: text('subject').notNull().default(''),
    body: text('body').notNull().default(''),
    queue_id: integer('queue_id').references(() => queues.id, { onDelete: 'cascade' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('templates_name_uq').on(sql`${t.name} COLLATE NOCASE`)],
);

export const scrips = sqliteTable(
  'scrips',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    key: text('key').notNull(),
    description: text('description').notNull().default(''),
    condition: text('condition').notNull(),
    action: text('action').notNull(),
    template_id: integer('template_id').references(() => templates.id),
    queue_id: integer('queue_id').references(() => queues.id, { onDelete: 'cascade' }),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    sort_order: integer('sort_order').notNull().default(0),
    config: text('config').notNull().default('{}'), // JSON object
    ...timestamps,
  },
  (t) => [uniqueIndex('scrips_key_uq').on(t.key)],
);

export const dashboards = sqliteTable(
  'dashboards',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    team_id: integer('team_id').references(() => teams.id, { onDelete: 'set null' }),
    created_by: integer('created_by').references(() => users.id),
    ...timestamps,
  },
  (t) => [index('dashboards_team_idx').on(t.team_id)],
);

export const dashboardWidgets = sqliteTable(
  'dashboard_widgets',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    dashboard_id: integer('dashboard_id')
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    title: text('title').notNull().default(''),
    config: text('config').notNull().default('{}'), // JSON object
    position: integer('position').notNull().default(0),
    ...timestamps,
  },
  (t) => [index('dashboard_widgets_dashboard_idx').on(t.dashboard_id, t.position)],
);

export const savedViews = sqliteTable(
  'saved_views',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    owner_id: integer('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    filters: text('filters').notNull().default('{}'), // JSON object of GET /tickets parameters
    columns: text('columns').notNull(), // JSON array of column names
    column_widths: text('column_widths').notNull().default('{}'), // JSON object column -> px
    /** Shared with this team's members (they see and use it; only the owner changes it). */
    team_id: integer('team_id').references(() => teams.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [index('saved_views_owner_idx').on(t.owner_id), index('saved_views_team_idx').on(t.team_id)],
);

/**
 * Canned responses (SPEC C4): a Liquid body inserted into the reply box by name. `owner_id`
 * null = shared (admins manage it), else the agent's own; `queue_id` null = every queue.
 * `set_status` is applied to the ticket when the reply that used it is sent.
 */
export const cannedResponses = sqliteTable(
  'canned_responses',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    body: text('body').notNull(),
    queue_id: integer('queue_id').references(() => queues.id, { onDelete: 'cascade' }),
    owner_id: integer('owner_id').references(() => users.id, { onDelete: 'cascade' }),
    set_status: text('set_status'),
    ...timestamps,
  },
  (t) => [
    index('canned_responses_owner_idx').on(t.owner_id),
    index('canned_responses_queue_idx').on(t.queue_id),
    // A name is unique among one agent's responses and among the shared ones, ignoring case (decision 048).
    uniqueIndex('canned_responses_own_name_uq')
      .on(t.owner_id, sql`${t.name} COLLATE NOCASE`)
      .where(sql`owner_id IS NOT NULL`),
    uniqueIndex('canned_responses_shared_name_uq').on(sql`${t.name} COLLATE NOCASE`).where(sql`owner_id IS NULL`),
  ],
);

/**
 * Settings admins change at run time and every process reads (SPEC D6: the list of our own mail
 * addresses, `mail_addresses`): one row per name, the value as JSON.
 */
export const appSettings = sqliteTable('app_settings', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  updated_at: text('updated_at').notNull(),
});

/**
 * How many times the configuration every write reads has changed (scrips, templates, queues,
 * custom fields, teams, our own addresses, …): at most one row (id 1; none yet reads as 0),
 * bumped (upserted) by every unit of work that changes any of it, so that a process may keep
 * configuration between units of work and know, by reading this number with the ticket's lock,
 * when to read it afresh (decision 067).
 */
export const configVersion = sqliteTable('config_version', {
  id: integer('id').primaryKey(),
  version: integer('version').notNull(),
});

/**
 * SPEC D2 calendars: business hours per weekday (`hours`: JSON `{ "mon": [["09:00","17:00"]], … }`)
 * in an IANA time zone, and holidays (JSON list of `YYYY-MM-DD`, or `--MM-DD` for every year).
 * At most one is the default (`is_default`; `default` in the API).
 */
export const calendars = sqliteTable(
  'calendars',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    time_zone: text('time_zone').notNull(),
    hours: text('hours').notNull().default('{}'),
    holidays: text('holidays').notNull().default('[]'),
    is_default: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex('calendars_name_uq').on(sql`${t.name} COLLATE NOCASE`)],
);

/**
 * SPEC D2 SLA policies, matched in `position` order (lower first): `match` is JSON
 * `{ queue_ids?, priority_min?, priority_max?, cf?, tags? }` (empty: every ticket); targets in
 * minutes (null: no such clock); `calendar_id` null counts around the clock.
 */
export const slaPolicies = sqliteTable(
  'sla_policies',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    position: integer('position').notNull().default(0),
    match: text('match').notNull().default('{}'),
    calendar_id: integer('calendar_id').references(() => calendars.id),
    first_response_minutes: integer('first_response_minutes'),
    next_response_minutes: integer('next_response_minutes'),
    resolution_minutes: integer('resolution_minutes'),
    warn_before_minutes: integer('warn_before_minutes').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('sla_policies_name_uq').on(sql`${t.name} COLLATE NOCASE`),
    index('sla_policies_position_idx').on(t.position),
  ],
);
