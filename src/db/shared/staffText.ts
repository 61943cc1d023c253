import { type SQL, sql } from 'drizzle-orm';

/**
 * The history entries whose body only staff may read: an internal note (decision 025) and a
 * rating's comment (decision 082). Text search keeps them from requesters, on both stores, in
 * every path (index, substring, a customer's own tickets, a merge's reindex).
 */
export const STAFF_TEXT_TYPES = ['Comment', 'Rating'] as const;

const list = sql.raw(STAFF_TEXT_TYPES.map((t) => `'${t}'`).join(', '));

/** ` AND <type> NOT IN (…)`: an entry's body a requester may read; nothing when the reader is staff. */
export const readableBy = (includeComments: boolean, type: unknown = sql`type`): SQL =>
  includeComments ? sql`` : sql` AND ${type} NOT IN (${list})`;

/** `<type> IN (…)`: an entry's body is staff-only text (the index's internal column). */
export const isStaffText = (type: unknown): SQL => sql`${type} IN (${list})`;
