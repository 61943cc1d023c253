import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { closeDb, openDb, openStore, sqliteOf } from '../src/db/store.js';
import { uniqueViolation as sqliteUniqueViolation } from '../src/db/sqlite/client.js';
import type * as sqliteSchema from '../src/db/tables.js';
import { migratePostgres } from '../src/db/postgres/migrate.js';
import * as pgSchema from '../src/db/postgres/schema.js';
import { containsPattern } from '../src/db/shared/like.js';
import { identityColumns, syncSequences } from '../src/db/postgres/sequences.js';
import { sameName, uniqueColumns, uniqueViolation } from '../src/db/postgres/unique.js';
import { createDatabase, createMigratedDatabase, pgAvailable, postgres, releasePostgres } from './helpers/postgres.js';
import { runServerToExit } from './helpers/process.js';

// SPEC C6: one schema description (src/db/sqlite/schema.ts), two dialects. The PostgreSQL tables are
// derived from the SQLite ones (src/db/postgres/schema.ts); these tests hold the generated
// PostgreSQL migrations against a SQLite database made by its own migrations, on a throwaway
// cluster (tests/helpers/postgres.ts). Skipped where no PostgreSQL server binaries exist.

/**
 * SQLite tables with no PostgreSQL counterpart: FTS5 search (pg_trgm and tsvector indexes instead),
 * bookkeeping, and the versions of the parts the SQLite store keeps (decision 113).
 */
const sqliteOnly = (name: string) =>
  name === 'ticket_parts_version' ||
  name === 'message_search' ||
  name.startsWith('message_search_') ||
  name === 'message_words' ||
  name.startsWith('message_words_') ||
  name === 'users_people' ||
  name.startsWith('users_people_') ||
  name === 'search_pending' ||
  name === 'word_terms' ||
  name === '__drizzle_migrations' ||
  name.startsWith('sqlite_');

interface Shape {
  /** table → column → nullable */
  columns: Record<string, Record<string, boolean>>;
  /** index name → what it is (unique, partial); primary keys and the trigram indexes left out */
  indexes: Record<string, { table: string; unique: boolean; partial: boolean }>;
}

