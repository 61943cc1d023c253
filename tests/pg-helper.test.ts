import fs from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createDatabase,
  createMigratedDatabase,
  pgAvailable,
  postgres,
  startPostgres,
  releasePostgres,
} from './helpers/postgres.js';

// tests/helpers/postgres.ts: one throwaway cluster per vitest worker slot, a fresh database per call,
// a file's databases dropped when it is done.

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!pgAvailable())('throwaway PostgreSQL clusters', () => {
  afterAll(releasePostgres);

  it('hands out separate databases in one cluster', async () => {
    const a = await createDatabase();
    const b = await createDatabase();
    expect(a).not.toBe(b);
    expect(new URL(a).port).toBe(new URL(b).port);
    await query(a, 'CREATE TABLE only_in_a (x int)');
    expect(await query(b, "SELECT to_regclass('only_in_a') AS t")).toEqual([{ t: null }]);
    const [{ server_version }] = await query<{ server_version: string }>(a, 'SHOW server_version');
    expect(Number(server_version.split('.')[0])).toBeGreaterThanOrEqual(14); // SPEC C6: 14 or newer
  });

  it('copies migrated databases from one template, each its own', async () => {
    const a = await createMigratedDatabase();
    const b = await createMigratedDatabase();
    const now = new Date().toISOString();
    await query(a, `INSERT INTO teams (name, created_at, updated_at) VALUES ('Ops', '${now}', '${now}')`);
    expect(await query(b, 'SELECT count(*)::int AS n FROM teams')).toEqual([{ n: 0 }]);
    expect(await query(b, "SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'")).toEqual([{ n: 1 }]);
  });

  it('listens on 127.0.0.1 only, folds case beyond ASCII (UTF-8 locale), and is gone after stop()', async () => {
    const cluster = await startPostgres();
    try {
      const url = await cluster.createDatabase();
      expect(await query(url, "SELECT current_setting('listen_addresses') AS l, lower('ÄRGER') AS x")).toEqual([
        { l: '127.0.0.1', x: 'ärger' },
      ]);
      expect(cluster.startMs).toBeLessThan(15_000);
      expect(fs.existsSync(cluster.dir)).toBe(true);
    } finally {
      await cluster.stop();
    }
    expect(fs.existsSync(cluster.dir)).toBe(false);
    const refused = await query(cluster.url(), 'SELECT 1').then(
      () => null,
      (e: NodeJS.ErrnoException) => e.code,
    );
    expect(refused).toBe('ECONNREFUSED');
    expect((await postgres()).port).not.toBe(cluster.port); // the shared cluster is another one
  });

  it("keeps the worker's cluster for the next file: releasing drops the databases, not the cluster", async () => {
    expect(process.env.HXDESK_PG_RUN_DIR, "the run's directory (tests/helpers/pgRun.ts)").toBeTruthy();
    const before = await postgres();
    const url = await createMigratedDatabase();
    const plain = await createDatabase();
    await expect(before.stop()).rejects.toThrow(/stopped by the run/);
    await releasePostgres();
    // What the next file of this worker sees: the same server, none of this file's databases, the template still there.
    const after = await postgres();
    expect(after.port).toBe(before.port);
    expect(after.startMs).toBe(0);
    for (const gone of [url, plain]) {
      const code = await query(gone, 'SELECT 1').then(
        () => null,
        (e: { code?: string }) => e.code,
      );
      expect(code, gone).toBe('3D000'); // invalid_catalog_name: the database does not exist
    }
    const names = (
      await query<{ datname: string }>(after.url(), 'SELECT datname FROM pg_database ORDER BY datname')
    ).map((r) => r.datname);
    expect(names).toEqual(expect.arrayContaining(['hx_template', 'postgres', 'template0', 'template1']));
    // None of this process's databases is left (another process's, still exiting, is never dropped under it).
    expect(names.filter((n) => n.startsWith(`hx_${process.pid}_`))).toEqual([]);
    expect(await query(await createMigratedDatabase(), 'SELECT count(*)::int AS n FROM teams')).toEqual([{ n: 0 }]);
  });
});
