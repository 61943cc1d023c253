import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAILGATE_TOKEN, postMail } from './helpers/mail.js';
import { message } from './helpers/mailgate.js';
import { rawGet, rawRun } from './helpers/db.js';
import { outboxOf } from './helpers/notify.js';
import { transactionsOf, ticketOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { mintedToken } from './helpers/session.js';

// SPEC D6 "Drafts and unread" over real HTTP, on both stores (docs/decisions/054):
// - GET/PUT/DELETE /tickets/:id/draft: per user and ticket, seen from another session of the
//   same user and never by another agent; a draft writes no history and no outbox row; empty
//   text removes it; sending a reply or note removes it in the same unit of work (a refused send
//   keeps it); the ticket page's reply box is filled from it, with its kind.
// - unread: a ticket a customer wrote on is unread to each agent until they open its page (HTML;
//   JSON reads and live refreshes do not count); the agent's own reply does not make it unread;
//   lists (JSON, HTML, live rows) carry the mark; the page marks the entries new to the reader.

let s: TestServer;
let ann: { id: number; email: string; token: string };
let ben: { id: number; email: string; token: string };
let annElsewhere: string; // a second session (another device) of Ann's
let customer: { id: number; email: string; token: string };
const HTML = { accept: 'text/html' };
const HTMX = { 'hx-request': 'true' };

beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN });
  ann = await s.user('agent');
  ben = await s.user('agent');
  annElsewhere = await mintedToken(s, { id: ann.id, email: ann.email, role: 'agent' });
  customer = await s.user('requester', 'carla@customer.test');
});
afterAll(async () => {
  await s?.close();
});