function sqliteShape(): Shape {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-pg-schema-'));
  const db = openDb(path.join(dir, 'hxdesk.db'));
  try {
    const raw = sqliteOf(db);
    const tables = (raw.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map(
      (t) => t.name,
    );
    // The exclusions are real: if SQLite's search tables change, this list must be looked at again.
    expect(tables).toEqual(
      expect.arrayContaining([
        'message_search',
        'message_words',
        'users_people',
        'search_pending',
        'word_terms',
        'ticket_parts_version',
        '__drizzle_migrations',
      ]),
    );
    const columns: Shape['columns'] = {};
    for (const t of tables.filter((n) => !sqliteOnly(n))) {
      columns[t] = {};
      for (const c of raw.prepare('SELECT name, "notnull", pk FROM pragma_table_info(?)').all(t) as {
        name: string;
        notnull: number;
        pk: number;
      }[]) {
        columns[t][c.name] = c.notnull === 0 && c.pk === 0;
      }
    }
    const indexes: Shape['indexes'] = {};
    const rows = raw
      .prepare("SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
      .all() as { name: string; tbl_name: string; sql: string }[];
    for (const ix of rows.filter((r) => !sqliteOnly(r.tbl_name))) {
      indexes[ix.name] = {
        table: ix.tbl_name,
        unique: /^CREATE UNIQUE/i.test(ix.sql),
        partial: /\bWHERE\b/i.test(ix.sql),
      };
    }
    return { columns, indexes };
  } finally {
    closeDb(db);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function pgShape(client: pg.Client): Promise<Shape> {
  const columns: Shape['columns'] = {};
  const tables = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  for (const { table_name } of tables.rows) columns[table_name] = {};
  const cols = await client.query<{ table_name: string; column_name: string; is_nullable: string }>(
    "SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'",
  );
  for (const c of cols.rows) columns[c.table_name][c.column_name] = c.is_nullable === 'YES';
  const indexes: Shape['indexes'] = {};
  const ixs = await client.query<{ name: string; table: string; unique: boolean; partial: boolean; primary: boolean }>(`
    SELECT i.relname AS name, t.relname AS table, x.indisunique AS unique, x.indpred IS NOT NULL AS partial, x.indisprimary AS primary
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'`);
  for (const ix of ixs.rows) {
    if (ix.primary || /_(trgm|words|ranged)_idx$/.test(ix.name)) continue;
    indexes[ix.name] = { table: ix.table, unique: ix.unique, partial: ix.partial };
  }
  return { columns, indexes };
}

const now = new Date().toISOString();

/** Runs fn with a client on a fresh migrated database, closed afterwards. */
async function withDb<T>(fn: (client: pg.Client) => Promise<T>, url?: string): Promise<T> {
  const client = new pg.Client({ connectionString: url ?? (await createMigratedDatabase()) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The SQLSTATE and constraint of what `sql` throws (it must throw). */
async function violation(
  client: pg.Client,
  sql: string,
  params: unknown[] = [],
): Promise<{ code: string; constraint: string }> {
  const e = await client.query(sql, params).then(
    () => null,
    (err: pg.DatabaseError) => err,
  );
  expect(e, `expected ${sql} to fail`).not.toBeNull();
  return { code: e!.code!, constraint: e!.constraint! };
}

/** Every node of an EXPLAIN (FORMAT JSON) plan, depth first. */
function planNodes(plan: any): any[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}
async function explainNodes(client: pg.Client, sql: string, params: unknown[]): Promise<any[]> {
  const r = await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  return planNodes(r.rows[0]['QUERY PLAN'][0].Plan);
}

describe.skipIf(!pgAvailable())('PostgreSQL schema from the one description (SPEC C6)', () => {
  beforeAll(async () => {
    await postgres();
  }); // the cluster start (about a second) outside any test's time
  afterAll(releasePostgres);

  it('applies the migrations to a fresh database, and again changes nothing', async () => {
    const url = await createDatabase();
    await migratePostgres(url);
    await withDb(async (client) => {
      const fingerprint = async () =>
        (
          await client.query(`
        SELECT (SELECT count(*) FROM drizzle.__drizzle_migrations) AS applied,
               (SELECT md5(string_agg(table_name || '.' || column_name || ':' || data_type || ':' || is_nullable || ':' || coalesce(column_default, ''), ',' ORDER BY table_name, column_name))
                  FROM information_schema.columns WHERE table_schema = 'public') AS columns,
               (SELECT md5(string_agg(indexdef, ',' ORDER BY indexname)) FROM pg_indexes WHERE schemaname = 'public') AS indexes`)
        ).rows[0];
      const before = await fingerprint();
      const journal = JSON.parse(
        fs.readFileSync(path.resolve(import.meta.dirname, '../src/db/postgres/migrations/meta/_journal.json'), 'utf8'),
      );
      expect(Number(before.applied)).toBe(journal.entries.length);
      await migratePostgres(url);
      await migratePostgres(url);
      expect(await fingerprint()).toEqual(before);
      expect((await client.query("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'")).rowCount).toBe(1);
    }, url);
  });

  it('migrates once when several processes start at once (advisory lock)', async () => {
    const url = await createDatabase();
    await Promise.all([migratePostgres(url), migratePostgres(url), migratePostgres(url)]);
    await withDb(async (client) => {
      const r = await client.query('SELECT hash, count(*)::int AS n FROM drizzle.__drizzle_migrations GROUP BY hash');
      expect(r.rows.every((row) => row.n === 1)).toBe(true);
      expect(r.rowCount).toBeGreaterThan(0);
    }, url);
  });

  it('has the tables, columns, nullability and indexes of the SQLite database', async () => {
    const lite = sqliteShape();
    const pgs = await withDb(pgShape);
    expect(Object.keys(pgs.columns).sort()).toEqual(Object.keys(lite.columns).sort());
    for (const table of Object.keys(lite.columns)) {
      expect({ table, columns: pgs.columns[table] }).toEqual({ table, columns: lite.columns[table] });
    }
    expect(pgs.indexes).toEqual(lite.indexes);
    // Sanity: the comparison saw the whole schema.
    expect(Object.keys(lite.columns).length).toBeGreaterThanOrEqual(23);
    expect(Object.keys(lite.indexes).length).toBeGreaterThanOrEqual(36);
  });

  it('maps the column types: identity ids, booleans, bigint UIDs, bytea, text', async () => {
    await withDb(async (client) => {
      const r = await client.query<{
        key: string;
        data_type: string;
        is_identity: string;
        identity_generation: string | null;
      }>(`
        SELECT table_name || '.' || column_name AS key, data_type, is_identity, identity_generation
        FROM information_schema.columns WHERE table_schema = 'public'`);
      const col = Object.fromEntries(r.rows.map((row) => [row.key, row]));
      expect(col['tickets.id']).toMatchObject({
        data_type: 'integer',
        is_identity: 'YES',
        identity_generation: 'BY DEFAULT',
      });
      expect(col['users.disabled'].data_type).toBe('boolean');
      expect(col['imap_state.last_uid'].data_type).toBe('bigint');
      expect(col['attachments.content'].data_type).toBe('bytea');
      expect(col['mail_intake.raw'].data_type).toBe('bytea');
      expect(col['users.role'].data_type).toBe('text');
      // Every SQLite autoincrement id, and nothing else, is an identity column.
      const identities = r.rows
        .filter((row) => row.is_identity === 'YES')
        .map((row) => row.key)
        .sort();
      expect(identities).toEqual(identityColumns.map(([t, c]) => `${t}.${c}`).sort());
      expect(identities.length).toBe(23);
    });
  });

  it('keeps the row types of the SQLite tables', () => {
    expectTypeOf<typeof pgSchema.tickets.$inferSelect>().toEqualTypeOf<typeof sqliteSchema.tickets.$inferSelect>();
    expectTypeOf<typeof pgSchema.tickets.$inferInsert>().toEqualTypeOf<typeof sqliteSchema.tickets.$inferInsert>();
    expectTypeOf<typeof pgSchema.users.$inferSelect>().toEqualTypeOf<typeof sqliteSchema.users.$inferSelect>();
    expectTypeOf<typeof pgSchema.outbox.$inferInsert>().toEqualTypeOf<typeof sqliteSchema.outbox.$inferInsert>();
    expectTypeOf<typeof pgSchema.mailIntake.$inferSelect>().toEqualTypeOf<
      typeof sqliteSchema.mailIntake.$inferSelect
    >();
    expectTypeOf<typeof pgSchema.ticketWatchers.$inferSelect>().toEqualTypeOf<
      typeof sqliteSchema.ticketWatchers.$inferSelect
    >();
    expectTypeOf<typeof pgSchema.imapState.$inferSelect>().toEqualTypeOf<typeof sqliteSchema.imapState.$inferSelect>();
  });

  it('round-trips rows through drizzle with the same JavaScript values as on SQLite', async () => {
    const client = new pg.Client({ connectionString: await createMigratedDatabase() });
    await client.connect();
    try {
      const db = drizzle(client, { schema: pgSchema });
      const [u] = await db
        .insert(pgSchema.users)
        .values({ email: 'a@example.com', role: 'agent', created_at: now, updated_at: now })
        .returning();
      expect(u).toMatchObject({
        id: 1,
        disabled: false,
        notify_replies: true,
        name: '',
        timezone: 'UTC',
        portal_epoch: 0,
      });
      const [q] = await db
        .insert(pgSchema.queues)
        .values({ name: 'General', created_at: now, updated_at: now })
        .returning();
      const [t] = await db
        .insert(pgSchema.tickets)
        .values({ queue_id: q.id, subject: 'Printer', requester_id: u.id, created_at: now, updated_at: now })
        .returning();
      const [x] = await db
        .insert(pgSchema.transactions)
        .values({ ticket_id: t.id, type: 'Create', body: 'It jams', created_at: now })
        .returning();
      const bytes = Buffer.from([0, 1, 2, 255, 0x27, 0x5c]);
      await db.insert(pgSchema.attachments).values({
        transaction_id: x.id,
        filename: 'a.bin',
        content_type: 'application/octet-stream',
        size: bytes.length,
        content: bytes,
        created_at: now,
      });
      const [a] = await db.select().from(pgSchema.attachments);
      expect(Buffer.isBuffer(a.content)).toBe(true);
      expect(a.content.equals(bytes)).toBe(true);
      await db
        .insert(pgSchema.imapState)
        .values({ mailbox: 'support@host/INBOX', uid_validity: '1', last_uid: 4_294_967_295, updated_at: now });
      const [s] = await db.select().from(pgSchema.imapState);
      expect(s.last_uid).toBe(4_294_967_295);
      // ON DELETE carried over: the ticket's transactions and attachments go with it.
      await db.delete(pgSchema.tickets).where(eq(pgSchema.tickets.id, t.id));
      expect((await client.query('SELECT count(*)::int AS n FROM attachments')).rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('takes explicit ids (copy-store) and moves the sequences past them', async () => {
    await withDb(async (client) => {
      await client.query(
        "INSERT INTO users (id, email, role, created_at, updated_at) VALUES (41, 'x@example.com', 'admin', $1, $1)",
        [now],
      );
      await syncSequences(client);
      const r = await client.query(
        "INSERT INTO users (email, role, created_at, updated_at) VALUES ('y@example.com', 'agent', $1, $1) RETURNING id",
        [now],
      );
      expect(r.rows[0].id).toBe(42);
      // An empty table starts at 1.
      const q = await client.query(
        "INSERT INTO teams (name, created_at, updated_at) VALUES ('Ops', $1, $1) RETURNING id",
        [now],
      );
      expect(q.rows[0].id).toBe(1);
    });
  });

  it('enforces the uniqueness SPEC C6 names: team and queue names (any case), memberships, aliases, e-mails, scrip keys', async () => {
    await withDb(async (client) => {
      const ins = async (sql: string, params: unknown[] = []) =>
        (await client.query(`${sql} RETURNING *`, params)).rows[0];
      const user = await ins(
        "INSERT INTO users (email, role, created_at, updated_at) VALUES ('a@example.com', 'agent', $1, $1)",
        [now],
      );
      expect(
        await violation(
          client,
          "INSERT INTO users (email, role, created_at, updated_at) VALUES ('a@example.com', 'admin', $1, $1)",
          [now],
        ),
      ).toEqual({ code: '23505', constraint: 'users_email_uq' });

      const team = await ins("INSERT INTO teams (name, created_at, updated_at) VALUES ('Support', $1, $1)", [now]);
      expect(
        await violation(client, "INSERT INTO teams (name, created_at, updated_at) VALUES ('SUPPORT', $1, $1)", [now]),
      ).toEqual({ code: '23505', constraint: 'teams_name_uq' });
      await ins("INSERT INTO teams (name, created_at, updated_at) VALUES ('Support 2', $1, $1)", [now]);

      await ins('INSERT INTO team_members (team_id, user_id, created_at) VALUES ($1, $2, $3)', [team.id, user.id, now]);
      expect(
        await violation(client, 'INSERT INTO team_members (team_id, user_id, created_at) VALUES ($1, $2, $3)', [
          team.id,
          user.id,
          now,
        ]),
      ).toEqual({ code: '23505', constraint: 'team_members_team_id_user_id_pk' });

      await ins(
        "INSERT INTO queues (name, mail_alias, created_at, updated_at) VALUES ('General', 'help@example.com', $1, $1)",
        [now],
      );
      expect(
        await violation(client, "INSERT INTO queues (name, created_at, updated_at) VALUES ('general', $1, $1)", [now]),
      ).toEqual({ code: '23505', constraint: 'queues_name_uq' });
      expect(
        await violation(
          client,
          "INSERT INTO queues (name, mail_alias, created_at, updated_at) VALUES ('Billing', 'help@example.com', $1, $1)",
          [now],
        ),
      ).toEqual({ code: '23505', constraint: 'queues_mail_alias_uq' });
      // Queues without an alias are many.
      await ins("INSERT INTO queues (name, created_at, updated_at) VALUES ('Billing', $1, $1)", [now]);
      await ins("INSERT INTO queues (name, created_at, updated_at) VALUES ('Sales', $1, $1)", [now]);

      await ins(
        "INSERT INTO scrips (key, condition, action, created_at, updated_at) VALUES ('notify', 'on_create', 'notify_owner', $1, $1)",
        [now],
      );
      expect(
        await violation(
          client,
          "INSERT INTO scrips (key, condition, action, created_at, updated_at) VALUES ('notify', 'on_comment', 'notify_owner', $1, $1)",
          [now],
        ),
      ).toEqual({ code: '23505', constraint: 'scrips_key_uq' });

      await ins("INSERT INTO templates (name, created_at, updated_at) VALUES ('Autoreply', $1, $1)", [now]);
      expect(
        await violation(client, "INSERT INTO templates (name, created_at, updated_at) VALUES ('autoREPLY', $1, $1)", [
          now,
        ]),
      ).toEqual({ code: '23505', constraint: 'templates_name_uq' });

      // A renamed row counts too.
      expect(await violation(client, "UPDATE teams SET name = 'support' WHERE name = 'Support 2'")).toEqual({
        code: '23505',
        constraint: 'teams_name_uq',
      });
    });
  });

  it("names the broken unique index's columns as SQLite does (uniqueViolation), for the same writes", async () => {
    // The same statements on both stores; each answer is what src/domain/unique.ts turns into a 409.
    const steps: [string, string[] | undefined][] = [
      [
        "INSERT INTO users (email, role, created_at, updated_at) VALUES ('a@example.com', 'agent', 't', 't')",
        undefined,
      ],
      [
        "INSERT INTO users (email, role, created_at, updated_at) VALUES ('a@example.com', 'admin', 't', 't')",
        ['users.email'],
      ],
      ["INSERT INTO teams (name, created_at, updated_at) VALUES ('Support', 't', 't')", undefined],
      ["INSERT INTO teams (name, created_at, updated_at) VALUES ('support', 't', 't')", ['teams.name']],
      // NOCASE folds ASCII letters only (decision 018); so does lower(name COLLATE "C").
      ["INSERT INTO teams (name, created_at, updated_at) VALUES ('Équipe', 't', 't')", undefined],
      ["INSERT INTO teams (name, created_at, updated_at) VALUES ('équipe', 't', 't')", undefined],
      ["INSERT INTO teams (name, created_at, updated_at) VALUES ('ÉQUIPE', 't', 't')", ['teams.name']],
      ["INSERT INTO team_members (team_id, user_id, created_at) VALUES (1, 1, 't')", undefined],
      [
        "INSERT INTO team_members (team_id, user_id, created_at) VALUES (1, 1, 't')",
        ['team_members.team_id', 'team_members.user_id'],
      ],
      [
        "INSERT INTO queues (name, mail_alias, created_at, updated_at) VALUES ('General', 'help@example.com', 't', 't')",
        undefined,
      ],
      ["INSERT INTO queues (name, created_at, updated_at) VALUES ('GENERAL', 't', 't')", ['queues.name']],
      [
        "INSERT INTO queues (name, mail_alias, created_at, updated_at) VALUES ('Billing', 'help@example.com', 't', 't')",
        ['queues.mail_alias'],
      ],
      [
        "INSERT INTO scrips (key, condition, action, created_at, updated_at) VALUES ('k', 'on_create', 'notify_owner', 't', 't')",
        undefined,
      ],
      [
        "INSERT INTO scrips (key, condition, action, created_at, updated_at) VALUES ('k', 'on_create', 'notify_owner', 't', 't')",
        ['scrips.key'],
      ],
      ["INSERT INTO templates (name, created_at, updated_at) VALUES ('Autoreply', 't', 't')", undefined],
      ["INSERT INTO templates (name, created_at, updated_at) VALUES ('AUTOREPLY', 't', 't')", ['templates.name']],
      [
        "INSERT INTO custom_fields (key, name, type, created_at, updated_at) VALUES ('f', 'F', 'text', 't', 't')",
        undefined,
      ],
      [
        "INSERT INTO custom_fields (key, name, type, created_at, updated_at) VALUES ('f', 'G', 'text', 't', 't')",
        ['custom_fields.key'],
      ],
      ["INSERT INTO app_secrets (name, value, created_at) VALUES ('portal', 'x', 't')", undefined],
      ["INSERT INTO app_secrets (name, value, created_at) VALUES ('portal', 'y', 't')", ['app_secrets.name']],
      ["INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES ('h', 1, 't', 't')", undefined],
      ["INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (1, 'a', 'h', 't')", undefined],
      [
        "INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (1, 'b', 'h', 't')",
        ['api_tokens.token_hash'],
      ],
    ];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-pg-unique-'));
    const lite = openDb(path.join(dir, 'hxdesk.db'));
    try {
      await withDb(async (client) => {
        for (const [statement, expected] of steps) {
          let onLite: string[] | undefined;
          try {
            sqliteOf(lite).prepare(statement).run();
          } catch (e) {
            onLite = sqliteUniqueViolation(e);
            if (!onLite) throw e;
          }
          let onPg: string[] | undefined;
          try {
            await client.query(statement);
          } catch (e) {
            onPg = uniqueViolation(e);
            if (!onPg) throw e;
          }
          expect({ statement, sqlite: onLite, postgres: onPg }).toEqual({
            statement,
            sqlite: expected,
            postgres: expected,
          });
        }
      });
    } finally {
      closeDb(lite);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Every unique index and primary key of the schema is known by name.
    expect([...uniqueColumns.keys()]).toEqual(
      expect.arrayContaining([
        'users_email_uq',
        'teams_name_uq',
        'team_members_team_id_user_id_pk',
        'queues_name_uq',
        'queues_mail_alias_uq',
        'scrips_key_uq',
        'users_pkey',
      ]),
    );
  });

  it('looks names up through their unique index (sameName → lower(name COLLATE "C") = lower($1 …))', async () => {
    await withDb(async (client) => {
      await client.query(
        `INSERT INTO teams (name, created_at, updated_at) SELECT 'Team ' || i, 't', 't' FROM generate_series(1, 2000) AS i`,
      );
      await client.query('ANALYZE teams');
      const db = drizzle(client, { schema: pgSchema });
      const query = db
        .select({ id: pgSchema.teams.id })
        .from(pgSchema.teams)
        .where(sameName(pgSchema.teams.name, 'TEAM 42'))
        .toSQL();
      const plan = await explainNodes(client, query.sql, query.params);
      expect(plan.map((n) => n['Index Name']).filter(Boolean), JSON.stringify(plan)).toContain('teams_name_uq');
      expect((await client.query(query.sql, query.params)).rows).toEqual([{ id: 42 }]);
    });
  });

  it('answers subject ILIKE %term% through the trigram index (5,000 tickets, vacuumed and analyzed)', async () => {
    await withDb(async (client) => {
      await client.query(
        "INSERT INTO users (email, role, created_at, updated_at) VALUES ('a@example.com', 'agent', $1, $1)",
        [now],
      );
      await client.query("INSERT INTO queues (name, created_at, updated_at) VALUES ('General', $1, $1)", [now]);
      await client.query(
        `
        INSERT INTO tickets (queue_id, subject, created_at, updated_at)
        SELECT 1, (ARRAY['Printer jammed', 'VPN drops', 'Password reset', 'Invoice question', 'Laptop slow'])[1 + i % 5]
                  || CASE WHEN i % 1000 = 0 THEN ' in the FOObar room' ELSE '' END || ' #' || i, $1, $1
        FROM generate_series(1, 5000) AS i`,
        [now],
      );
      await client.query(
        `
        INSERT INTO transactions (ticket_id, type, body, created_at)
        SELECT 1 + i % 5000, CASE WHEN i % 3 = 0 THEN 'Comment' WHEN i % 3 = 1 THEN 'Correspond' ELSE 'Status' END,
               CASE WHEN i % 3 = 2 THEN NULL ELSE 'Hello, the ' || md5(i::text) || CASE WHEN i % 997 = 0 THEN ' Ärger with foo' ELSE '' END END, $1
        FROM generate_series(1, 15000) AS i`,
        [now],
      );
      // VACUUM as well as ANALYZE: rows inserted after CREATE INDEX wait in the GIN index's pending
      // list (fastupdate) until a vacuum merges them, and the planner prices a search as a scan
      // of that whole list (about 950 for this table against 141 for a sequential scan). In
      // service, autovacuum does this; after a bulk load (copy-store) it must be run explicitly.
      await client.query('VACUUM ANALYZE tickets, transactions');

      const pattern = containsPattern('foo');
      const plan = await explainNodes(client, 'SELECT id FROM tickets WHERE subject ILIKE $1', [pattern]);
      expect(plan.map((n) => n['Index Name']).filter(Boolean), JSON.stringify(plan)).toContain(
        'tickets_subject_trgm_idx',
      );
      const found = await client.query('SELECT subject FROM tickets WHERE subject ILIKE $1 ORDER BY id', [pattern]);
      expect(found.rowCount).toBe(5);
      expect(found.rows[0].subject).toContain('FOObar');

      // Message bodies: public ones only, as a requester's search; the partial index serves it.
      const bodyPlan = await explainNodes(
        client,
        "SELECT ticket_id FROM transactions WHERE body ILIKE $1 AND type <> 'Comment'",
        [containsPattern('ärger')],
      );
      expect(bodyPlan.map((n) => n['Index Name']).filter(Boolean), JSON.stringify(bodyPlan)).toContain(
        'transactions_body_trgm_idx',
      );
      const bodies = await client.query(
        "SELECT count(*)::int AS n FROM transactions WHERE body ILIKE $1 AND type <> 'Comment'",
        [containsPattern('ärger')],
      );
      // i % 997 = 0 and i % 3 = 1 for i ≤ 15000: 997·k with k ≡ 1 (mod 3), k = 1..15 → k = 1, 4, 7, 10, 13.
      expect(bodies.rows[0].n).toBe(5);
    });
  });

  it('treats % and _ in a search term as themselves', async () => {
    await withDb(async (client) => {
      const r = await client.query<{ m: boolean }>(
        `SELECT s ILIKE $1 AS m FROM (VALUES ('50% off'), ('500 off'), ('a_b'), ('axb')) AS v(s)`,
        [containsPattern('0%')],
      );
      expect(r.rows.map((x) => x.m)).toEqual([true, false, false, false]);
      const u = await client.query<{ m: boolean }>(
        `SELECT s ILIKE $1 AS m FROM (VALUES ('a_b'), ('axb'), ('a\\b')) AS v(s)`,
        [containsPattern('a_b')],
      );
      expect(u.rows.map((x) => x.m)).toEqual([true, false, false]);
    });
  });

  it('refuses a database that is not UTF8 at start, with words saying so, before migrating anything', async () => {
    const cluster = await postgres();
    const name = `hx_${process.pid}_latin1`;
    await withDb(
      (client) =>
        client.query(`CREATE DATABASE ${name} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`),
      cluster.url(),
    );
    const url = cluster.url(name);
    await expect(openStore({ DATABASE_URL: url, dbPath: '' })).rejects.toThrow(
      `the database "${name}" has the encoding LATIN1; hxdesk needs a UTF8 database`,
    );
    // The server's start stops on it too, naming the database (without a password) and the fix.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-latin1-'));
    const run = await runServerToExit({ DATABASE_URL: url, DATA_DIR: dataDir }).finally(() =>
      fs.rmSync(dataDir, { recursive: true, force: true }),
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toMatch(
      /Cannot open the database postgres:\/\/postgres@127\.0\.0\.1:\d+\/hx_\d+_latin1 \(DATABASE_URL\): the database "hx_\d+_latin1" has the encoding LATIN1; hxdesk needs a UTF8 database \(create one with: CREATE DATABASE hx_\d+_latin1 ENCODING 'UTF8' TEMPLATE template0\)/,
    );
    expect(run.stdout).not.toContain('listening on');
    // Nothing was written to it: no migration table, no extension.
    await withDb(async (client) => {
      expect((await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'drizzle'")).rowCount).toBe(0);
      expect((await client.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")).rowCount).toBe(0);
    }, url);
    // A UTF8 database of the same cluster opens.
    const ok = await openStore({ DATABASE_URL: await createDatabase(), dbPath: '' });
    await ok.close();
  });
});
