import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable, startPostgres, type PgCluster } from './helpers/postgres.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, killAll, processScope, type ServerProcess, send } from './helpers/process.js';
import { signIn } from './helpers/session.js';

// SPEC D1, decision 058: the write path on PostgreSQL with two real server processes on one
// database. Units of work run side by side under READ COMMITTED; a change to a ticket locks that
// ticket's row first. So 16 writers each on their own ticket never wait on a lock; 16 writers on
// one ticket take turns and lose nothing (every acknowledged reply is there once; the priority
// history is one unbroken chain); and a unit of work that meets a conflict runs again, counted
// per operation in an administrator's GET /healthz?verbose=1 and logged. PostgreSQL is its
// subject: it runs once (vitest.config.ts) and starts its own cluster.

const { children, dataDir, serve } = processScope('pg-writers');

const WRITERS = 16;

describe.skipIf(!pgAvailable())('writers on two server processes on one PostgreSQL database', () => {
  let cluster: PgCluster;
  let url = '';
  let sql: pg.Pool;
  let p1: ServerProcess;
  let p2: ServerProcess;
  /** One API token per writer (a token's use is recorded on its row: writers must not share one). */
  const tokens: string[] = [];
  let queueId = 0;
  const base = (i: number) => (i % 2 === 0 ? p1.base : p2.base);

  async function newTicket(subject: string): Promise<number> {
    const res = await send(p1.base, 'POST', '/tickets', { queue_id: queueId, subject }, { token: tokens[0] });
    expect(res.status).toBe(201);
    return res.body.ticket.id;
  }
  const reply = (i: number, id: number, body: string) =>
    send(base(i), 'POST', `/tickets/${id}/comment`, { body, internal: false }, { token: tokens[i] });
  const patch = (i: number, id: number, change: object) =>
    send(base(i), 'PATCH', `/tickets/${id}`, change, { token: tokens[i] });
  const history = async (id: number) =>
    (await send(p1.base, 'GET', `/tickets/${id}/transactions`, undefined, { token: tokens[0] })).body.transactions as {
      id: number;
      type: string;
      field: string | null;
      body: string | null;
      old_value: string | null;
      new_value: string | null;
    }[];

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createMigratedDatabase();
    sql = new pg.Pool({ connectionString: url, max: 3 });
    // The cluster going away at the end (stop()) must not throw out of the test process, as the
    // helpers' own admin connection (an idle client's FATAL 57P01 did, once, after every test passed).
    sql.on('error', () => {});
    const serveShared = () =>
      serve({ DATABASE_URL: url, DATA_DIR: dataDir() }, { LOGIN_MAX_ATTEMPTS_PER_IP: '100000' });
    [p1, p2] = await Promise.all([serveShared(), serveShared()]);
    const cookie = await signIn(p1.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    for (let i = 0; i < WRITERS; i++) {
      const t = await send(p1.base, 'POST', '/tokens', { name: `writer ${i}` }, { cookie });
      expect(t.status).toBe(201);
      tokens.push(t.body.token);
    }
    const queues = await send(p2.base, 'GET', '/queues', undefined, { token: tokens[0] });
    queueId = (queues.body.queues ?? queues.body).find((q: { name: string }) => q.name === 'General').id;
  }, 120_000);

  afterAll(async () => {
    killAll(children.map((c) => c.child));
    await Promise.all(children.map((c) => c.exit));
    await sql?.end();
    await cluster?.stop();
  });

  it('16 writers each changing their own ticket never wait on a lock (pg_stat_activity sampled throughout)', async () => {
    const ids: number[] = [];
    for (let i = 0; i < WRITERS; i++) ids.push(await newTicket(`Own ticket ${i}`));
    let done = false;
    let samples = 0;
    const waits: { pid: number; wait_event: string; locktype: string | null; query: string }[] = [];
    // Sessions of this database waiting on a heavyweight lock, but for relation extension
    // (PostgreSQL's own, when a table's file grows), with what they wait for. The change log's
    // announcement after commit (one NOTIFY at a time per process, decision 063) is no unit of
    // work and holds no row: its commit takes PostgreSQL's database-wide notification lock, which
    // the other process's announcement may briefly hold; that is what SPEC D1 moves out of the
    // writing transactions, so it is left out here (every unit of work's statements still count).
    const sampler = (async () => {
      while (!done) {
        const { rows } = await sql.query(
          `SELECT a.pid, a.wait_event, l.locktype, a.query
             FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted
            WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
              AND a.wait_event_type = 'Lock' AND a.wait_event <> 'extend'
              AND coalesce(l.locktype, '') <> 'extend'
              AND a.query <> 'SELECT pg_notify(''hxdesk_log'', '''')'`,
        );
        samples++;
        waits.push(...rows);
      }
    })();
    const answers: number[] = [];
    await Promise.all(
      ids.map(async (id, i) => {
        for (let n = 0; n < 12; n++) {
          answers.push((await reply(i, id, `Reply ${n} from writer ${i}`)).status);
          answers.push((await patch(i, id, { priority: n + 1, status: n % 2 === 0 ? 'open' : 'stalled' })).status);
        }
      }),
    );
    done = true;
    await sampler;
    expect(answers.filter((s) => s !== 201 && s !== 200)).toEqual([]);
    expect(samples).toBeGreaterThan(10);
    expect(waits).toEqual([]);
  }, 120_000);

  it('16 writers over two processes on one ticket: every acknowledged reply is there exactly once', async () => {
    const id = await newTicket('One ticket, many writers');
    const acknowledged: string[] = [];
    const refused: { status: number; body: unknown }[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, i) => {
        for (let n = 0; n < 8; n++) {
          const body = `Writer ${i} message ${n}`;
          const res = await reply(i, id, body);
          if (res.status === 201) acknowledged.push(body);
          else refused.push({ status: res.status, body: res.body });
        }
      }),
    );
    expect(refused).toEqual([]);
    const bodies = (await history(id)).filter((t) => t.type === 'Correspond').map((t) => t.body ?? '');
    expect(acknowledged).toHaveLength(WRITERS * 8);
    // As stored: the body, and the writer's signature after a line break when they have one.
    for (const b of acknowledged) expect(bodies.filter((x) => x === b || x.startsWith(`${b}\n`))).toHaveLength(1);
    expect(bodies).toHaveLength(acknowledged.length);
  }, 120_000);

  it("16 writers over two processes changing one ticket's priority and status: no 500, and the priority history is one unbroken chain", async () => {
    const id = await newTicket('Priority tug of war');
    const answers: { status: number; body: any }[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, i) => {
        for (let n = 0; n < 8; n++) {
          const change =
            n % 2 === 0
              ? { priority: (i * 8 + n) % 100 }
              : { status: (['open', 'stalled', 'resolved'] as const)[(i + n) % 3] };
          answers.push(await patch(i, id, change));
        }
      }),
    );
    for (const a of answers) {
      expect(a.status).toBeLessThan(500);
      if (a.status !== 200) {
        expect(a.status).toBeGreaterThanOrEqual(400);
        expect(typeof a.body.message).toBe('string');
      }
    }
    const chain = (await history(id)).filter((t) => t.field === 'priority');
    expect(chain.length).toBeGreaterThan(0);
    expect(chain[0].old_value).toBe('0');
    for (let k = 1; k < chain.length; k++) expect(chain[k].old_value).toBe(chain[k - 1].new_value);
    const now = await send(p1.base, 'GET', `/tickets/${id}`, undefined, { token: tokens[0] });
    expect(String(now.body.priority)).toBe(chain[chain.length - 1].new_value);
  }, 120_000);

  it("a unit of work that meets a serialization failure runs again: counted in an admin's /healthz?verbose=1 and logged", async () => {
    // A second administrator, demoted (SERIALIZABLE: the last-admin rule) while another
    // connection holds their row: when that one commits, PostgreSQL refuses the demotion
    // (40001) and the server runs it again.
    const made = await send(
      p1.base,
      'POST',
      '/users',
      { email: 'second-admin@example.com', name: 'Second Admin', role: 'admin', password: 'second-password-123' },
      { token: tokens[0] },
    );
    expect(made.status).toBe(201);
    const other = await sql.connect();
    try {
      await other.query('BEGIN');
      await other.query(`UPDATE users SET name = 'Held' WHERE id = $1`, [made.body.id]);
      const demoted = send(p2.base, 'PATCH', `/users/${made.body.id}`, { role: 'agent' }, { token: tokens[1] });
      // Until the server's update waits behind this connection's row lock.
      for (;;) {
        const { rows } = await sql.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE 'update "users"%'`,
        );
        if (rows.length > 0) break;
      }
      await other.query('COMMIT');
      const res = await demoted;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.role).toBe('agent');
    } finally {
      other.release();
    }
    const verbose = await send(p2.base, 'GET', '/healthz?verbose=1', undefined, { token: tokens[0] });
    expect(verbose.status).toBe(200);
    expect(verbose.body.write_retries.updateUser).toEqual({ retries: 1, give_ups: 0 });
    expect(p2.output()).toMatch(/unit of work runs again after a serialization failure.*"operation":"updateUser"/);
    // Anyone else gets the plain answer.
    const agent = await send(
      p1.base,
      'POST',
      '/users',
      { email: 'plain-agent@example.com', name: 'Plain Agent', role: 'agent', password: 'agent-password-123' },
      { token: tokens[0] },
    );
    expect(agent.status).toBe(201);
    const agentCookie = await signIn(p2.base, 'plain-agent@example.com', 'agent-password-123');
    expect((await send(p2.base, 'GET', '/healthz?verbose=1', undefined, { cookie: agentCookie })).body).toEqual({
      ok: true,
    });
    expect((await send(p2.base, 'GET', '/healthz?verbose=1')).body).toEqual({ ok: true });
    expect((await send(p2.base, 'GET', '/healthz', undefined, { token: tokens[0] })).body).toEqual({ ok: true });
  }, 60_000);
});
