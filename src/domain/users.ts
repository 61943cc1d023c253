import { rememberUser } from '../scrips/people.js';
import { configChanged } from '../db/configCache.js';
import { and, asc, eq, ne, sql, count } from 'drizzle-orm';
import { type Conn, type Db, prepared, first, transaction, one } from '../db/port.js';
import { apiTokens, sessions, teamMembers, users } from '../db/tables.js';
import { type Actor, type Role, requireAdmin, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { conflict, invalid, notFound } from './errors.js';
import { hashPassword } from './secrets.js';
import { unique } from './unique.js';

export type UserRow = typeof users.$inferSelect;
export interface UserJson {
  id: number;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  /** SPEC D3 Spam: mail from them is refused (logged `rejected`, reason `blocked`), nothing sent back. */
  blocked: boolean;
  created_at: string;
  updated_at: string;
}

export const userJson = (
  u: Pick<UserRow, 'id' | 'email' | 'name' | 'role' | 'disabled' | 'blocked' | 'created_at' | 'updated_at'>,
): UserJson => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  disabled: u.disabled,
  blocked: u.blocked,
  created_at: u.created_at,
  updated_at: u.updated_at,
});

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const userById = prepared((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder('id'))),
);

const userByEmail = prepared((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.email, sql.placeholder('email'))),
);

export async function getUserRow(db: Conn, id: number): Promise<UserRow | undefined> {
  const u = await userById(db).get({ id });
  if (u) await rememberUser(db, u); // the unit of work's scrips need not read it again (decision 067)
  return u;
}

/** The user with this address (any case), if there is one. */
export async function findUserByEmail(conn: Conn, email: string): Promise<UserRow | undefined> {
  return await userByEmail(conn).get({ email: normalizeEmail(email) });
}

export async function getUser(db: Db, actor: Actor, id: number): Promise<UserJson> {
  requireStaff(actor);
  const u = await getUserRow(db, id);
  if (!u) throw notFound('User', id);
  return userJson(u);
}

export interface UserListFilter {
  role?: Role;
  disabled?: boolean;
}

/** A page of users (SPEC C4, decision 035): shaped as GET /tickets answers. */
export interface UserPage {
  users: UserJson[];
  total: number;
  limit: number;
  offset: number;
}
export const USERS_PAGE_DEFAULT = 50;
export const USERS_PAGE_MAX = 500;

/**
 * GET /users: a page of users in id order (the primary key: no sort over every user — there
 * may be 200k requesters), with the total of the filter (users_role_idx for a role).
 */
export async function listUsers(
  db: Db,
  actor: Actor,
  filter: UserListFilter = {},
  page: { limit?: number; offset?: number } = {},
): Promise<UserPage> {
  requireStaff(actor);
  const conds = [];
  if (filter.role) conds.push(eq(users.role, filter.role));
  if (filter.disabled !== undefined) conds.push(eq(users.disabled, filter.disabled));
  const limit = page.limit ?? USERS_PAGE_DEFAULT;
  const offset = page.offset ?? 0;
  const where = and(...conds);
  const total = (await db.select({ n: count() }).from(users).where(where))[0]?.n ?? 0;
  const rows =
    offset >= total
      ? []
      : await db.select().from(users).where(where).orderBy(asc(users.id)).limit(limit).offset(offset);
  return { users: rows.map(userJson), total: Number(total), limit, offset };
}

export interface CreateUserInput {
  email: string;
  name?: string;
  role?: Role;
  password?: string | null;
  disabled?: boolean;
}

export async function createUser(db: Db, actor: Actor | null, input: CreateUserInput): Promise<UserJson> {
  if (actor) requireAdmin(actor);
  const email = normalizeEmail(input.email);
  const password_hash = input.password ? await hashPassword(input.password) : null;
  const now = nowIso(db);
  const row = await transaction(db, async (tx) => {
    // The staff are kept with the configuration (decision 104): a new user may be one of them.
    await configChanged(tx);
    return unique(
      db,
      { email },
      async () =>
        await one(
          tx
            .insert(users)
            .values({
              email,
              name: input.name ?? '',
              role: input.role ?? 'agent',
              disabled: input.disabled ?? false,
              password_hash,
              created_at: now,
              updated_at: now,
            })
            .returning(),
        ),
    );
  });
  return userJson(row);
}

