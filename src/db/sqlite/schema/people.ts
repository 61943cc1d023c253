import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './columns.js';

// The people: users and how they sign in (sessions, API tokens, the sign-in throttle), teams
// and their members, and the secrets the server generates. Part of the one schema description
// (../schema.ts, decision 025).

export const users = sqliteTable(
  'users',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    email: text('email').notNull(), // stored lower-cased
    name: text('name').notNull().default(''),
    role: text('role', { enum: ['admin', 'agent', 'requester'] }).notNull(),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    password_hash: text('password_hash'),
    // Staff settings (SPEC C2): shown and edited on the user's own settings page.
    timezone: text('timezone').notNull().default('UTC'),
    signature: text('signature').notNull().default(''), // Liquid, closes the user's public replies
    notify_new_tickets: integer('notify_new_tickets', { mode: 'boolean' }).notNull().default(true),
    notify_replies: integer('notify_replies', { mode: 'boolean' }).notNull().default(true),
    notify_notes: integer('notify_notes', { mode: 'boolean' }).notNull().default(true),
    /** Raised to revoke every portal link handed to this user so far. */
    portal_epoch: integer('portal_epoch').notNull().default(0),
    /** SPEC D3 Spam: mail from a blocked sender is refused (logged `rejected`, reason `blocked`), nothing sent back. */
    blocked: integer('blocked', { mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('users_email_uq').on(t.email),
    // Staff (for pickers and names on every page) without reading the requesters, who can be hundreds of thousands.
    index('users_role_idx').on(t.role),
  ],
);

export const sessions = sqliteTable(
  'sessions',
  {
    id_hash: text('id_hash').primaryKey(), // sha256 of the cookie value
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    created_at: text('created_at').notNull(),
    expires_at: text('expires_at').notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.user_id)],
);

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    token_hash: text('token_hash').notNull(), // sha256 of the secret
    created_at: text('created_at').notNull(),
    last_used_at: text('last_used_at'),
  },
  (t) => [uniqueIndex('api_tokens_hash_uq').on(t.token_hash), index('api_tokens_user_idx').on(t.user_id)],
);

export const teams = sqliteTable(
  'teams',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    ...timestamps,
  },
  (t) => [uniqueIndex('teams_name_uq').on(sql`${t.name} COLLATE NOCASE`)],
);

export const teamMembers = sqliteTable(
  'team_members',
  {
    team_id: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.team_id, t.user_id] }), index('team_members_user_idx').on(t.user_id)],
);

/**
 * Sign-in brakes (SPEC C6, docs/decisions/028): one row per counted key (`ip:…`, `login:<email>`,
 * `password:<user id>`) and fixed window. Every process of a cluster counts in the same row.
 */
export const loginThrottle = sqliteTable(
  'login_throttle',
  {
    key: text('key').primaryKey(),
    /** Attempts counted in the window (the one over the limit and later ones included). */
    failures: integer('failures').notNull(),
    window_start: text('window_start').notNull(), // ISO timestamp of the first counted attempt
    /** The end of the window: until then the key is blocked once `failures` passed the limit; a later attempt starts a new window. */
    window_end: text('window_end').notNull(),
  },
  (t) => [index('login_throttle_end_idx').on(t.window_end)],
);

/** Server-wide secrets generated at first start (the portal link key), shared by every process. */
export const appSecrets = sqliteTable('app_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  created_at: text('created_at').notNull(),
});
