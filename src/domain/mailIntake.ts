import { and, eq, gt, inArray, isNull, ne, or, sql, count } from 'drizzle-orm';
import { type Conn, type Db, lockName, lockTicket, prepared, first, transaction } from '../db/port.js';
import { mailIntake, transactions } from '../db/tables.js';
import type { Actor } from './actor.js';
import type { InboundMessage, IntakeOptions } from './inboundMessage.js';
import { nowIso, nowMs } from './clock.js';
import { judgeMailCc, recordMailCc } from './mailCc.js';
import { commentOnTicket, recordOutsideMail } from './tickets/comment.js';
import { createTicket } from './tickets/write.js';
import { withStagedFiles } from './stagedFiles.js';
import { entryFields, type StagedEntry, settleEntry, withStagedEntry } from './intakeEntry.js';
import { ensureMailUser } from './users.js';
import { oursNote, ownOf, resolveQueue, resolveTicket, TAG_RE } from './mailRouting.js';
import { addWatcherIn } from './watchers.js';
import { isStaffRole, ticketPeople } from '../scrips/people.js';

// The domain half of e-mail intake (SPEC B7): given a parsed and classified message, decide
// queue, sender and ticket, apply it through the same ticket functions as the API, and log it
// — all in one SQL transaction, so a message is applied exactly once even across a crash. Where a
// message goes (its queue, its ticket, the addresses that are ours) is read by ./mailRouting.ts.

export type Verdict = 'created' | 'appended' | 'duplicate' | 'ignored_auto' | 'rejected' | 'failed' | 'spam';

export interface IntakeResult {
  intake_id: number | null;
  verdict: Verdict;
  rule: string | null;
  ticket_id: number | null;
  transaction_id: number | null;
  created: boolean;
  user_created: boolean;
  duplicate: boolean;
}

const SUCCESSFUL: Verdict[] = ['created', 'appended', 'ignored_auto', 'rejected', 'spam'];

export type IntakeRow = typeof mailIntake.$inferSelect;

function resultOf(row: IntakeRow, duplicate: boolean, userCreated = false): IntakeResult {
  return {
    intake_id: row.id,
    verdict: row.verdict,
    rule: row.rule,
    ticket_id: row.ticket_id,
    transaction_id: row.transaction_id,
    created: !duplicate && row.verdict === 'created',
    user_created: userCreated,
    duplicate,
  };
}

// The intake's queries with a fixed shape, compiled once: building a query costs more than running it.
const p = sql.placeholder;
const firstTransaction = prepared((db) =>
  db
    .select({ id: transactions.id })
    .from(transactions)
    .where(eq(transactions.ticket_id, p('ticket')))
    .orderBy(transactions.id)
    .limit(1),
);
const insertIntake = prepared((db) =>
  db
    .insert(mailIntake)
    .values({
      identity: p('identity'),
      message_id: p('message_id'),
      source: p('source'),
      sender: p('sender'),
      subject: p('subject'),
      raw: p('raw'),
      verdict: p('verdict'),
      rule: p('rule'),
      ticket_id: p('ticket_id'),
      transaction_id: p('transaction_id'),
      error: p('error'),
      created_at: p('created_at'),
    })
    .returning(),
);
/** An earlier outcome of the same message: an applied one wins over a refusal; a 422 refusal (an error) is not settled. */
const seenAs = (verdicts: Verdict[]) =>
  prepared((db) =>
    db
      .select()
      .from(mailIntake)
      .where(
        and(
          eq(mailIntake.identity, p('identity')),
          inArray(mailIntake.verdict, verdicts),
          or(ne(mailIntake.verdict, 'rejected'), isNull(mailIntake.error)),
        ),
      )
      .orderBy(sql`${mailIntake.verdict} not in ('created', 'appended')`, mailIntake.id)
      .limit(1),
  );
const seenSettled = seenAs(SUCCESSFUL);
/** Replaying an entry: only an earlier created/appended outcome counts as seen. */
const seenApplied = seenAs(['created', 'appended']);
const recentFrom = prepared((db) =>
  db
    .select({ n: count() })
    .from(mailIntake)
    .where(
      and(
        eq(mailIntake.sender, p('sender')),
        gt(mailIntake.created_at, p('since')),
        inArray(mailIntake.verdict, ['created', 'appended']),
      ),
    ),
);

/**
 * What the intake log keeps of any message, even one that could not be read (no sender: null);
 * `entry`: its entry written ahead of the unit of work (a large raw message, src/domain/intakeEntry.ts).
 */
type Logged = Pick<InboundMessage, 'identity' | 'messageId' | 'from' | 'subject' | 'raw'> & { entry?: StagedEntry };