export interface UpdateUserInput {
  email?: string;
  name?: string;
  role?: Role;
  password?: string | null;
  disabled?: boolean;
}

/**
 * Counts active admins other than `exceptId`, so the last one cannot lock everybody out. Checked
 * inside the unit of work that demotes, which is SERIALIZABLE (decision 058): two admins demoting
 * each other at once would each see the other still active; the database refuses one of them,
 * which runs again and sees it is the last.
 */
async function otherActiveAdmins(db: Conn, exceptId: number): Promise<number> {
  return (await first(
    db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, 'admin'), eq(users.disabled, false), ne(users.id, exceptId))),
  ))!.n;
}

export async function updateUser(db: Db, actor: Actor, id: number, input: UpdateUserInput): Promise<UserJson> {
  requireAdmin(actor);
  const current = await getUserRow(db, id);
  if (!current) throw notFound('User', id);
  const patch: Partial<UserRow> = {};
  if (input.email !== undefined && normalizeEmail(input.email) !== current.email)
    patch.email = normalizeEmail(input.email);
  if (input.name !== undefined) patch.name = input.name;
  if (input.role !== undefined) patch.role = input.role;
  if (input.disabled !== undefined) patch.disabled = input.disabled;
  if (input.password !== undefined)
    patch.password_hash = input.password === null ? null : await hashPassword(input.password);
  const losesAdmin =
    current.role === 'admin' &&
    !current.disabled &&
    ((patch.role && patch.role !== 'admin') || patch.disabled === true);
  const lastAdmin = () =>
    invalid(patch.disabled ? 'disabled' : 'role', 'The last active administrator cannot be demoted or disabled');
  if (losesAdmin && (await otherActiveAdmins(db, id)) === 0) throw lastAdmin();
  if (Object.keys(patch).length === 0) return userJson(current);
  return unique(db, { email: patch.email }, () =>
    transaction(
      db,
      async (tx) => {
        // Again inside: another admin may have been demoted meanwhile.
        if (losesAdmin && (await otherActiveAdmins(tx, id)) === 0) throw lastAdmin();
        // The staff are kept with the configuration (decision 104): a name, an address, a role
        // or the disabled mark may be one the staff list shows (an admin's change, and rare).
        await configChanged(tx);
        const row = await one(
          tx
            .update(users)
            .set({ ...patch, updated_at: nowIso(db) })
            .where(eq(users.id, id))
            .returning(),
        );
        // One whose password changed is signed out everywhere; a disabled user loses every credential.
        if (patch.disabled === true) await revokeCredentials(tx, id);
        else if (patch.password_hash !== undefined) await tx.delete(sessions).where(eq(sessions.user_id, id));
        return userJson(row);
      },
      { serializable: losesAdmin },
    ),
  );
}

/**
 * Disabling is for good (docs/decisions/041): the user's sessions and API tokens are deleted and
 * their portal links revoked (the epoch raised), so enabling the account again brings none of
 * them back. They sign in again, make new tokens, and our next mail brings a new link.
 */
async function revokeCredentials(tx: Conn, id: number): Promise<void> {
  await tx.delete(sessions).where(eq(sessions.user_id, id));
  await tx.delete(apiTokens).where(eq(apiTokens.user_id, id));
  await tx
    .update(users)
    .set({ portal_epoch: sql`${users.portal_epoch} + 1` })
    .where(eq(users.id, id));
}

/** SPEC B3: DELETE disables the user and removes team memberships; history keeps the user. */
export async function deleteUser(db: Db, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  const current = await getUserRow(db, id);
  if (!current) throw notFound('User', id);
  if (current.role === 'admin' && !current.disabled && (await otherActiveAdmins(db, id)) === 0) {
    throw conflict('The last active administrator cannot be deleted');
  }
  const losesAdmin = current.role === 'admin' && !current.disabled;
  await transaction(
    db,
    async (tx) => {
      if (losesAdmin && (await otherActiveAdmins(tx, id)) === 0)
        throw conflict('The last active administrator cannot be deleted');
      await tx
        .update(users)
        .set({ disabled: true, updated_at: nowIso(db) })
        .where(eq(users.id, id));
      await configChanged(tx); // a team's members are kept by every process (decision 067)
      await tx.delete(teamMembers).where(eq(teamMembers.user_id, id));
      await revokeCredentials(tx, id);
    },
    { serializable: losesAdmin },
  );
}

