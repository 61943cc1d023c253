import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess, runCli } from './helpers/cli.js';
import { createDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';
import { sha256 } from './helpers/mail.js';
import { tokenFor } from './helpers/session.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, login, processScope, send, serverEnv, stopServer } from './helpers/process.js';

// `hxdesk copy-store --to postgres://…` (SPEC C6, docs/decisions/029): a SQLite install built
// through the API and mail by a real server process, stopped, copied by the real command into a
// database of a real throwaway PostgreSQL cluster, then served by a real server on PostgreSQL
// and compared with what the SQLite server answered, route by route. Runs in the sqlite project
// only (vitest.config.ts): it starts its own cluster and both servers itself.

const AGENT_PASSWORD = 'agent-password-4567';
const { dataDir, serve } = processScope('copy-store');

/** A call that must answer `status`; its body. */
async function ok(
  base: string,
  token: string,
  method: string,
  p: string,
  body?: unknown,
  status = method === 'POST' ? 201 : 200,
): Promise<any> {
  const res = await send(base, method, p, body, { token });
  expect(res.status, `${method} ${p}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** How /mailgate is sent a message: its raw bytes. */
const RFC822 = { type: 'message/rfc822' };

/** Every byte value, several times over: an attachment whose bytes must survive exactly. */
const BINARY = Buffer.from(Array.from({ length: 1024 }, (_, i) => (i * 7 + (i >> 8)) % 256));

function mail(headers: Record<string, string>, body: Buffer): Buffer {
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body]);
}
function withAttachment(text: string, file: Buffer, name: string): { type: string; body: Buffer } {
  const b = 'hx-boundary-42';
  const body = Buffer.concat([
    Buffer.from(
      `--${b}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${text}\r\n`,
    ),
    Buffer.from(
      `--${b}\r\nContent-Type: application/octet-stream; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n`,
    ),
    Buffer.from(`${file.toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n--${b}--\r\n`),
  ]);
  return { type: `multipart/mixed; boundary="${b}"`, body };
}

/** Row counts per table, read straight from PostgreSQL (to prove a refusal changed nothing). */
async function pgState(url: string): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tables = (
      await c.query<{ s: string; t: string }>(
        "SELECT table_schema AS s, table_name AS t FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2",
      )
    ).rows;
    const out: Record<string, number> = {};
    for (const { s, t } of tables)
      out[`${s}.${t}`] = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${s}"."${t}"`)).rows[0].n;
    return out;
  } finally {
    await c.end();
  }
}

/**
 * What the API says about everything in the install, as the admin sees it: every list and every
 * item of it, each ticket's history, attachments as their bytes' hashes, searches.
 */
async function snapshot(base: string, token: string, searches: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const get = async (p: string) => {
    const b = await ok(base, token, 'GET', p);
    out[p] = b;
    return b;
  };
  await get('/me');
  await get('/settings');
  const users = (await get('/users')).users as { id: number }[];
  for (const u of users) await get(`/users/${u.id}`);
  for (const t of (await get('/teams')).teams as { id: number }[]) await get(`/teams/${t.id}`);
  for (const q of (await get('/queues')).queues as { id: number }[]) await get(`/queues/${q.id}`);
  await get('/custom-fields');
  await get('/saved-views');
  for (const d of (await get('/dashboards')).dashboards as { id: number }[]) await get(`/dashboards/${d.id}`);
  await get('/templates');
  await get('/scrips');
  for (const o of (await get('/outbox?limit=500')).outbox as { id: number }[]) await get(`/outbox/${o.id}`);
  for (const m of (await get('/mail/intake?limit=500')).intake as { id: number }[]) await get(`/mail/intake/${m.id}`);
  const tickets = (await get('/tickets?limit=500&sort=id')).tickets as { id: number }[];
  for (const t of tickets) {
    await get(`/tickets/${t.id}`);
    const txns = (await get(`/tickets/${t.id}/transactions`)).transactions as { attachments?: { id: number }[] }[];
    for (const a of txns.flatMap((x) => x.attachments ?? [])) {
      const res = await send(base, 'GET', `/attachments/${a.id}`, undefined, { token });
      expect(res.status).toBe(200);
      out[`/attachments/${a.id}`] = { bytes: res.bytes.length, sha256: sha256(res.bytes) };
    }
  }
  for (const q of searches) await get(`/tickets?q=${encodeURIComponent(q)}&sort=id`);
  await get('/tickets?cf.account=ACME-%C3%BC');
  await get('/tickets?status=open&sort=-priority');
  return out;
}

