import { transaction } from '../src/db/port.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDb, openDb, type Db, sqliteOf } from '../src/db/store.js';
import { seedIfEmpty } from '../src/domain/seed.js';
import { commentOnTicket } from '../src/domain/tickets/comment.js';
import { createTicket } from '../src/domain/tickets/write.js';
import { setQueueWatchers } from '../src/domain/watchers.js';
import { loadEnv } from '../src/env.js';
import { loadSettings } from '../src/settings.js';
import { databaseBefore } from './helpers/migrations.js';

// Migration 0013 (SPEC C2: "a migration adds them (enabled) to existing ones"): an install made
// before watchers existed gets its requesters as watchers, the staff templates, the new default
// scrips, and its two old correspondence scrips changed — unless its admin had changed them.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A database migrated up to (not including) 0013, as an install of the first wave has it. */
function oldDatabase(fill: (raw: Database.Database) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-mig13-'));
  dirs.push(dir);
  return databaseBefore(dir, '0013_', fill);
}

const now = new Date().toISOString();
/** The first wave's seed: an admin, General, five templates and seven scrips. */
function firstWaveSeed(raw: Database.Database) {
  const ins = (sql: string, ...args: unknown[]) => Number(raw.prepare(sql).run(...args).lastInsertRowid);
  ins(
    "INSERT INTO users (email, name, role, created_at, updated_at) VALUES ('admin@example.com', 'Admin', 'admin', ?, ?)",
    now,
    now,
  );
  ins("INSERT INTO queues (name, created_at, updated_at) VALUES ('General', ?, ?)", now, now);
  const t: Record<string, number> = {};
  for (const name of ['Autoreply', 'Correspondence', 'Owner notice', 'Team notice', 'Resolved']) {
    t[name] = ins(
      'INSERT INTO templates (name, subject, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      name,
      'Re: {{ ticket.subject }}',
      '{{ transaction.body }} {{ ticket.url }}',
      now,
      now,
    );
  }
  const scrips: [string, string, string, string | null][] = [
    ['autoreply_on_create', 'on_create', 'autoreply_requester', 'Autoreply'],
    ['notify_requester_on_correspond', 'on_correspond', 'notify_requester', 'Correspondence'],
    ['notify_owner_on_correspond', 'on_correspond', 'notify_owner', 'Correspondence'],
    ['notify_owner_on_owner_change', 'on_owner_change', 'notify_owner', 'Owner notice'],
    ['notify_team_on_team_change', 'on_team_change', 'notify_team', 'Team notice'],
    ['notify_requester_on_resolve', 'on_resolve', 'notify_requester', 'Resolved'],
    ['open_inactive_on_correspond', 'on_correspond', 'open_inactive', null],
  ];
  scrips.forEach(([key, condition, action, tpl], i) => {
    ins(
      'INSERT INTO scrips (key, condition, action, template_id, sort_order, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      key,
      condition,
      action,
      tpl ? t[tpl] : null,
      (i + 1) * 10,
      now,
      now,
    );
  });
  ins(
    "INSERT INTO users (email, name, role, created_at, updated_at) VALUES ('rita@customer.example', 'Rita', 'requester', ?, ?)",
    now,
    now,
  );
  ins(
    "INSERT INTO tickets (queue_id, subject, status, requester_id, created_at, updated_at) VALUES (1, 'Old ticket', 'open', 2, ?, ?)",
    now,
    now,
  );
  ins(
    "INSERT INTO tickets (queue_id, subject, status, requester_id, created_at, updated_at) VALUES (1, 'No requester', 'open', NULL, ?, ?)",
    now,
    now,
  );
}

const scripsOf = (db: Db) =>
  sqliteOf(db)
    .prepare(
      'SELECT s.key, s.condition, s.action, t.name AS template, s.enabled FROM scrips s LEFT JOIN templates t ON t.id = s.template_id ORDER BY s.sort_order, s.id',
    )
    .all();

