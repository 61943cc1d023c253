import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEING_APPLIED, RAW_APART_FROM } from '../src/domain/intakeEntry.js';
import { rawGet, rawQuery, sideConnection } from './helpers/db.js';
import { MAILGATE_TOKEN, postMail, rawMail } from './helpers/mail.js';
import { startServer, type TestServer } from './helpers/server.js';
import { onlyOn } from './helpers/store.js';
import { waitUntil } from './helpers/wait.js';

// SPEC D1 (issue 28): big message bodies are written without holding the ticket's lock longer than
// needed. A large raw message (a mail with files: every file again, base64) is logged before the
// unit of work that applies it, as an entry that says it is being applied; the unit of work gives
// that entry its outcome; a delivery that writes no entry (a duplicate) deletes it. Small messages
// are logged inside the unit of work as before.

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN });
});
afterAll(async () => {
  await s?.close();
});

let seq = 0;
const pdf = (n: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(n, 'p')]);
/** A message of at least RAW_APART_FROM bytes (its file base64 encoded). */
const bigMail = (subject: string, from = `big${++seq}@customer.example`) =>
  rawMail({ from, subject }, 'The trace you asked for', { name: 'trace.pdf', content: pdf(RAW_APART_FROM) });

const entriesOf = (identity: string) =>
  rawQuery<{ id: number; verdict: string; error: string | null; raw: Buffer; ticket_id: number | null }>(
    s,
    'SELECT id, verdict, error, raw, ticket_id FROM mail_intake WHERE identity = ? ORDER BY id',
    [identity],
  );
const identityOf = (raw: Buffer) => /^Message-ID: (<[^>]+>)/m.exec(raw.toString('latin1'))![1];
const beingApplied = async () =>
  Number((await rawGet<{ n: number }>(s, 'SELECT count(*) AS n FROM mail_intake WHERE error = ?', [BEING_APPLIED]))!.n);

describe('a large raw message', () => {
  it('makes one entry with its bytes whole: a new ticket, a reply to it, and the same message again (a duplicate)', async () => {
    const first = bigMail('Large first');
    expect(first.length).toBeGreaterThan(RAW_APART_FROM);
    const created = await postMail(s, first);
    expect(created.status, created.text).toBe(201);
    expect(created.body.verdict).toBe('created');
    const [entry] = await entriesOf(identityOf(first));
    expect(entry).toMatchObject({ id: created.body.intake_id, verdict: 'created', error: null });
    expect(Buffer.from(entry.raw).equals(first)).toBe(true);

    const reply = bigMail(`Re: [hxdesk #${created.body.ticket_id}] Large first`, `big${seq}@customer.example`);
    const appended = await postMail(s, reply);
    expect(appended.status, appended.text).toBe(200);
    expect(appended.body).toMatchObject({ verdict: 'appended', ticket_id: created.body.ticket_id, duplicate: false });
    const replyEntries = await entriesOf(identityOf(reply));
    expect(replyEntries.map((e) => [e.id, e.verdict, e.error])).toEqual([[appended.body.intake_id, 'appended', null]]);
    expect(Buffer.from(replyEntries[0].raw).equals(reply)).toBe(true);

    const again = await postMail(s, reply);
    expect(again.status, again.text).toBeLessThan(300);
    expect(again.body).toMatchObject({ duplicate: true, intake_id: appended.body.intake_id });
    expect((await entriesOf(identityOf(reply))).length).toBe(1);
    expect(await beingApplied()).toBe(0);
  });

  it('from a disabled sender is logged once as rejected, with its bytes', async () => {
    const from = `disabled${++seq}@customer.example`;
    const user = await s.user('requester', from);
    const off = await s.api('PATCH', `/users/${user.id}`, { body: { disabled: true } });
    expect(off.status, off.text).toBe(200);
    const raw = bigMail('From someone disabled', from);
    const res = await postMail(s, raw);
    expect(res.status, res.text).toBeLessThan(500);
    const entries = await entriesOf(identityOf(raw));
    expect(entries.map((e) => e.verdict)).toEqual(['rejected']);
    expect(Buffer.from(entries[0].raw).equals(raw)).toBe(true);
    expect(await beingApplied()).toBe(0);
  });
});

// PostgreSQL: units of work run side by side, so what a delivery holds while its raw message is written shows.
onlyOn('postgres')('on PostgreSQL, a large raw message is written before its ticket is locked', () => {
  const side = sideConnection(() => s.env.DATABASE_URL);

  it('its entry, bytes and all, is there while the reply waits for the ticket; the reply then settles that entry', async () => {
    const opened = await postMail(s, rawMail({ from: `lock${++seq}@customer.example`, subject: 'Small start' }, 'Hi'));
    expect(opened.status, opened.text).toBe(201);
    const ticketId = opened.body.ticket_id as number;
    const reply = bigMail(`Re: [hxdesk #${ticketId}] Small start`, `lock${seq}@customer.example`);
    await side.client.query('BEGIN');
    await side.client.query('SELECT id FROM tickets WHERE id = $1 FOR NO KEY UPDATE', [ticketId]);
    const pending = postMail(s, reply);
    const waiting = await waitUntil(
      'the raw message written while its ticket is locked',
      async () =>
        (
          await side.client.query<{ id: number; verdict: string; error: string; size: number }>(
            'SELECT id, verdict, error, length(raw) AS size FROM mail_intake WHERE identity = $1',
            [identityOf(reply)],
          )
        ).rows,
      (rows) => rows.length === 1,
    );
    expect(waiting[0]).toMatchObject({ verdict: 'failed', error: BEING_APPLIED, size: reply.length });
    await side.client.query('COMMIT');
    const done = await pending;
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ verdict: 'appended', intake_id: waiting[0].id, ticket_id: ticketId });
    expect((await entriesOf(identityOf(reply))).map((e) => [e.verdict, e.error])).toEqual([['appended', null]]);
  });
});