const pgTest = describe.skipIf(!pgAvailable());

pgTest('hxdesk copy-store', () => {
  afterAll(releasePostgres);

  it('moves a SQLite install to PostgreSQL: the API answers the same, ids, bytes, search, passwords and tokens included; sequences continue past the copied ids', async () => {
    const dir = dataDir();
    const s = await serve(dir, { MAIL_SENDER_MAX_PER_HOUR: '5' });
    const base = s.base;
    const admin = await tokenFor(base, ADMIN_EMAIL, ADMIN_PASSWORD, `copy-store test ${ADMIN_EMAIL}`);

    // People, teams, queues.
    const team = await ok(base, admin, 'POST', '/teams', { name: 'Support Ωmega', description: 'Erste Hilfe — 第一' });
    const agent = await ok(base, admin, 'POST', '/users', {
      email: 'agnes@example.com',
      name: 'Agnès Ünal',
      role: 'agent',
      password: AGENT_PASSWORD,
    });
    const gone = await ok(base, admin, 'POST', '/users', {
      email: 'gone@example.com',
      name: 'Gone Agent',
      role: 'agent',
      password: 'gone-password-123',
    });
    const requester = await ok(base, admin, 'POST', '/users', {
      email: 'rita@customer.example',
      name: 'Rita Requester',
      role: 'requester',
    });
    await ok(base, admin, 'POST', `/teams/${team.id}/members`, { user_id: agent.id });
    await ok(base, admin, 'POST', `/teams/${team.id}/members`, { user_id: gone.id });
    const billing = await ok(base, admin, 'POST', '/queues', {
      name: 'Billing',
      team_id: team.id,
      mail_alias: 'billing@example.com',
      keep_mail_cc: false,
      signature: 'Ihr Billing-Team ✓',
      admin_cc: [agent.id],
    });
    await ok(base, admin, 'DELETE', `/users/${gone.id}`, undefined, 204);
    // Fields, templates, scrips, views, dashboards, settings.
    await ok(base, admin, 'POST', '/custom-fields', { key: 'account', name: 'Account', type: 'text' });
    await ok(base, admin, 'POST', '/custom-fields', {
      key: 'tier',
      name: 'Tier',
      type: 'select',
      options: ['gold', 'silver'],
      required: false,
      queue_ids: [billing.id],
    });
    const template = await ok(base, admin, 'POST', '/templates', {
      name: 'Eskalation',
      subject: 'Dringend: {{ ticket.subject }}',
      body: 'Bitte übernehmen — {{ ticket.id }}',
    });
    await ok(base, admin, 'POST', '/scrips', {
      key: 'escalate',
      description: 'Priorität hoch',
      condition: 'on_priority_change',
      action: 'notify_owner',
      template_id: template.id,
      enabled: false,
      sort_order: 5,
      config: { threshold: 50 },
    });
    await ok(base, admin, 'PATCH', '/settings', {
      timezone: 'Europe/Berlin',
      signature: '— Admin 🛠',
      notify_notes: false,
    });
    const agentToken = await tokenFor(base, agent.email, AGENT_PASSWORD, `copy-store test ${agent.email}`);
    await ok(base, agentToken, 'POST', '/saved-views', {
      name: 'Offen ✓',
      filters: { status: 'open', queue_id: String(billing.id) },
      columns: ['ID', 'Subject', 'Owner'],
      column_widths: { Subject: 420 },
    });
    await ok(base, admin, 'POST', '/dashboards', {
      name: 'Lage',
      team_id: team.id,
      widgets: [
        { kind: 'status_counts', title: 'Status' },
        { kind: 'queue_counts', title: 'Queues', position: 2 },
      ],
    });

    // Tickets through the API: custom fields, watchers, replies, notes, changes.
    const t1 = (
      await ok(base, admin, 'POST', '/tickets', {
        queue_id: billing.id,
        subject: 'Drucker brennt — 火事',
        description: 'Es raucht im 3. Stock, bitte kommen 🔥',
        owner_id: agent.id,
        priority: 7,
        custom_fields: { account: 'ACME-ü', tier: 'gold' },
        requesters: [requester.id, 'Zoë Kund <zoe@customer.example>'],
        cc: ['carl@customer.example'],
      })
    ).ticket;
    await ok(base, admin, 'PATCH', `/tickets/${t1.id}`, { status: 'open', priority: 42 });
    await ok(base, agentToken, 'POST', `/tickets/${t1.id}/comment`, {
      body: 'Interne Notiz: Feuerlöscher geholt',
      internal: true,
    });
    await ok(base, agentToken, 'POST', `/tickets/${t1.id}/comment`, {
      body: 'Wir sind unterwegs. Grüße aus Zürich',
      internal: false,
    });
    await ok(base, admin, 'POST', `/tickets/${t1.id}/watchers`, { role: 'admin_cc', user_id: agent.id });
    const t2 = (
      await ok(base, admin, 'POST', '/tickets', {
        queue_id: 1,
        subject: 'Password reset',
        description: 'plain ASCII ticket',
      })
    ).ticket;
    await ok(base, admin, 'PATCH', `/tickets/${t2.id}`, { status: 'resolved' });

    // Mail: a new ticket with a binary attachment and non-ASCII text, a threaded reply, a rejected message.
    const first = withAttachment('Die Überweisung nach 東京 ist fehlgeschlagen 😀', BINARY, 'bytes.bin');
    const m1 = await send(
      base,
      'POST',
      '/mailgate',
      mail(
        {
          From: 'Jürgen Müller <juergen@customer.example>',
          To: 'billing@example.com',
          Subject: '=?UTF-8?Q?=C3=9Cberweisung_fehlgeschlagen?=',
          'Message-ID': '<copy-store-1@customer.example>',
          'MIME-Version': '1.0',
          'Content-Type': first.type,
        },
        first.body,
      ),
      RFC822,
    );
    expect(m1.status, JSON.stringify(m1.body)).toBe(201);
    const reply = await send(
      base,
      'POST',
      '/mailgate',
      mail(
        {
          From: 'juergen@customer.example',
          To: 'billing@example.com',
          Subject: 'Re: Überweisung fehlgeschlagen',
          'In-Reply-To': '<copy-store-1@customer.example>',
          'Message-ID': '<copy-store-2@customer.example>',
          'MIME-Version': '1.0',
          'Content-Type': 'text/plain; charset=utf-8',
        },
        Buffer.from('Noch eine Frage zur Überweisung, bitte ß prüfen'),
      ),
      RFC822,
    );
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
    expect(reply.body.ticket_id).toBe(m1.body.ticket_id);
    const rejected = await send(
      base,
      'POST',
      '/mailgate',
      mail(
        { To: 'billing@example.com', Subject: 'no sender', 'Message-ID': '<copy-store-3@customer.example>' },
        Buffer.from('who am I?'),
      ),
      RFC822,
    );
    expect(rejected.status).toBe(422);
    const intake = await ok(base, admin, 'GET', '/mail/intake?limit=10');
    expect(intake.intake.map((i: any) => i.verdict).sort()).toEqual(['appended', 'created', 'rejected']);
    const outbox = await ok(base, admin, 'GET', '/outbox?limit=500');
    expect(outbox.outbox.length).toBeGreaterThan(0); // no SMTP_URL: notifications wait there
    // A failed sign-in leaves a throttle row; the disabled user cannot sign in.
    expect((await login(base, agent.email, 'not the password at all')).status).toBe(401);
    const disabledLogin = (await login(base, gone.email, 'gone-password-123')).status;
    expect(disabledLogin).toBeGreaterThanOrEqual(400);

    const searches = [
      'überweisung',
      'ÜBERWEISUNG',
      '東京',
      'brennt',
      'feuerlöscher',
      'zürich',
      'password',
      'nothing-like-this',
    ];
    const before = await snapshot(base, admin, searches);
    expect((before['/tickets?q=%C3%BCberweisung&sort=id'] as any).tickets.map((t: any) => t.id)).toEqual([
      m1.body.ticket_id,
    ]);
    expect((before['/tickets?q=%E6%9D%B1%E4%BA%AC&sort=id'] as any).total).toBe(1);
    const search = (q: string) =>
      (before[`/tickets?q=${encodeURIComponent(q)}&sort=id`] as any).tickets.map((t: any) => t.id);
    expect(search('ÜBERWEISUNG')).toEqual([m1.body.ticket_id]);
    expect(search('feuerlöscher')).toEqual([t1.id]); // an internal note
    expect(search('zürich')).toEqual([t1.id]);
    expect(search('nothing-like-this')).toEqual([]);
    const mailTxns = (before[`/tickets/${m1.body.ticket_id}/transactions`] as any).transactions as any[];
    const file = mailTxns.flatMap((x) => x.attachments ?? []).find((a: any) => a.filename === 'bytes.bin');
    expect(before[`/attachments/${file.id}`]).toEqual({ bytes: BINARY.length, sha256: sha256(BINARY) });
    const maxTicket = Math.max(...(before['/tickets?limit=500&sort=id'] as any).tickets.map((t: any) => t.id));

    // While the server runs the copy is refused, and the target is left as it was.
    const url = await createDatabase();
    expectFailure(
      await runCli(['copy-store', '--to', url], serverEnv(dir)),
      1,
      /in use \(a running hxdesk server\?\); stop the server first/,
    );
    expect(await pgState(url)).toEqual({});

    await stopServer(s);
    const dbFile = path.join(dir, 'hxdesk.db');
    const fileHash = sha256(fs.readFileSync(dbFile));

    const run = await runCli(['copy-store', '--to', url], serverEnv(dir));
    expectSuccess(run);
    expect(run.stdout).toContain(`Copying ${dbFile} to ${url}`);
    expect(run.stdout).toMatch(/^ {2}users +7 rows$/m);
    expect(run.stdout).toMatch(/^ {2}attachments +1 row +\(1 KiB\)$/m);
    expect(run.stdout).toMatch(/^ {2}mail_intake +3 rows/m);
    expect(run.stdout).toMatch(
      /Copied \d+ rows in 39 tables .* ids kept, sequences moved past them, VACUUM ANALYZE done\./,
    );
    expect(run.stdout).toContain('message_search');
    expect(run.stderr).toBe('');
    // The SQLite file is not written: byte for byte what the stopped server left.
    expect(sha256(fs.readFileSync(dbFile))).toBe(fileHash);

    // The same install on PostgreSQL (the same DATA_DIR: its webhook-secret is still there).
    const p = await serve(dir, { DATABASE_URL: url });
    // The admin's API token is one of the copied rows: it works as it did.
    const after = await snapshot(p.base, admin, searches);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const k of Object.keys(before)) expect(after[k], k).toEqual(before[k]);

    // Old passwords sign in; the disabled user still cannot.
    expect((await login(p.base, ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
    expect((await login(p.base, agent.email, AGENT_PASSWORD)).status).toBe(200);
    expect((await login(p.base, gone.email, 'gone-password-123')).status).toBe(disabledLogin);
    // Sequences continue past the copied ids.
    const t3 = (
      await ok(p.base, admin, 'POST', '/tickets', {
        queue_id: billing.id,
        subject: 'Erstes Ticket auf PostgreSQL',
        description: 'neu',
      })
    ).ticket;
    expect(t3.id).toBe(maxTicket + 1);
    const team2 = await ok(p.base, admin, 'POST', '/teams', { name: 'Second team' });
    expect(team2.id).toBe(team.id + 1);
    const mailed = await send(
      p.base,
      'POST',
      '/mailgate',
      mail(
        {
          From: 'new@customer.example',
          To: 'billing@example.com',
          Subject: 'After the move',
          'Message-ID': '<copy-store-4@customer.example>',
        },
        Buffer.from('hello'),
      ),
      RFC822,
    );
    expect(mailed.status, JSON.stringify(mailed.body)).toBe(201);
    expect(mailed.body.intake_id).toBe(Math.max(...intake.intake.map((i: any) => i.id)) + 1);
    // Search finds new text and the copied text alike.
    expect((await ok(p.base, admin, 'GET', '/tickets?q=postgresql')).tickets.map((t: any) => t.id)).toEqual([t3.id]);

    // Copying again into the now-filled database is refused and changes nothing there.
    const state = await pgState(url);
    expectFailure(
      await runCli(['copy-store', '--to', url], serverEnv(dir)),
      1,
      /already holds data \(users \(8 rows\), api_tokens \(2 rows\), app_secrets \(1 row\), .*, …\); copy into an empty database \(createdb\), nothing was changed$/m,
    );
    expect(await pgState(url)).toEqual(state);
    await stopServer(p);
  }, 240_000);

  it('refuses a wrong command line, a missing file, an unmigrated file, a target holding other tables or unreachable, and changes nothing', async () => {
    const dir = dataDir();
    const help = await runCli(['copy-store', '--help'], serverEnv(dir));
    expectSuccess(help);
    expect(help.stdout).toMatch(/^Usage: hxdesk copy-store --to <postgres-url> \[--from <file>\]/);
    expect(help.stdout).toContain('stop the server first');
    expect((await runCli(['--help'], serverEnv(dir))).stdout).toContain('copy-store --to <postgres-url>');

    expectFailure(await runCli(['copy-store'], serverEnv(dir)), 2, /copy-store: missing --to <postgres-url>/);
    expectFailure(await runCli(['copy-store', '--to', 'mysql://u@h/db'], serverEnv(dir)), 2, /is not a PostgreSQL URL/);
    expectFailure(await runCli(['copy-store', '--to', 'not a url'], serverEnv(dir)), 2, /"not a url" is not a URL/);
    expectFailure(
      await runCli(['copy-store', '--to', 'postgres://u:secret@h:5432/'], serverEnv(dir)),
      2,
      /names no database/,
    );
    expectFailure(
      await runCli(['copy-store', '--to', 'postgres://u@h/db', 'extra'], serverEnv(dir)),
      2,
      /copy-store: Unexpected argument 'extra'/,
    );

    // No database under DATA_DIR: said so; nothing is created on either side.
    const empty = await createDatabase();
    expectFailure(
      await runCli(['copy-store', '--to', empty], serverEnv(dir)),
      1,
      /no database at .*hxdesk\.db \(DATA_DIR=/,
    );
    expectFailure(
      await runCli(['copy-store', '--to', empty, '--from', path.join(dir, 'nope.db')], serverEnv(dir)),
      1,
      /no database at .*nope\.db/,
    );
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(await pgState(empty)).toEqual({});

    // A real install to copy from (the server made it, then stopped).
    const s = await serve(dir);
    await stopServer(s);
    const file = path.join(dir, 'hxdesk.db');

    // A target with a table of someone else's: refused, left exactly as it was (no hxdesk tables, no migration).
    const other = await createDatabase();
    const c = new pg.Client({ connectionString: other });
    await c.connect();
    await c.query('CREATE TABLE notes (id int PRIMARY KEY, text text); INSERT INTO notes VALUES (1, $$keep me$$)');
    await c.end();
    expectFailure(
      await runCli(['copy-store', '--to', other], serverEnv(dir)),
      1,
      /holds tables that are not hxdesk's \(notes\).*nothing was changed/,
    );
    expect(await pgState(other)).toEqual({ 'public.notes': 1 });

    // Nothing listens: a clear line, the password never shown.
    const closed = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      });
    });
    const unreachable = await runCli(
      ['copy-store', '--to', `postgres://postgres:hunter2-secret@127.0.0.1:${closed}/hx`],
      serverEnv(dir),
    );
    expectFailure(
      unreachable,
      1,
      /cannot connect to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/hx \(.*ECONNREFUSED/,
    );
    expect(unreachable.stderr + unreachable.stdout).not.toContain('hunter2');

    // A file with a migration pending (as after an upgrade, before the server started): refused, the file untouched.
    const old = path.join(dir, 'old.db');
    fs.copyFileSync(file, old);
    const db = new Database(old);
    db.exec('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)');
    db.close();
    const oldHash = sha256(fs.readFileSync(old));
    const target = await createDatabase();
    expectFailure(
      await runCli(['copy-store', '--to', target, '--from', old], serverEnv(dir)),
      1,
      /has migrations pending \(\d{4}_\w+\): start this version's server on it once/,
    );
    expect(sha256(fs.readFileSync(old))).toBe(oldHash);
    expect(await pgState(target)).toEqual({});

    // A value PostgreSQL cannot hold (U+0000 in text) found mid-copy: the transaction rolls back,
    // the target keeps hxdesk's tables (migrated) with no row in any of them.
    const nul = path.join(dir, 'nul.db');
    fs.copyFileSync(file, nul);
    const n = new Database(nul);
    n.exec("UPDATE queues SET description = 'before' || char(0) || 'after' WHERE id = 1");
    n.close();
    const rolledBack = await createDatabase();
    expectFailure(
      await runCli(['copy-store', '--to', rolledBack, '--from', nul], serverEnv(dir)),
      1,
      /queues id 1, column description: the text holds a NUL character, which PostgreSQL cannot store in text; nothing was copied/,
    );
    const leftover = await pgState(rolledBack);
    expect(leftover['public.users']).toBe(0);
    expect(Object.entries(leftover).filter(([t, rows]) => t !== 'drizzle.__drizzle_migrations' && rows > 0)).toEqual(
      [],
    );

    // And the same file as it is now copies into that untouched target.
    const good = await runCli(['copy-store', '--to', target, '--from', file], serverEnv(dir));
    expectSuccess(good);
    const copied = await pgState(target);
    expect(copied['public.users']).toBe(1);
    expect(copied['public.scrips']).toBeGreaterThan(0);
  }, 180_000);
});