async function logIntake(
  conn: Conn,
  m: Logged,
  source: string,
  v: Partial<IntakeRow> & { verdict: Verdict },
): Promise<IntakeRow> {
  if (m.entry) {
    const settled = await settleEntry(conn, m.entry, {
      rule: null,
      ticket_id: null,
      transaction_id: null,
      error: null,
      ...v,
    });
    if (settled) return settled;
  }
  return (await insertIntake(conn).get({
    ...entryFields(m, source),
    rule: null,
    ticket_id: null,
    transaction_id: null,
    error: null,
    created_at: nowIso(conn),
    ...v,
  }))!;
}

/** The lock one message's deliveries take turns on. */
const messageLock = (identity: string) => `mail:${identity}`;

/** Applies one inbound message exactly once. */
export async function applyInboundMail(db: Db, m: InboundMessage, opts: IntakeOptions): Promise<IntakeResult> {
  // The files stored first, before the message's and the ticket's locks (decision 061); those no
  // entry took (a duplicate, a brake, a bounce, a failure) deleted right after.
  // A large raw message likewise: its entry is written first, and the unit of work gives it its outcome.
  return withStagedFiles(
    db,
    m.attachments,
    (attachments) =>
      withStagedEntry(db, m, opts.source, (entry) => applyInUnitOfWork(db, { ...m, attachments, entry }, opts)),
    { always: true },
  );
}

