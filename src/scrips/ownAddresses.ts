import { eq, sql } from 'drizzle-orm';
import { type Conn, prepared } from '../db/port.js';
import { appSettings } from '../db/tables.js';

// SPEC D6: the list of our own addresses admins keep in the admin area (`GET/PATCH
// /mail-settings`), stored as the run-time setting `mail_addresses` (a JSON array) that every
// process reads. It is read where it is used — once per unit of work that needs it, one
// primary-key row — so a change made through one process counts in every other at once, with no
// cache to invalidate (decision 051).

/** The `app_settings` name of the admins' list. */
export const MAIL_ADDRESSES_SETTING = 'mail_addresses';

const settingRow = prepared((db) =>
  db
    .select({ value: appSettings.value, updated_at: appSettings.updated_at })
    .from(appSettings)
    .where(eq(appSettings.name, sql.placeholder('name'))),
);

/** The admins' list with the time it was last saved (null: never saved). A damaged value counts as empty. */
export async function adminMailAddressesRow(conn: Conn): Promise<{ addresses: string[]; updated_at: string | null }> {
  const row = await settingRow(conn).get({ name: MAIL_ADDRESSES_SETTING });
  if (!row) return { addresses: [], updated_at: null };
  let value: unknown;
  try {
    value = JSON.parse(row.value);
  } catch {
    value = [];
  }
  const addresses = Array.isArray(value)
    ? [...new Set(value.filter((a): a is string => typeof a === 'string').map((a) => a.trim().toLowerCase()))]
    : [];
  return { addresses: addresses.filter(Boolean), updated_at: row.updated_at };
}

/** The admins' list of our own addresses, lower-cased. */
export const adminMailAddresses = async (conn: Conn): Promise<string[]> =>
  (await adminMailAddressesRow(conn)).addresses;
