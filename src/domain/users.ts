import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared } from '../db/client.js';
import { apiTokens, sessions, teamMembers, users } from '../db/schema.js';
import { type Actor, type Role, nowIso, requireAdmin, requireStaff } from './actor.js';
import { conflict, invalid, notFound } from './errors.js';
import { hashPassword } from './secrets.js';
import { unique } from './unique.js';

export type UserRow = typeof users.$inferSelect;
export interface UserJson { id: number; email: string; name: string; role: Role; disabled: boolean; created_at: string; updated_at: string }

export const userJson = (u: UserRow): UserJson => ({
  id: u.id, email: u.email, name: u.name, role: u.role, disabled: u.disabled, created_at: u.created_at, updated_at: u.updated_at,
});

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const userById = prepared((db) => db.select().from(users).where(eq(users.id, sql.placeholder('id'))).prepare());

export function getUserRow(db: Conn, id: number): UserRow | undefined {
  return userById(db).get({ id });
}

export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.email, normalizeEmail(email))).get();
}

export function getUser(db: Db, actor: Actor, id: number): UserJson {
  requireStaff(actor);
  const u = getUserRow(db, id);
  if (!u) throw notFound('User', id);
  return userJson(u);
}

export interface UserListFilter { role?: Role; disabled?: boolean }

export function listUsers(db: Db, actor: Actor, filter: UserListFilter = {}): UserJson[] {
  requireStaff(actor);
  const conds = [];
  if (filter.role) conds.push(eq(users.role, filter.role));
  if (filter.disabled !== undefined) conds.push(eq(users.disabled, filter.disabled));
  return db.select().from(users).where(and(...conds)).orderBy(asc(users.name), asc(users.id)).all().map(userJson);
}

export interface CreateUserInput { email: string; name?: string; role?: Role; password?: string | null; disabled?: boolean }

export async function createUser(db: Db, actor: Actor | null, input: CreateUserInput): Promise<UserJson> {
  if (actor) requireAdmin(actor);
  const email = normalizeEmail(input.email);
  const password_hash = input.password ? await hashPassword(input.password) : null;
  const now = nowIso();
  const row = unique({ email }, () => db.insert(users).values({
    email, name: input.name ?? '', role: input.role ?? 'agent', disabled: input.disabled ?? false, password_hash, created_at: now, updated_at: now,
  }).returning().get());
  return userJson(row);
}

export interface UpdateUserInput { email?: string; name?: string; role?: Role; password?: string | null; disabled?: boolean }

/** Counts active admins other than `exceptId`, so the last one cannot lock everybody out. */
function otherActiveAdmins(db: Db, exceptId: number): number {
  return db.select({ n: sql<number>`count(*)` }).from(users)
    .where(and(eq(users.role, 'admin'), eq(users.disabled, false), ne(users.id, exceptId))).get()!.n;
}

export async function updateUser(db: Db, actor: Actor, id: number, input: UpdateUserInput): Promise<UserJson> {
  requireAdmin(actor);
  const current = getUserRow(db, id);
  if (!current) throw notFound('User', id);
  const patch: Partial<UserRow> = {};
  if (input.email !== undefined && normalizeEmail(input.email) !== current.email) patch.email = normalizeEmail(input.email);
  if (input.name !== undefined) patch.name = input.name;
  if (input.role !== undefined) patch.role = input.role;
  if (input.disabled !== undefined) patch.disabled = input.disabled;
  if (input.password !== undefined) patch.password_hash = input.password === null ? null : await hashPassword(input.password);
  const losesAdmin = current.role === 'admin' && !current.disabled && ((patch.role && patch.role !== 'admin') || patch.disabled === true);
  if (losesAdmin && otherActiveAdmins(db, id) === 0) throw invalid(patch.disabled ? 'disabled' : 'role', 'The last active administrator cannot be demoted or disabled');
  if (Object.keys(patch).length === 0) return userJson(current);
  return unique({ email: patch.email }, () => db.transaction((tx) => {
    const row = tx.update(users).set({ ...patch, updated_at: nowIso() }).where(eq(users.id, id)).returning().get();
    // A disabled user, or one whose password changed, is signed out everywhere.
    if (patch.disabled === true || patch.password_hash !== undefined) tx.delete(sessions).where(eq(sessions.user_id, id)).run();
    return userJson(row);
  }));
}

/** SPEC B3: DELETE disables the user and removes team memberships; history keeps the user. */
export function deleteUser(db: Db, actor: Actor, id: number): void {
  requireAdmin(actor);
  const current = getUserRow(db, id);
  if (!current) throw notFound('User', id);
  if (current.role === 'admin' && !current.disabled && otherActiveAdmins(db, id) === 0) {
    throw conflict('The last active administrator cannot be deleted');
  }
  db.transaction((tx) => {
    tx.update(users).set({ disabled: true, updated_at: nowIso() }).where(eq(users.id, id)).run();
    tx.delete(teamMembers).where(eq(teamMembers.user_id, id)).run();
    tx.delete(sessions).where(eq(sessions.user_id, id)).run();
    tx.delete(apiTokens).where(eq(apiTokens.user_id, id)).run();
  });
}

/**
 * The user behind an inbound address: matched case-insensitively, or created as a stub
 * requester (no password, cannot sign in) with the display name from the mail. Runs inside
 * the mail's SQL transaction.
 */
export function ensureMailUser(conn: Conn, address: string, displayName: string): { user: UserRow; created: boolean } {
  const email = normalizeEmail(address);
  const existing = conn.select().from(users).where(eq(users.email, email)).get();
  if (existing) return { user: existing, created: false };
  const now = nowIso();
  const user = conn.insert(users).values({
    email, name: displayName.slice(0, 200), role: 'requester', disabled: false, password_hash: null, created_at: now, updated_at: now,
  }).returning().get();
  return { user, created: true };
}