async function applyInUnitOfWork(
  db: Db,
  m: InboundMessage & { entry?: StagedEntry },
  opts: IntakeOptions,
): Promise<IntakeResult> {
  return transaction(
    db,
    async (tx) => {
      if (m.entry) m.entry.used = false; // an attempt run again after a conflict starts afresh
      // First: two deliveries of one message (the mail gate and IMAP, a retried delivery) take turns,
      // so the second sees the first's outcome (decision 058; READ COMMITTED reads what has committed).
      await lockName(tx, messageLock(m.identity));
      // An applied outcome (a replay may have applied a message rejected earlier) wins over an earlier refusal.
      // A 422 refusal (rejected with an error: an unknown queue) is not settled: a corrected delivery applies.
      const seen = await (opts.replay ? seenApplied : seenSettled)(tx).get({ identity: m.identity });
      if (seen) return resultOf(seen, true);

      if (m.kind === 'bounce')
        return resultOf(
          await logIntake(tx, m, opts.source, { verdict: 'ignored_auto', rule: m.kindReason ?? 'automatic mail' }),
          false,
        );
      // SPEC D3 (decision 077): marked as spam by a filter in front of us: kept (replayable), no
      // ticket, no user, nothing sent. An admin's replay applies it as ordinary mail.
      if (m.spam && !opts.replay)
        return resultOf(
          await logIntake(tx, m, opts.source, { verdict: 'spam', rule: `marked as spam (${m.spam})` }),
          false,
        );

      const hourAgo = new Date(nowMs(tx) - 3600_000).toISOString();
      const recent = (await recentFrom(tx).get({ sender: m.from.address, since: hourAgo }))!.n;
      if (recent >= opts.senderLimitPerHour) {
        return resultOf(
          await logIntake(tx, m, opts.source, {
            verdict: 'rejected',
            rule: `more than ${opts.senderLimitPerHour} messages from ${m.from.address} in an hour`,
          }),
          false,
        );
      }

      const { user, created: userCreated } = await ensureMailUser(tx, m.from.address, m.from.name);
      if (user.disabled)
        return resultOf(
          await logIntake(tx, m, opts.source, { verdict: 'rejected', rule: `sender ${user.email} is disabled` }),
          false,
          userCreated,
        );
      // SPEC D3: a sender marked as a spammer (a ticket of theirs was Spam): refused, nothing sent back.
      if (user.blocked)
        return resultOf(
          await logIntake(tx, m, opts.source, {
            verdict: 'rejected',
            rule: `blocked: sender ${user.email} is blocked (marked as a spammer)`,
          }),
          false,
          userCreated,
        );
      const actor: Actor = { id: user.id, email: user.email, name: user.name, role: user.role, viaMail: true };
      const auto = m.kind === 'auto';
      const ticket = await resolveTicket(tx, m);
      const note =
        (auto ? `; automatic mail (${m.kindReason}), no autoreply` : '') +
        (m.degraded ? `; text not read (${m.degraded}): the raw message is attached` : '');

      const alreadySent = [...new Set(m.copied.map((a) => a.address))];
      const own = ownOf(m, opts);
      if (ticket.id !== null) {
        await lockTicket(tx, ticket.id); // before reading who is on it: a change in flight comes first
        const body = m.text || '(no text)';
        const people = (await ticketPeople(tx, ticket.id))!;
        // SPEC D0: mail from someone who is not on the ticket (not a requester or Cc, not staff) is
        // kept as an internal comment that staff hear of; nobody is added, no customer is mailed.
        if (!isStaffRole(user.role) && ![...people.requesters, ...people.cc].includes(user.id)) {
          const { transaction } = await recordOutsideMail(
            tx,
            user.id,
            ticket.id,
            {
              body,
              message_id: m.messageId,
              attachments: m.attachments,
              auto_submitted: auto,
              merged_from: ticket.mergedFrom,
            },
            opts.notify,
          );
          const rule = `${ticket.rule}; sender ${user.email} is not on ticket #${ticket.id} (not a requester, Cc or staff): kept as an internal comment, nobody added or mailed but staff (outside sender)`;
          const row = await logIntake(tx, m, opts.source, {
            verdict: 'appended',
            rule: [rule + note, await oursNote(tx, m, opts, own)].filter(Boolean).join('; '),
            ticket_id: ticket.id,
            transaction_id: transaction.id,
          });
          return resultOf(row, false, userCreated);
        }
        // SPEC C2 and D0: new people in To/Cc of a requester's or Cc's reply become Cc, within bounds.
        // Not for `action: comment` (staff forwarding into an internal note): that mail is not the conversation.
        const judged =
          !auto && opts.action !== 'comment'
            ? await judgeMailCc(tx, people.queue, ticket.id, m.copied, {
                own,
                onTicket: new Set([...people.requesters, ...people.cc, user.id]),
              })
            : null;
        for (const u of judged?.add ?? [])
          await addWatcherIn(tx, actor.id, ticket.id, 'cc', u.id, { notify: opts.notify });
        const { transaction } = await commentOnTicket(
          tx,
          actor,
          ticket.id,
          {
            body,
            internal: opts.action === 'comment',
            message_id: m.messageId,
            attachments: m.attachments,
            auto_submitted: auto,
            already_sent: alreadySent,
            merged_from: ticket.mergedFrom,
          },
          { notify: opts.notify },
        );
        if (judged) await recordMailCc(tx, ticket.id, transaction.id, judged);
        const rule = [ticket.rule + note, judged?.summary, await oursNote(tx, m, opts, own)].filter(Boolean).join('; ');
        const row = await logIntake(tx, m, opts.source, {
          verdict: 'appended',
          rule,
          ticket_id: ticket.id,
          transaction_id: transaction.id,
        });
        return resultOf(row, false, userCreated);
      }
      const queue = await resolveQueue(tx, m, opts.queue);
      const subject = m.subject.replace(TAG_RE, '').replace(/\s+/g, ' ').trim() || '(no subject)';
      // SPEC C2 and D0: the other people in To/Cc of a new message become its Cc, within bounds.
      const judged = auto
        ? null
        : await judgeMailCc(tx, queue.id, null, m.copied, { own, onTicket: new Set([user.id]) });
      const change = await createTicket(
        tx,
        actor,
        {
          queue_id: queue.id,
          subject: subject.slice(0, 500),
          description: m.text,
          message_id: m.messageId,
          attachments: m.attachments,
          auto_submitted: auto,
          cc: judged?.add.map((u) => u.id) ?? [],
          already_sent: alreadySent,
        },
        opts.notify,
      );
      const first = (await firstTransaction(tx).get({ ticket: change.ticket.id }))!;
      if (judged) await recordMailCc(tx, change.ticket.id, first.id, judged);
      const row = await logIntake(tx, m, opts.source, {
        verdict: 'created',
        rule: [`${ticket.rule}; ${queue.rule}${note}`, judged?.summary, await oursNote(tx, m, opts, own)]
          .filter(Boolean)
          .join('; '),
        ticket_id: change.ticket.id,
        transaction_id: first.id,
      });
      return resultOf(row, false, userCreated);
    },
    { op: 'applyInboundMail' },
  );
}

/**
 * A message refused for what it is (no sender, an unknown queue): kept with the reason as
 * `rejected`, so an admin sees it and can replay it once the cause is fixed. The same message
 * refused again for the same reason reuses its entry.
 */
export async function logRejectedMail(db: Db, m: Logged, source: string, reason: string): Promise<IntakeResult> {
  return transaction(db, async (tx) => {
    await lockName(tx, messageLock(m.identity));
    const error = reason.slice(0, 2000);
    const earlier = await first(
      tx
        .select()
        .from(mailIntake)
        .where(
          and(eq(mailIntake.identity, m.identity), eq(mailIntake.verdict, 'rejected'), eq(mailIntake.error, error)),
        ),
    );
    if (earlier) return resultOf(earlier, false);
    return resultOf(await logIntake(tx, m, source, { verdict: 'rejected', error }), false);
  });
}

/** A message the processor could not apply: kept with its error, retried on the next delivery. */
export async function logFailedMail(db: Db, m: Logged, source: string, error: string): Promise<IntakeResult> {
  return resultOf(
    await transaction(db, (tx) => logIntake(tx, m, source, { verdict: 'failed', error: error.slice(0, 2000) })),
    false,
  );
}