/**
 * The user behind an inbound address: matched case-insensitively, or created as a stub
 * requester (no password, cannot sign in) with the display name from the mail. Runs inside
 * the mail's SQL transaction.
 */
export async function ensureMailUser(
  conn: Conn,
  address: string,
  displayName: string,
): Promise<{ user: UserRow; created: boolean }> {
  const email = normalizeEmail(address);
  const existing = await userByEmail(conn).get({ email });
  if (existing) {
    await rememberUser(conn, existing); // the mail's scrips need not read the sender again (decision 067)
    return { user: existing, created: false };
  }
  const now = nowIso(conn);
  // Another unit of work may be creating the same address right now (two mails from a new
  // sender, decision 058): the insert then waits for it and does nothing, and the row it made is read.
  const [user] = await conn
    .insert(users)
    .values({
      email,
      name: displayName.slice(0, 200),
      role: 'requester',
      disabled: false,
      password_hash: null,
      created_at: now,
      updated_at: now,
    })
    .onConflictDoNothing()
    .returning();
  if (user) {
    await rememberUser(conn, user);
    return { user, created: true };
  }
  const made = await userByEmail(conn).get({ email });
  if (!made) throw new Error(`The user ${email} was neither created nor found`);
  return { user: made, created: false };
}

// ---- people search (the Requester, Cc and "add person" fields) -----------------------------

export const PEOPLE_SEARCH_MAX = 50;

type Match = Pick<UserRow, 'id' | 'email' | 'name' | 'role' | 'disabled' | 'blocked' | 'created_at' | 'updated_at'>;

/**
 * GET /users?q=: active people whose name or address contains `q` (any case), best first: the
 * exact address, addresses starting with q, names with a word starting with q, then the rest.
 * Requesters can number in the hundred thousands, so every part reads through an index
 * (decisions 023, 090): addresses by prefix through users_email_uq, staff through users_role_idx
 * (a small set), and any part of a name or address of three or more characters through the
 * store's trigram index over every user, newest first (one or two characters: among the newest
 * PEOPLE_SEARCH_WINDOW users only). Each part reads at most `limit` matches.
 */
export async function searchPeople(db: Db, actor: Actor, q: string, limit = 10): Promise<UserJson[]> {
  const n = Math.max(1, Math.min(limit, PEOPLE_SEARCH_MAX));
  return (await searchPeoplePage(db, actor, q, { limit: n }, n)).users;
}

/** The most matches a people search ranks and pages through (decision 035). */
export const PEOPLE_SEARCH_PAGES_MAX = 1000;

/**
 * GET /users?q=: a page of the people search, ranked as searchPeople. Each of its bounded reads
 * stops after `read` matches (PEOPLE_SEARCH_PAGES_MAX for a page of GET /users, so `total` is
 * exact up to that many people; the suggestions of a people field read only what they show).
 */
export async function searchPeoplePage(
  db: Db,
  actor: Actor,
  q: string,
  page: { limit?: number; offset?: number } = {},
  read = PEOPLE_SEARCH_PAGES_MAX,
): Promise<UserPage> {
  requireStaff(actor);
  const needle = q.trim().toLowerCase();
  const limit = Math.max(1, page.limit ?? USERS_PAGE_DEFAULT);
  const offset = page.offset ?? 0;
  if (needle === '') return { users: [], total: 0, limit, offset };
  const n = Math.min(PEOPLE_SEARCH_PAGES_MAX, read);
  const rank = (u: Match) => {
    if (u.email === needle) return 0;
    if (u.email.startsWith(needle)) return 1;
    if (
      u.name
        .toLowerCase()
        .split(/[\s.,'"()-]+/)
        .some((w) => w.startsWith(needle))
    )
      return 2;
    return 3;
  };
  const seen = new Map<number, Match>();
  for (const u of await db.store.queries.searchPeople(db, needle, n)) seen.set(u.id, u);
  const ranked = [...seen.values()]
    .map((u) => ({ u, r: rank(u) }))
    .sort((a, b) => a.r - b.r || (a.u.name || a.u.email).localeCompare(b.u.name || b.u.email) || a.u.id - b.u.id)
    .slice(0, PEOPLE_SEARCH_PAGES_MAX);
  return {
    users: ranked.slice(offset, offset + limit).map(({ u }) => userJson(u)),
    total: ranked.length,
    limit,
    offset,
  };
}
