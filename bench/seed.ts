// Builds a benchmark dataset with bulk SQL (not HTTP): queues, teams, agents, requesters,
// custom fields, N tickets with ~10 transactions each and realistic text. The FTS indexes are
// rebuilt once at the end instead of row by row. Reused between runs: a finished dataset is
// recognised by its marker file and not built again.
import fs from 'node:fs';
import path from 'node:path';
import { closeDb, openDb, sqliteOf } from '../src/db/store.js';
import { seedIfEmpty } from '../src/domain/seed.js';
import { hashPassword } from '../src/domain/secrets.js';

export const BENCH_ADMIN = { email: 'admin@bench.local', password: 'bench-admin-password' };
export const BENCH_AGENT_PASSWORD = 'bench-agent-password';
/** A word that appears in message bodies only (never in a subject): the body-only search probe. */
export const BODY_ONLY_WORD = 'quuxfrobnicator';
/** A word that appears in some subjects. */
export const SUBJECT_WORD = 'printer';

// A deterministic generator, so every dataset of a size is the same.
let state = 0x2545f491;
const rand = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 4294967296;
};
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)];
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

export const COMMON = (
  'the a to and of in is it you that for on with this be are have not we can your please our was will as at but if ' +
  'from my an or there been has would could should when what which they all any some more about get need help thanks hello hi regards ' +
  'issue problem error again still now today yesterday since after before working broken cannot unable access account login password ' +
  'email invoice payment order delivery refund update install version server network connection screen laptop phone printer vpn ' +
  'office meeting customer support team ticket request urgent soon week month time system data file report page link button'
).split(' ');
export const RARE = Array.from({ length: 3000 }, (_, i) => {
  const syll = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'ta',
    'vo',
    'zi',
    'pe',
    'shu',
    'gra',
    'bel',
    'dor',
    'fin',
    'hal',
    'jor',
    'kel',
    'mar',
    'nor',
    'pol',
  ];
  let w = '';
  let n = i + 7;
  for (let k = 0; k < 3; k++) {
    w += syll[n % syll.length];
    n = Math.floor(n / syll.length) + k * 7;
  }
  return w;
});
/**
 * Words follow Zipf's law (frequency ∝ 1/rank), as natural text does: function words first,
 * then helpdesk vocabulary, then a long tail of rarer words. Uniform sampling would make a
 * topical word like "printer" as frequent as "the" and every search a near-full match.
 */
const VOCABULARY = [...COMMON, ...RARE];
const ZIPF = (() => {
  const cdf: number[] = [];
  let sum = 0;
  for (let r = 1; r <= VOCABULARY.length; r++) {
    sum += 1 / r;
    cdf.push(sum);
  }
  return cdf.map((c) => c / sum);
})();
function word(): string {
  const x = rand();
  let lo = 0;
  let hi = ZIPF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo];
}
const sentence = (min: number, max: number) => {
  const n = int(min, max);
  const words = Array.from({ length: n }, word);
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return `${words.join(' ')}.`;
};
const paragraph = (sentences: number) => Array.from({ length: sentences }, () => sentence(6, 16)).join(' ');
const SUBJECTS = [
  'Cannot log in to',
  'Invoice question about',
  'Refund for',
  'Error when opening',
  'Slow',
  'Broken',
  'Request: new',
  'Password reset for',
  'Delivery delayed:',
  'How do I change',
  'Urgent:',
  'Problem with',
  'Question about',
  'Access to',
];
const THINGS = [
  'the VPN',
  'my account',
  'order',
  'the printer',
  'email',
  'the portal',
  'laptop',
  'invoice',
  'the app',
  'phone',
  'report',
  'shared drive',
];

export interface SeedStats {
  tickets: number;
  transactions: number;
  ms: number;
  bytes: number;
}

const STATUSES: [string, number][] = [
  ['new', 0.15],
  ['open', 0.25],
  ['stalled', 0.1],
  ['resolved', 0.45],
  ['rejected', 0.05],
];
const status = () => {
  let r = rand();
  for (const [s, p] of STATUSES) {
    if ((r -= p) < 0) return s;
  }
  return 'resolved';
};

