import { eq } from 'drizzle-orm';
import { type Db, first, transaction } from '../db/port.js';
import { appSecrets } from '../db/tables.js';
import { nowIso } from './clock.js';
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Passwords: scrypt (N=2^15, r=8, p=1), random salt, encoded as scrypt$N$r$p$salt$hash.
// Session ids and API tokens are 256-bit random secrets; only their SHA-256 is stored.

const PARAMS = { N: 32768, r: 8, p: 1 };
const KEYLEN = 32;

function scryptAsync(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEYLEN, { ...opts, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A valid hash of nothing anyone knows: verifying against it costs what a real check costs. */
const DUMMY = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? DUMMY).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return stored !== null && key.length === expected.length && timingSafeEqual(key, expected);
}

export const newSecret = (prefix = '') => prefix + randomBytes(32).toString('base64url');
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
export const generatePassword = () => randomBytes(15).toString('base64url');

/**
 * A server-wide secret kept in the database (generated at first use), so every process of
 * an installation signs and checks links with the same key.
 */
export async function appSecret(db: Db, name: string): Promise<string> {
  const read = async () =>
    (await first(db.select({ value: appSecrets.value }).from(appSecrets).where(eq(appSecrets.name, name))))?.value;
  // Read first: a start on a full disk or a read-only store needs no write once the secret exists (decision 042).
  const known = await read();
  if (known !== undefined) return known;
  await transaction(db, (tx) =>
    tx
      .insert(appSecrets)
      .values({ name, value: newSecret(), created_at: nowIso(tx) })
      .onConflictDoNothing(),
  );
  return (await read())!;
}
