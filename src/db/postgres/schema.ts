import * as sqlite from '../tables.js';
import { pgTwin } from './derive.js';

// The PostgreSQL tables, derived from the one schema description in ../sqlite/schema.ts (SPEC C6,
// docs/decisions/025-postgres-schema.md): same names, same row types. drizzle-kit reads this
// file (drizzle.pg.config.ts) to generate ./migrations. What the derivation cannot express is
// written beside it:
// - imap_state.last_uid is an IMAP UID, an unsigned 32-bit number: bigint.
// - Substring search (pg_trgm GIN indexes on tickets.subject and transactions.body, the text
//   SQLite's FTS5 message_search holds) is in the custom migration 0001_trigram_search.sql.
// - SQLite's search_pending and message_search (FTS5) have no counterpart: the trigram
//   indexes are maintained by PostgreSQL itself, inside each writing transaction.

export { WATCHER_ROLES } from '../tables.js';

export const users = pgTwin(sqlite.users);
export const sessions = pgTwin(sqlite.sessions);
export const apiTokens = pgTwin(sqlite.apiTokens);
export const teams = pgTwin(sqlite.teams);
export const teamMembers = pgTwin(sqlite.teamMembers);
export const lifecycles = pgTwin(sqlite.lifecycles);
export const queues = pgTwin(sqlite.queues);
export const tickets = pgTwin(sqlite.tickets);
export const ticketTags = pgTwin(sqlite.ticketTags);
export const ticketLinks = pgTwin(sqlite.ticketLinks);
export const ticketMerges = pgTwin(sqlite.ticketMerges);
export const ticketWatchers = pgTwin(sqlite.ticketWatchers);
export const queueWatchers = pgTwin(sqlite.queueWatchers);
export const transactions = pgTwin(sqlite.transactions);
export const ticketMailCc = pgTwin(sqlite.ticketMailCc);
export const attachments = pgTwin(sqlite.attachments);
export const customFields = pgTwin(sqlite.customFields);
export const customFieldQueues = pgTwin(sqlite.customFieldQueues);
export const ticketCustomValues = pgTwin(sqlite.ticketCustomValues);
export const templates = pgTwin(sqlite.templates);
export const scrips = pgTwin(sqlite.scrips);
export const dashboards = pgTwin(sqlite.dashboards);
export const dashboardWidgets = pgTwin(sqlite.dashboardWidgets);
export const savedViews = pgTwin(sqlite.savedViews);
export const cannedResponses = pgTwin(sqlite.cannedResponses);
export const outbox = pgTwin(sqlite.outbox);
export const mailIntake = pgTwin(sqlite.mailIntake);
export const imapState = pgTwin(sqlite.imapState, { last_uid: 'bigint' });
export const appSecrets = pgTwin(sqlite.appSecrets);
export const loginThrottle = pgTwin(sqlite.loginThrottle);
export const ticketReads = pgTwin(sqlite.ticketReads);
export const ticketDrafts = pgTwin(sqlite.ticketDrafts);
export const appSettings = pgTwin(sqlite.appSettings);
export const configVersion = pgTwin(sqlite.configVersion);
export const calendars = pgTwin(sqlite.calendars);
export const slaPolicies = pgTwin(sqlite.slaPolicies);
export const timers = pgTwin(sqlite.timers);
export const timeEntries = pgTwin(sqlite.timeEntries);
export const ticketRatings = pgTwin(sqlite.ticketRatings);
