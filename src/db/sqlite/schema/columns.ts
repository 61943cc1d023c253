import { text } from 'drizzle-orm/sqlite-core';

// Timestamps are ISO 8601 UTC strings (`Date#toISOString()`): they sort correctly as text
// and are what the API returns. Booleans are 0/1 integers. JSON columns hold text.

/** When a row was made and last changed. */
export const timestamps = {
  created_at: text('created_at').notNull(),
  updated_at: text('updated_at').notNull(),
};