describe('migration 0013 on an install of the first wave', () => {
  it('adds the staff templates and scrips, changes the two shipped correspondence scrips, and makes requesters watchers', async () => {
    const db = openDb(oldDatabase(firstWaveSeed));
    try {
      expect(scripsOf(db)).toEqual([
        {
          key: 'autoreply_on_create',
          condition: 'on_create',
          action: 'autoreply_requester',
          template: 'Autoreply',
          enabled: 1,
        },
        {
          key: 'notify_staff_on_create',
          condition: 'on_create',
          action: 'notify_staff_watchers',
          template: 'New ticket',
          enabled: 1,
        },
        {
          key: 'notify_requester_on_correspond',
          condition: 'on_correspond',
          action: 'notify_requesters_and_cc',
          template: 'Correspondence',
          enabled: 1,
        },
        {
          key: 'notify_owner_on_correspond',
          condition: 'on_correspond',
          action: 'notify_owner_and_admin_cc',
          template: 'Staff correspondence',
          enabled: 1,
        },
        {
          key: 'notify_staff_on_customer_reply',
          condition: 'on_customer_correspond',
          action: 'notify_owner_or_staff_watchers',
          template: 'Staff correspondence',
          enabled: 1,
        },
        {
          key: 'notify_staff_on_comment',
          condition: 'on_comment',
          action: 'notify_owner_and_admin_cc',
          template: 'Staff note',
          enabled: 1,
        },
        {
          key: 'notify_owner_on_owner_change',
          condition: 'on_owner_change',
          action: 'notify_owner',
          template: 'Owner notice',
          enabled: 1,
        },
        {
          key: 'notify_team_on_team_change',
          condition: 'on_team_change',
          action: 'notify_team',
          template: 'Team notice',
          enabled: 1,
        },
        {
          key: 'notify_requester_on_resolve',
          condition: 'on_resolve',
          action: 'notify_requester',
          template: 'Resolved',
          enabled: 1,
        },
        // Migration 0022 (SPEC D6), later than 0013, adds this one (sort order 65, before open_inactive's 70).
        {
          key: 'open_on_staff_reply',
          condition: 'on_staff_take_up',
          action: 'open_new',
          template: null,
          enabled: 1,
        },
        {
          key: 'open_inactive_on_correspond',
          condition: 'on_correspond',
          action: 'open_inactive',
          template: null,
          enabled: 1,
        },
        // Migration 0028 (SPEC D2) adds the wake-up notice (sort order 75).
        {
          key: 'notify_owner_on_unsnooze',
          condition: 'on_unsnooze',
          action: 'notify_owner_or_staff_watchers',
          template: 'Snooze ended',
          enabled: 1,
        },
        // Migration 0027 (SPEC D2) adds the auto-close, off; its template is named in its config.
        {
          key: 'close_idle_tickets',
          condition: 'on_idle',
          action: 'close_idle',
          template: null,
          enabled: 0,
        },
      ]);
      expect(sqliteOf(db).prepare('SELECT ticket_id, role, user_id FROM ticket_watchers').all()).toEqual([
        { ticket_id: 1, role: 'requester', user_id: 2 },
      ]);
      // The upgraded install notifies as a new one does: an internal note reaches the queue's AdminCc.
      const admin = { id: 1, email: 'admin@example.com', name: 'Admin', role: 'admin' as const };
      sqliteOf(db)
        .prepare(
          "INSERT INTO users (email, name, role, created_at, updated_at) VALUES ('ada@example.com', 'Ada', 'agent', ?, ?)",
        )
        .run(now, now);
      const { notify } = await loadSettings(db, loadEnv({ NODE_ENV: 'test' }));
      await transaction(db, (tx) => setQueueWatchers(tx, 1, 'admin_cc', ['ada@example.com'], notify.ownAddresses));
      await commentOnTicket(db, admin, 1, { body: 'Checked the logs.' }, { notify });
      const created = await createTicket(
        db,
        admin,
        { queue_id: 1, subject: 'Phone call', requesters: ['rita@customer.example'] },
        notify,
      );
      const rows = sqliteOf(db).prepare('SELECT ticket_id, recipient, audience FROM outbox ORDER BY id').all();
      expect(rows).toEqual([
        { ticket_id: 1, recipient: 'ada@example.com', audience: 'staff' },
        { ticket_id: created.ticket.id, recipient: 'rita@customer.example', audience: 'customer' },
        { ticket_id: created.ticket.id, recipient: 'ada@example.com', audience: 'staff' },
      ]);
    } finally {
      await closeDb(db);
    }
  });

  it("leaves an admin's own changes alone and keeps an existing template of the same name", async () => {
    const db = openDb(
      oldDatabase((raw) => {
        firstWaveSeed(raw);
        raw
          .prepare(
            "INSERT INTO templates (name, subject, body, created_at, updated_at) VALUES ('Owner reply', 's', 'b', ?, ?)",
          )
          .run(now, now);
        raw
          .prepare(
            "UPDATE scrips SET template_id = (SELECT id FROM templates WHERE name = 'Owner reply') WHERE key = 'notify_owner_on_correspond'",
          )
          .run();
        raw.prepare("UPDATE scrips SET action = 'notify_team' WHERE key = 'notify_requester_on_correspond'").run();
        raw
          .prepare(
            "INSERT INTO templates (name, subject, body, created_at, updated_at) VALUES ('staff NOTE', 'mine', 'mine', ?, ?)",
          )
          .run(now, now);
      }),
    );
    try {
      const byKey = Object.fromEntries((scripsOf(db) as { key: string }[]).map((s) => [s.key, s]));
      expect(byKey.notify_owner_on_correspond).toMatchObject({ action: 'notify_owner', template: 'Owner reply' });
      expect(byKey.notify_requester_on_correspond).toMatchObject({ action: 'notify_team', template: 'Correspondence' });
      expect(byKey.notify_staff_on_comment).toMatchObject({ template: 'staff NOTE', enabled: 1 });
      expect(sqliteOf(db).prepare("SELECT subject FROM templates WHERE name = 'staff NOTE'").get()).toEqual({
        subject: 'mine',
      });
    } finally {
      await closeDb(db);
    }
  });

  it('on an empty database adds nothing, and the seed then makes the full set', async () => {
    const db = openDb(oldDatabase(() => {}));
    try {
      expect(sqliteOf(db).prepare('SELECT count(*) AS n FROM templates').get()).toEqual({ n: 0 });
      expect(sqliteOf(db).prepare('SELECT count(*) AS n FROM scrips').get()).toEqual({ n: 0 });
      await seedIfEmpty(db, { adminEmail: 'admin@example.com', adminPassword: 'a-long-password-1' });
      expect((scripsOf(db) as { key: string }[]).map((s) => s.key)).toHaveLength(13);
    } finally {
      await closeDb(db);
    }
  });
});
