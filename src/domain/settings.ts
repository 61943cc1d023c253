import { and, eq, ne } from 'drizzle-orm';
import { configChanged } from '../db/configCache.js';
import { type Db, transaction, one } from '../db/port.js';
import { sessions, users } from '../db/tables.js';
import { signatureError } from '../scrips/signature.js';
import { type Actor, type Role, isStaff } from './actor.js';
import { nowIso } from './clock.js';
import { forbidden, invalid, notFound } from './errors.js';
import { hashPassword, sha256, verifyPassword } from './secrets.js';
import { getUserRow, type UserRow } from './users.js';

// A user's own settings (SPEC C2): name, password, time zone for everyone who signs in; the
// signature and the three notification choices for staff only (requesters get no staff mail
// and write no signed replies). Administrators manage other people on /users.

export interface SettingsJson {
  id: number;
  email: string;
  role: Role;
  name: string;
  timezone: string;
  /** Staff only (absent for requesters). */
  signature?: string;
  notify_new_tickets?: boolean;
  notify_replies?: boolean;
  notify_notes?: boolean;
  updated_at: string;
}

export interface SettingsInput {
  name?: string;
  timezone?: string;
  signature?: string;
  notify_new_tickets?: boolean;
  notify_replies?: boolean;
  notify_notes?: boolean;
  /** A new password needs the current one; `password_confirm`, when sent, must repeat it. */
  password?: string;
  password_confirm?: string;
  current_password?: string;
}

export const STAFF_SETTINGS = ['signature', 'notify_new_tickets', 'notify_replies', 'notify_notes'] as const;

function settingsJson(u: UserRow): SettingsJson {
  const base = { id: u.id, email: u.email, role: u.role, name: u.name, timezone: u.timezone };
  if (u.role === 'requester') return { ...base, updated_at: u.updated_at };
  return {
    ...base,
    signature: u.signature,
    notify_new_tickets: u.notify_new_tickets,
    notify_replies: u.notify_replies,
    notify_notes: u.notify_notes,
    updated_at: u.updated_at,
  };
}

let zones: Set<string> | undefined;
const known = () => (zones ??= new Set(['UTC', ...Intl.supportedValuesOf('timeZone')]));
/** The IANA zones this Node knows (`Intl.supportedValuesOf`), and UTC. */
export const timeZones = (): string[] => [...known()];

/**
 * A zone of that list, or an IANA alias of one (`Asia/Kolkata` and `Europe/Kyiv`, which ICU
 * lists under their old names Asia/Calcutta and Europe/Kiev; `US/Eastern`; `Etc/UTC`).
 * Abbreviations (`EST`, `CEST`) and offsets (`+02:00`) are not zones: DST would be wrong.
 */
export function isTimeZone(zone: string): boolean {
  if (known().has(zone)) return true;
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)+$/.test(zone)) return false;
  try {
    return known().has(new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone);
  } catch {
    return false;
  }
}

async function me(db: Db, actor: Actor): Promise<UserRow> {
  const u = await getUserRow(db, actor.id);
  if (!u) throw notFound('User', actor.id);
  return u;
}

export const getSettings = async (db: Db, actor: Actor): Promise<SettingsJson> => settingsJson(await me(db, actor));

/**
 * PATCH /settings. A password change signs the user out of every other session (the one it was
 * made from, `keepSession`, stays); API tokens stay, as they are revoked one by one.
 */
export async function updateSettings(
  db: Db,
  actor: Actor,
  input: SettingsInput,
  opts: { keepSession?: string } = {},
): Promise<SettingsJson> {
  const current = await me(db, actor);
  if (!isStaff(current)) {
    for (const k of STAFF_SETTINGS) if (input[k] !== undefined) throw forbidden(`Requesters have no ${k} setting`);
  }
  const patch: Partial<UserRow> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.timezone !== undefined) {
    if (!isTimeZone(input.timezone))
      throw invalid(
        'timezone',
        `"${input.timezone.slice(0, 100)}" is not a time zone; use an IANA name such as Europe/Berlin, or UTC`,
      );
    patch.timezone = input.timezone;
  }
  if (input.signature !== undefined) {
    const error = signatureError(input.signature);
    if (error) throw invalid('signature', error);
    patch.signature = input.signature;
  }
  for (const k of ['notify_new_tickets', 'notify_replies', 'notify_notes'] as const)
    if (input[k] !== undefined) patch[k] = input[k];
  if (input.password !== undefined) {
    if (input.password_confirm !== undefined && input.password_confirm !== input.password)
      throw invalid('password_confirm', 'Does not match the new password');
    if (!input.current_password) throw invalid('current_password', 'Give your current password to set a new one');
    if (!(await verifyPassword(input.current_password, current.password_hash)))
      throw invalid('current_password', 'That is not your current password');
    patch.password_hash = await hashPassword(input.password);
  }
  if (Object.keys(patch).length === 0) return settingsJson(current);
  return transaction(db, async (tx) => {
    // The staff are kept with the configuration (decision 104): a staff member's new name is theirs to see at once.
    if (patch.name !== undefined && isStaff(current)) await configChanged(tx);
    const row = await one(
      tx
        .update(users)
        .set({ ...patch, updated_at: nowIso(db) })
        .where(eq(users.id, current.id))
        .returning(),
    );
    if (patch.password_hash !== undefined) {
      const others = opts.keepSession
        ? and(eq(sessions.user_id, current.id), ne(sessions.id_hash, sha256(opts.keepSession)))
        : eq(sessions.user_id, current.id);
      await tx.delete(sessions).where(others);
    }
    return settingsJson(row);
  });
}