/** Builds (or reuses) the dataset in `dir` with `size` tickets; returns the database path. */
export async function ensureDataset(
  dir: string,
  size: number,
  log = console.log,
): Promise<{ dbPath: string; stats: SeedStats; reused: boolean }> {
  const dbPath = path.join(dir, 'hxdesk.db');
  const marker = path.join(dir, `seeded-v8-${size}.json`); // bump when the generator or the schema changes
  if (fs.existsSync(marker) && fs.existsSync(dbPath)) {
    // A dataset seeded before the newest migrations is migrated here, once, in place: otherwise
    // every run's copy is migrated (and backed up) by the server it starts, and the run's "start"
    // line measured the migration (48 s at 1M), not the start.
    await closeDb(openDb(dbPath));
    return { dbPath, stats: JSON.parse(fs.readFileSync(marker, 'utf8')), reused: true };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  state = 0x2545f491;
  const started = performance.now();
  const db = openDb(dbPath);
  await seedIfEmpty(db, { adminEmail: BENCH_ADMIN.email, adminPassword: BENCH_ADMIN.password });
  const sql = sqliteOf(db);
  sql.pragma('synchronous = OFF');
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const stamp = iso(now - 800 * 86400_000);
  const agentHash = await hashPassword(BENCH_AGENT_PASSWORD);

  // Reference data.
  const teams = ['Service desk', 'Network', 'Billing', 'Hardware', 'Applications', 'Security'];
  const queueNames = ['General', 'IT', 'Billing', 'Facilities', 'HR', 'Sales', 'Security', 'Onboarding'];
  const ids = { teams: [] as number[], queues: [] as number[], agents: [] as number[], requesters: [] as number[] };
  sql.transaction(() => {
    for (const name of teams)
      ids.teams.push(
        Number(
          sql
            .prepare('INSERT INTO teams (name, description, created_at, updated_at) VALUES (?, ?, ?, ?)')
            .run(name, `${name} team`, stamp, stamp).lastInsertRowid,
        ),
      );
    const general = sql.prepare("SELECT id FROM queues WHERE name = 'General'").get() as { id: number };
    ids.queues.push(general.id);
    sql.prepare('UPDATE queues SET team_id = ? WHERE id = ?').run(ids.teams[0], general.id);
    for (const [i, name] of queueNames.slice(1).entries()) {
      ids.queues.push(
        Number(
          sql
            .prepare(
              'INSERT INTO queues (name, description, mail_alias, team_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
            )
            .run(
              name,
              `${name} queue`,
              `${name.toLowerCase()}@bench.local`,
              ids.teams[(i + 1) % ids.teams.length],
              stamp,
              stamp,
            ).lastInsertRowid,
        ),
      );
    }
    const user = sql.prepare(
      'INSERT INTO users (email, name, role, disabled, password_hash, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?, ?)',
    );
    const member = sql.prepare('INSERT INTO team_members (team_id, user_id, created_at) VALUES (?, ?, ?)');
    for (let i = 0; i < 60; i++) {
      const id = Number(
        user.run(`agent${i}@bench.local`, `Agent ${i}`, 'agent', agentHash, stamp, stamp).lastInsertRowid,
      );
      ids.agents.push(id);
      member.run(ids.teams[i % ids.teams.length], id, stamp);
    }
    const requesters = Math.max(200, Math.round(size / 5));
    for (let i = 0; i < requesters; i++)
      ids.requesters.push(
        Number(user.run(`customer${i}@example.com`, `Customer ${i}`, 'requester', null, stamp, stamp).lastInsertRowid),
      );
    sql
      .prepare(
        "INSERT INTO custom_fields (key, name, type, options, pattern, required, created_at, updated_at) VALUES ('severity', 'Severity', 'select', ?, NULL, 0, ?, ?)",
      )
      .run(JSON.stringify(['low', 'medium', 'high', 'critical']), stamp, stamp);
    sql
      .prepare(
        "INSERT INTO custom_fields (key, name, type, options, pattern, required, created_at, updated_at) VALUES ('account', 'Account number', 'number', '[]', NULL, 0, ?, ?)",
      )
      .run(stamp, stamp);
  })();
  const severityId = (sql.prepare("SELECT id FROM custom_fields WHERE key = 'severity'").get() as { id: number }).id;
  const accountId = (sql.prepare("SELECT id FROM custom_fields WHERE key = 'account'").get() as { id: number }).id;

  // Bulk rows without the FTS triggers; the indexes are rebuilt once afterwards.
  const triggers = sql
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'message_search%'")
    .all() as { name: string; sql: string }[];
  for (const t of triggers) sql.exec(`DROP TRIGGER ${t.name}`);
  const insTicket =
    sql.prepare(`INSERT INTO tickets (id, queue_id, subject, status, owner_id, team_id, requester_id, priority, created_at, updated_at, resolved_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insTxn =
    sql.prepare(`INSERT INTO transactions (ticket_id, type, creator_id, body, field, old_value, new_value, message_id, scrip_results, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, NULL, '[]', ?)`);
  const insCf = sql.prepare('INSERT INTO ticket_custom_values (ticket_id, field_id, value) VALUES (?, ?, ?)');
  let transactions = 0;
  const span = 730 * 86400_000;
  const batch = 5000;
  for (let start = 1; start <= size; start += batch) {
    sql.transaction(() => {
      for (let id = start; id < Math.min(start + batch, size + 1); id++) {
        const created = now - span + Math.floor(((id - 1) / size) * span) + int(0, 3600_000);
        const queueIdx = int(0, ids.queues.length - 1);
        const st = status();
        const owner = rand() < 0.2 ? null : pick(ids.agents);
        const requester = pick(ids.requesters);
        const subject =
          `${pick(SUBJECTS)} ${pick(THINGS)} ${rand() < 0.5 ? pick(RARE) : ''}`.trim() +
          (rand() < 0.02 ? ` ${SUBJECT_WORD} ${pick(RARE)}` : '');
        const description = paragraph(int(2, 5));
        const n = int(5, 14);
        let t = created;
        const rows: [string, number | null, string | null, string | null, string | null, string | null, number][] = [];
        rows.push(['Create', requester, description, null, null, null, t]);
        for (let k = 1; k < n; k++) {
          t += int(60_000, 2 * 86400_000);
          const r = rand();
          if (r < 0.45)
            rows.push([
              'Correspond',
              rand() < 0.5 ? requester : (owner ?? pick(ids.agents)),
              paragraph(int(1, 4)) + (rand() < 0.001 ? ` ${BODY_ONLY_WORD}` : ''),
              null,
              null,
              null,
              t,
            ]);
          else if (r < 0.65)
            rows.push(['Comment', owner ?? pick(ids.agents), paragraph(int(1, 3)), null, null, null, t]);
          else if (r < 0.8) rows.push(['Status', owner, null, 'status', 'new', 'open', t]);
          else if (r < 0.9) rows.push(['SetOwner', pick(ids.agents), null, 'owner_id', null, String(owner ?? ''), t]);
          else rows.push(['SetPriority', owner, null, 'priority', '0', String(int(0, 100)), t]);
        }
        const updated = Math.min(t, now);
        insTicket.run(
          id,
          ids.queues[queueIdx],
          subject,
          st,
          owner,
          ids.teams[queueIdx % ids.teams.length],
          requester,
          int(0, 100),
          iso(created),
          iso(updated),
          st === 'resolved' ? iso(updated) : null,
        );
        for (const [type, creator, body, field, oldV, newV, at] of rows)
          insTxn.run(id, type, creator, body, field, oldV, newV, iso(Math.min(at, now)));
        transactions += rows.length;
        insCf.run(id, severityId, pick(['low', 'low', 'medium', 'medium', 'high', 'critical']));
        if (rand() < 0.5) insCf.run(id, accountId, String(int(1000, 9999)));
      }
    })();
    if ((start - 1) % 50_000 === 0) log(`seed: ${Math.min(start + batch - 1, size)} / ${size} tickets`);
  }
  // Every ticket's requester is its first requester watcher, as migration 0013 backfills.
  sql.exec(
    "INSERT INTO ticket_watchers (ticket_id, role, user_id, created_at) SELECT id, 'requester', requester_id, created_at FROM tickets WHERE requester_id IS NOT NULL",
  );
  // Tags and links (SPEC D3), by ticket id so the rest of the dataset is what it was without them:
  // about a third of the tickets have a tag (billing 1 in 7, hardware 1 in 5, vpn 1 in 11, vip 1
  // in 23), one in 50 refers to the ticket before it, one in 97 depends on the one three before.
  sql.exec(`INSERT INTO ticket_tags (ticket_id, tag, created_at)
      SELECT t.id, g.tag, t.created_at FROM tickets AS t
      JOIN (SELECT 'billing' AS tag, 7 AS m, 0 AS r UNION ALL SELECT 'hardware', 5, 1
            UNION ALL SELECT 'vpn', 11, 3 UNION ALL SELECT 'vip', 23, 4) AS g ON t.id % g.m = g.r;
    INSERT INTO ticket_links (base_id, type, target_id, created_at)
      SELECT id, 'refers_to', id - 1, created_at FROM tickets WHERE id % 50 = 0;
    INSERT INTO ticket_links (base_id, type, target_id, created_at)
      SELECT id, 'depends_on', id - 3, created_at FROM tickets WHERE id % 97 = 0;`);
  // Unread marks (SPEC D6): each ticket's newest customer entry, as migration 0021 backfills; the
  // bench admin has opened every other ticket (its newest entry seen), so lists read both kinds.
  sql.exec(`UPDATE tickets SET customer_txn_id = (SELECT max(x.id) FROM transactions AS x JOIN users AS u ON u.id = x.creator_id
    WHERE x.ticket_id = tickets.id AND u.role = 'requester' AND x.type IN ('Create', 'Correspond', 'Comment'))`);
  sql
    .prepare(
      `INSERT INTO ticket_reads (user_id, ticket_id, seen_txn_id, seen_at) SELECT u.id, t.id, (SELECT max(x.id) FROM transactions AS x WHERE x.ticket_id = t.id), ?
       FROM tickets AS t, users AS u WHERE u.email = ? AND t.id % 2 = 0`,
    )
    .run(iso(now), BENCH_ADMIN.email);
  log('seed: rebuilding the search indexes');
  // The same statements migration 0006 backfills with: one row per subject and message.
  sql.exec(`INSERT INTO message_search(rowid, public_text, internal_text) SELECT id << 20, subject, '' FROM tickets;
    INSERT INTO message_search(rowid, public_text, internal_text)
      SELECT (ticket_id << 20) + n, CASE WHEN type = 'Comment' THEN '' ELSE body END, CASE WHEN type = 'Comment' THEN body ELSE '' END
      FROM (SELECT ticket_id, type, body, row_number() OVER (PARTITION BY ticket_id ORDER BY id) AS n FROM transactions)
      WHERE body IS NOT NULL;`);
  // The word index (decision 084) with the same rows, as migration 0035 fills it: a dataset
  // without it answers every word search through the trigram fallback (seeded-v7 datasets built
  // after that migration had none).
  sql.exec(`INSERT INTO message_words(rowid, public_text, internal_text) SELECT id << 20, subject, '' FROM tickets;
    INSERT INTO message_words(rowid, public_text, internal_text)
      SELECT (ticket_id << 20) + n, CASE WHEN type IN ('Comment', 'Rating') THEN '' ELSE body END, CASE WHEN type IN ('Comment', 'Rating') THEN body ELSE '' END
      FROM (SELECT ticket_id, type, body, row_number() OVER (PARTITION BY ticket_id ORDER BY id) AS n FROM transactions)
      WHERE body IS NOT NULL;
    INSERT INTO message_words(message_words) VALUES ('optimize');`);
  for (const t of triggers) sql.exec(t.sql);
  sql.exec('ANALYZE; PRAGMA optimize;');
  sql.pragma('wal_checkpoint(TRUNCATE)');
  await closeDb(db);
  const stats: SeedStats = {
    tickets: size,
    transactions,
    ms: Math.round(performance.now() - started),
    bytes: fs.statSync(dbPath).size,
  };
  fs.writeFileSync(marker, JSON.stringify(stats));
  return { dbPath, stats, reused: false };
}
