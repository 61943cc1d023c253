import type pg from 'pg';
import { causeChain, type StorageCause, StorageUnavailable } from '../storageErrors.js';

// PostgreSQL's side of a full disk or a read-only store (docs/decisions/042): which SQLSTATEs
// mean that the database cannot take writes, and the probe write that tells when it can again.

/** The SQLSTATE of a driver error, or of the driver error drizzle wrapped ("Failed query: …", the pg error as its cause). */
export function sqlState(err: unknown): string | undefined {
  return driverError(err)?.code;
}

function driverError(err: unknown): { code: string; message: string } | undefined {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
      return { code, message: String((e as { message?: unknown }).message ?? code) };
  }
  return undefined;
}

/**
 * 53100 disk_full ("could not extend file …: No space left on device"); the rest of class 53,
 * insufficient resources (out of memory, too many connections); 25006 read_only_sql_transaction
 * (a standby, default_transaction_read_only); 58030 io_error.
 */
function causeOf(state: string): StorageCause | undefined {
  if (state === '53100') return 'disk_full';
  if (state.startsWith('53')) return 'exhausted';
  if (state === '25006') return 'read_only';
  if (state === '58030') return 'io_error';
  return undefined;
}

/** The storage failure a PostgreSQL error means, or undefined. */
export function pgStorageFailure(err: unknown): StorageUnavailable | undefined {
  const driver = driverError(err);
  const cause = driver && causeOf(driver.code);
  return cause ? new StorageUnavailable(cause, driver.message, { cause: err }) : undefined;
}

/**
 * The probe write: a temporary table that lives for one transaction, with one row. Its file is
 * made in the database's default tablespace (temp_tablespaces is not set by hxdesk) and the row
 * extends it by a page, so the probe needs the disk the database's tables are on, as a new row
 * that does not fit an existing page does; a read-only database refuses the CREATE (25006).
 * Nothing of it stays.
 */
export async function probeWrite(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('CREATE TEMPORARY TABLE hx_storage_probe (b int) ON COMMIT DROP');
    await client.query('INSERT INTO hx_storage_probe VALUES (1)');
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch((r: Error) => {
      broken = r;
    });
    throw e;
  } finally {
    client.release(broken);
  }
}