let seq = 0;
/** A ticket opened by the customer's mail (so it has customer activity from the start). */
async function mailedTicket(): Promise<{ id: number; subject: string }> {
  const m = message({ from: `Carla <${customer.email}>`, subject: `Drafts and unread ${++seq}`, body: 'It broke.\n' });
  const res = await postMail(s, m.raw);
  expect(res.status, res.text).toBeLessThan(300);
  return { id: res.body.ticket_id as number, subject: m.subject };
}
/** The customer writes again, by mail, threaded by the subject tag. */
async function customerWrites(id: number, body: string): Promise<number> {
  const m = message({ from: `Carla <${customer.email}>`, subject: `Re: [hxdesk #${id}] x`, body: `${body}\n` });
  const res = await postMail(s, m.raw);
  expect(res.status, res.text).toBeLessThan(300);
  expect(res.body.ticket_id).toBe(id);
  return res.body.transaction_id as number;
}
const draftOf = async (id: number, token: string) => {
  const res = await s.api('GET', `/tickets/${id}/draft`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.draft as null | { ticket_id: number; kind: string; body: string; updated_at: string };
};
const put = (id: number, token: string, body: unknown) => s.api('PUT', `/tickets/${id}/draft`, { token, body });
/** The agent's list row of a ticket (JSON). */
async function rowOf(id: number, token: string) {
  const res = await s.api('GET', `/tickets?q=%23${id}&limit=5`, { token });
  expect(res.status, res.text).toBe(200);
  return (res.body.tickets as { id: number; unread?: boolean }[]).find((t) => t.id === id)!;
}
/** Opens the ticket page as a browser does (HTML): the page's markup. */
async function openPage(id: number, token: string): Promise<string> {
  const res = await s.api('GET', `/tickets/${id}`, { token, headers: HTML });
  expect(res.status, res.text).toBe(200);
  return res.text;
}

describe('drafts', () => {
  it('keeps one draft per agent and ticket: the same agent elsewhere sees it, another agent never', async () => {
    const { id } = await mailedTicket();
    expect(await draftOf(id, ann.token)).toBeNull();
    const saved = await put(id, ann.token, { body: 'Dear Carla,\nwe are on it', kind: 'note' });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.draft).toMatchObject({ ticket_id: id, kind: 'note', body: 'Dear Carla,\nwe are on it' });
    expect(await draftOf(id, annElsewhere)).toMatchObject({ kind: 'note', body: 'Dear Carla,\nwe are on it' });
    expect(await draftOf(id, ben.token)).toBeNull();
    // Saving again replaces it; Ben's own draft is his.
    expect((await put(id, annElsewhere, { body: 'Dear Carla, v2' })).body.draft.kind).toBe('reply');
    expect((await put(id, ben.token, { body: "Ben's words", kind: 'reply' })).status).toBe(200);
    expect((await draftOf(id, ann.token))!.body).toBe('Dear Carla, v2');
    expect((await draftOf(id, ben.token))!.body).toBe("Ben's words");
    // The ticket page fills the reply box from the reader's own draft, with its kind.
    await put(id, ann.token, { body: 'A note <b>to self</b>', kind: 'note' });
    const page = await openPage(id, ann.token);
    expect(page).toMatch(/<textarea id="reply-body"[^>]*>\s*A note &lt;b&gt;to self&lt;\/b&gt;<\/textarea>/);
    expect(page).toMatch(/<input type="radio" name="internal" value="true" checked=""/);
    expect(page).toContain('Draft saved');
    expect(await openPage(id, ben.token)).toMatch(/<textarea id="reply-body"[^>]*>\s*Ben&#39;s words<\/textarea>/);
  });

  it('is only text: no history entry, no outbox row, no change to the ticket; empty text removes it', async () => {
    const { id } = await mailedTicket();
    const before = { txns: (await transactionsOf(s, id)).length, outbox: (await outboxOf(s, id)).length };
    const ticket = await ticketOf(s, id);
    for (const body of ['one', 'one two', 'one two three'])
      expect((await put(id, ann.token, { body, kind: 'reply' })).status).toBe(200);
    expect((await transactionsOf(s, id)).length).toBe(before.txns);
    expect((await outboxOf(s, id)).length).toBe(before.outbox);
    expect((await ticketOf(s, id)).updated_at).toBe(ticket.updated_at);
    const emptied = await put(id, ann.token, { body: '  \n ', kind: 'reply' });
    expect(emptied.status, emptied.text).toBe(200);
    expect(emptied.body.draft).toBeNull();
    expect(await draftOf(id, ann.token)).toBeNull();
  });

  it('takes the reply box form (its `internal` choice) and answers htmx with the status words', async () => {
    const { id } = await mailedTicket();
    const res = await s.api('PUT', `/tickets/${id}/draft`, {
      token: ann.token,
      form: { body: 'From the form', internal: 'true' },
      headers: HTMX,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text.trim()).toBe('Draft saved');
    expect(await draftOf(id, ann.token)).toMatchObject({ kind: 'note', body: 'From the form' });
    const gone = await s.api('PUT', `/tickets/${id}/draft`, {
      token: ann.token,
      form: { body: '', internal: 'false' },
      headers: HTMX,
    });
    expect(gone.status).toBe(200);
    expect(gone.text.trim()).toBe('');
    expect(await draftOf(id, ann.token)).toBeNull();
  });

  it('refuses what a reply refuses, and customers, in words; nothing is kept', async () => {
    const { id } = await mailedTicket();
    const long = await put(id, ann.token, { body: 'x'.repeat(100_001), kind: 'reply' });
    expect(long.status).toBe(422);
    expect(JSON.stringify(long.body.error.details)).toContain('Message: at most 100000 characters');
    const kind = await put(id, ann.token, { body: 'x', kind: 'letter' });
    expect(kind.status).toBe(422);
    expect(JSON.stringify(kind.body.error.details)).toContain('Kind must be one of: reply, note');
    expect((await put(id, ann.token, { text: 'x' })).status).toBe(422);
    expect(await draftOf(id, ann.token)).toBeNull();
    expect((await put(999_999, ann.token, { body: 'x' })).status).toBe(404);
    expect((await s.api('GET', `/tickets/${id}/draft`, { token: customer.token })).status).toBe(403);
    expect((await put(id, customer.token, { body: 'x' })).status).toBe(403);
  });

  it('goes with the reply or note it became, in its unit of work; a refused send keeps it', async () => {
    const { id } = await mailedTicket();
    await put(id, ann.token, { body: 'Sent soon', kind: 'reply' });
    await put(id, ben.token, { body: 'Ben is still writing', kind: 'note' });
    // Refused as stale (mail came in after the page Ann had): nothing written, the draft stays.
    const seen = Math.max(...(await transactionsOf(s, id)).map((t: { id: number }) => t.id));
    await customerWrites(id, 'Any news?');
    const refused = await s.api('POST', `/tickets/${id}/comment`, {
      token: ann.token,
      body: { body: 'Sent soon', internal: false, seen_transaction_id: seen },
    });
    expect(refused.status, refused.text).toBe(409);
    expect((await draftOf(id, ann.token))!.body).toBe('Sent soon');
    // Refused for having no text: the draft stays too.
    const empty = await s.api('POST', `/tickets/${id}/comment`, {
      token: ann.token,
      body: { body: ' ', internal: false },
    });
    expect(empty.status, empty.text).toBe(422);
    expect((await draftOf(id, ann.token))!.body).toBe('Sent soon');
    // Sent: gone for Ann (on every device), Ben's stays.
    const sent = await s.api('POST', `/tickets/${id}/comment`, {
      token: ann.token,
      body: { body: 'Sent soon', internal: false },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(await draftOf(id, annElsewhere)).toBeNull();
    expect((await draftOf(id, ben.token))!.body).toBe('Ben is still writing');
    // A note clears it the same way.
    await s.api('POST', `/tickets/${id}/comment`, { token: ben.token, body: { body: 'Noted', internal: true } });
    expect(await draftOf(id, ben.token)).toBeNull();
  });

  it('DELETE discards it (204); the reply fragment empties the status line', async () => {
    const { id } = await mailedTicket();
    await put(id, ann.token, { body: 'Never mind', kind: 'reply' });
    const del = await s.api('DELETE', `/tickets/${id}/draft`, { token: ann.token });
    expect(del.status, del.text).toBe(204);
    expect(await draftOf(id, ann.token)).toBeNull();
    expect((await s.api('DELETE', `/tickets/${id}/draft`, { token: ann.token })).status).toBe(204);
    await put(id, ann.token, { body: 'Hello', kind: 'reply' });
    const replied = await s.api('POST', `/tickets/${id}/comment`, {
      token: ann.token,
      form: { body: 'Hello', internal: 'false' },
      headers: HTMX,
    });
    expect(replied.status, replied.text).toBe(201);
    expect(replied.text).toMatch(/<span id="draft-status"[^>]*hx-swap-oob="true"[^>]*><\/span>/);
  });
});

describe('unread', () => {
  it("marks a ticket a customer wrote on until each agent opens it; the agent's own reply does not", async () => {
    const { id } = await mailedTicket();
    expect((await rowOf(id, ann.token)).unread).toBe(true);
    expect((await rowOf(id, ben.token)).unread).toBe(true);
    // JSON reads and live refreshes are not opening the page.
    expect((await s.api('GET', `/tickets/${id}`, { token: ann.token })).status).toBe(200);
    expect((await s.api('GET', `/tickets/${id}/live`, { token: ann.token, headers: HTMX })).status).toBe(200);
    expect((await rowOf(id, ann.token)).unread).toBe(true);
    await openPage(id, ann.token);
    expect((await rowOf(id, ann.token)).unread).toBe(false);
    expect((await rowOf(id, ben.token)).unread).toBe(true);
    // Ann replies and Ben changes the status: still read for Ann.
    await s.api('POST', `/tickets/${id}/comment`, { token: ann.token, body: { body: 'On it', internal: false } });
    await s.api('PATCH', `/tickets/${id}`, { token: ben.token, body: { priority: 5 } });
    expect((await rowOf(id, ann.token)).unread).toBe(false);
    // The customer writes: unread again.
    await customerWrites(id, 'Still broken');
    expect((await rowOf(id, ann.token)).unread).toBe(true);
    // Answering it is reading it (for the writer only): a note as much as a reply.
    await s.api('POST', `/tickets/${id}/comment`, { token: ann.token, body: { body: 'Looking', internal: true } });
    expect((await rowOf(id, ann.token)).unread).toBe(false);
    expect((await rowOf(id, ben.token)).unread).toBe(true);
    await customerWrites(id, 'Hello?');
    expect((await rowOf(id, ann.token)).unread).toBe(true);
    // Customers' lists carry no mark.
    const theirs = await s.api('GET', '/tickets', { token: customer.token });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.tickets.every((t: object) => !('unread' in t))).toBe(true);
  });

  it('opening the page again with nothing new since writes nothing; something new moves the mark', async () => {
    const { id } = await mailedTicket();
    await openPage(id, ann.token);
    const readRow = () =>
      rawGet<{ seen_txn_id: number; seen_at: string }>(
        s,
        'SELECT seen_txn_id, seen_at FROM ticket_reads WHERE user_id = ? AND ticket_id = ?',
        [ann.id, id],
      );
    const first = (await readRow())!;
    // Set aside by hand: a write of the mark would put the time of the visit here.
    const SET_ASIDE = '2000-01-01T00:00:00.000Z';
    await rawRun(s, 'UPDATE ticket_reads SET seen_at = ? WHERE user_id = ? AND ticket_id = ?', [SET_ASIDE, ann.id, id]);
    await openPage(id, ann.token);
    await openPage(id, ann.token);
    expect(await readRow()).toEqual({ seen_txn_id: first.seen_txn_id, seen_at: SET_ASIDE });
    expect((await rowOf(id, ann.token)).unread).toBe(false);
    const newer = await customerWrites(id, 'One more thing');
    expect((await rowOf(id, ann.token)).unread).toBe(true);
    await openPage(id, ann.token);
    const moved = (await readRow())!;
    expect(moved.seen_txn_id).toBe(newer);
    expect(moved.seen_at).not.toBe(SET_ASIDE);
    expect((await rowOf(id, ann.token)).unread).toBe(false);
  });

  it('a ticket only staff wrote on is not unread; an outside sender (a Comment) makes it unread', async () => {
    const made = await s.api('POST', '/tickets', {
      token: ann.token,
      body: { queue_id: 1, subject: 'Staff only', requester_id: customer.id, description: 'Opened by phone' },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.ticket.id as number;
    expect((await rowOf(id, ben.token)).unread).toBe(false);
    const m = message({
      from: 'Olga <olga@elsewhere.test>',
      subject: `Re: [hxdesk #${id}] Staff only`,
      body: 'Me too\n',
    });
    const res = await postMail(s, m.raw);
    expect(res.status, res.text).toBeLessThan(300);
    expect((await transactionsOf(s, id)).some((t: { outside_sender: boolean }) => t.outside_sender)).toBe(true);
    expect((await rowOf(id, ben.token)).unread).toBe(true);
  });

  it('lists show the mark in HTML and in live rows', async () => {
    const { id, subject } = await mailedTicket();
    const list = await s.api('GET', `/tickets?q=%23${id}`, { token: ann.token, headers: HTML });
    const row = new RegExp(`<tr data-id="${id}"[\\s\\S]*?</tr>`).exec(list.text)![0];
    expect(row).toContain('<td class="subject unread">');
    expect(row).toContain('New activity');
    expect(row).toContain(subject);
    const live = await s.api('GET', `/tickets?live_ids=${id}`, { token: ann.token });
    expect(live.status, live.text).toBe(200);
    expect(live.body.rows[0].ticket.unread).toBe(true);
    const liveHtml = await s.api('GET', `/tickets?live_ids=${id}`, { token: ann.token, headers: HTMX });
    expect(liveHtml.text).toContain('New activity');
    await openPage(id, ann.token);
    const after = await s.api('GET', `/tickets?q=%23${id}`, { token: ann.token, headers: HTML });
    const row2 = new RegExp(`<tr data-id="${id}"[\\s\\S]*?</tr>`).exec(after.text)![0];
    expect(row2).not.toContain('New activity');
    expect(row2).toContain('<td class="subject">');
  });

  it('the page marks the entries new since the reader last opened it, not their own, and live ones too', async () => {
    const { id } = await mailedTicket();
    // First opening: nothing is marked (the whole ticket is new to them).
    expect(await openPage(id, ann.token)).not.toContain('class="txn-new"');
    await s.api('POST', `/tickets/${id}/comment`, { token: ann.token, body: { body: 'Ann asks', internal: false } });
    const reply = await customerWrites(id, 'Carla answers');
    const note = (
      await s.api('POST', `/tickets/${id}/comment`, { token: ben.token, body: { body: 'Ben notes', internal: true } })
    ).body.transaction.id as number;
    const page = await openPage(id, ann.token);
    const newIds = [
      ...page.matchAll(
        /<li id="txn-(\d+)"[^>]*>\s*<div class="txn-head"><span class="txn-what"><span class="txn-new">New<\/span>/g,
      ),
    ].map((m) => Number(m[1]));
    expect(newIds).toEqual([reply, note]);
    // Opened again: nothing new.
    expect(await openPage(id, ann.token)).not.toContain('class="txn-new"');
    // What arrives live while the page is open is new to them.
    const before = reply;
    const later = await customerWrites(id, 'Carla again');
    const live = await s.api('GET', `/tickets/${id}/live?after=${before}`, { token: ann.token, headers: HTMX });
    expect(live.text).toMatch(
      new RegExp(
        `<li id="txn-${later}"[^>]*>\\s*<div class="txn-head"><span class="txn-what"><span class="txn-new">New`,
      ),
    );
  });
});
