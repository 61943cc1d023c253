import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { changes, type Db, prepared, one, storageUnavailable, transaction } from '../db/port.js';
import { apiTokens, sessions, users } from '../db/tables.js';
import type { Actor } from './actor.js';
import { nowIso, nowMs } from './clock.js';
import { AppError, notFound } from './errors.js';
import { newSecret, sha256, verifyPassword } from './secrets.js';
import { findUserByEmail, type UserRow } from './users.js';

const DAY = 24 * 60 * 60 * 1000;

const toActor = (u: UserRow): Actor => ({ id: u.id, email: u.email, name: u.name, role: u.role, timezone: u.timezone });

/** Checks a password; the same cost and the same answer whether the account exists or not. */
export async function authenticate(db: Db, email: string, password: string): Promise<Actor> {
  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(password, user?.password_hash ?? null);
  if (!user || !ok || user.disabled) throw new AppError('unauthenticated', 'Invalid email or password');
  return toActor(user);
}

export async function createSession(db: Db, userId: number, days: number): Promise<{ secret: string; expires: Date }> {
  const secret = newSecret();
  const now = nowIso(db);
  const expires = new Date(Date.parse(now) + days * DAY);
  await transaction(db, async (tx) => {
    await tx.delete(sessions).where(lt(sessions.expires_at, now)); // sweep expired ones
    await tx
      .insert(sessions)
      .values({ id_hash: sha256(secret), user_id: userId, created_at: now, expires_at: expires.toISOString() });
  });
  return { secret, expires };
}

export async function destroySession(db: Db, secret: string): Promise<void> {
  await transaction(db, (tx) => tx.delete(sessions).where(eq(sessions.id_hash, sha256(secret))));
}

// Every request resolves its actor: both lookups are compiled once.
const sessionUser = prepared((db) =>
  db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.user_id))
    .where(and(eq(sessions.id_hash, sql.placeholder('hash')), gt(sessions.expires_at, sql.placeholder('now')))),
);
const tokenUser = prepared((db) =>
  db
    .select({ user: users, tokenId: apiTokens.id, lastUsed: apiTokens.last_used_at })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.user_id))
    .where(eq(apiTokens.token_hash, sql.placeholder('hash'))),
);

export async function actorFromSession(db: Db, secret: string): Promise<Actor | null> {
  const row = await sessionUser(db).get({ hash: sha256(secret), now: nowIso(db) });
  return row && !row.user.disabled ? toActor(row.user) : null;
}

/** last_used_at is a hint for the owner, not an audit log: written at most once a minute per token. */
const LAST_USE_STEP = 60_000;

export async function actorFromToken(db: Db, token: string): Promise<Actor | null> {
  const hash = sha256(token);
  const row = await tokenUser(db).get({ hash });
  if (!row || row.user.disabled) return null;
  // The row just read tells whether a write is due, so a busy token costs no write per request.
  // The write itself is conditional: of several processes (or requests) that find it due at
  // once, one moves last_used_at and the others change nothing — no per-process memory needed.
  const now = nowMs(db);
  const stale = new Date(now - LAST_USE_STEP).toISOString();
  if (row.lastUsed === null || row.lastUsed < stale) {
    await transaction(db, (tx) =>
      tx
        .update(apiTokens)
        .set({ last_used_at: new Date(now).toISOString() })
        .where(
          and(eq(apiTokens.id, row.tokenId), or(isNull(apiTokens.last_used_at), lt(apiTokens.last_used_at, stale))),
        ),
    )
      // A hint: a store that cannot write (a full disk, decision 042) does not stop the request; the next one tries again.
      .catch((e: unknown) => {
        if (!storageUnavailable(db, e)) throw e;
      });
  }
  return toActor(row.user);
}

export interface TokenJson {
  id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
}
const tokenJson = (t: typeof apiTokens.$inferSelect): TokenJson => ({
  id: t.id,
  name: t.name,
  created_at: t.created_at,
  last_used_at: t.last_used_at,
});

/** Creates an API token for the actor; the secret is returned this once and stored hashed. */
export async function createToken(db: Db, actor: Actor, name: string): Promise<TokenJson & { token: string }> {
  const token = newSecret('hxd_');
  const row = await transaction(db, (tx) =>
    one(
      tx
        .insert(apiTokens)
        .values({ user_id: actor.id, name, token_hash: sha256(token), created_at: nowIso(db) })
        .returning(),
    ),
  );
  return { ...tokenJson(row), token };
}

export async function listTokens(db: Db, actor: Actor): Promise<TokenJson[]> {
  return (await db.select().from(apiTokens).where(eq(apiTokens.user_id, actor.id)).orderBy(desc(apiTokens.id))).map(
    tokenJson,
  );
}

/** Users revoke their own tokens; an administrator may revoke anyone's. */
export async function deleteToken(db: Db, actor: Actor, id: number): Promise<void> {
  const where =
    actor.role === 'admin' ? eq(apiTokens.id, id) : and(eq(apiTokens.id, id), eq(apiTokens.user_id, actor.id));
  const res = await transaction(db, (tx) => tx.delete(apiTokens).where(where));
  if (changes(res) === 0) throw notFound('Token', id);
}
