import { desc, eq, count } from 'drizzle-orm';
import { type Db, first } from '../db/port.js';
import { mailIntake } from '../db/tables.js';
import { type Actor, requireAdmin } from './actor.js';
import { notFound } from './errors.js';
import type { IntakeRow, Verdict } from './mailIntake.js';
import { oursOf } from './mailRouting.js';

// What the intake log shows an admin (SPEC B7): its entries, one entry with its message, and a
// message's raw bytes for replay. The log is written by ./mailIntake.ts.

export interface IntakeJson {
  id: number;
  identity: string;
  message_id: string | null;
  source: string;
  sender: string | null;
  subject: string | null;
  verdict: Verdict;
  rule: string | null;
  ticket_id: number | null;
  transaction_id: number | null;
  error: string | null;
  /** The recipients taken as ours (SPEC D6): never made a Cc. */
  ours: string[];
  size: number;
  created_at: string;
}
const intakeJson = (r: IntakeRow): IntakeJson => ({
  id: r.id,
  identity: r.identity,
  message_id: r.message_id,
  source: r.source,
  sender: r.sender,
  subject: r.subject,
  verdict: r.verdict,
  rule: r.rule,
  ticket_id: r.ticket_id,
  transaction_id: r.transaction_id,
  error: r.error,
  ours: oursOf(r.rule),
  size: r.raw.length,
  created_at: r.created_at,
});

export async function listIntake(db: Db, actor: Actor, f: { verdict?: Verdict; limit?: number; offset?: number }) {
  requireAdmin(actor);
  const limit = f.limit ?? 50;
  const offset = f.offset ?? 0;
  const where = f.verdict ? eq(mailIntake.verdict, f.verdict) : undefined;
  const rows = await db.select().from(mailIntake).where(where).orderBy(desc(mailIntake.id)).limit(limit).offset(offset);
  const total = (await first(db.select({ n: count() }).from(mailIntake).where(where)))!.n;
  return { intake: rows.map(intakeJson), total, limit, offset };
}

export async function getIntake(db: Db, actor: Actor, id: number): Promise<IntakeJson & { raw: string }> {
  requireAdmin(actor);
  const row = await first(db.select().from(mailIntake).where(eq(mailIntake.id, id)));
  if (!row) throw notFound('Intake entry', id);
  return { ...intakeJson(row), raw: row.raw.toString('utf8') };
}

/** The raw bytes of an entry, for replay. */
export async function intakeRaw(db: Db, actor: Actor, id: number): Promise<Buffer> {
  requireAdmin(actor);
  const row = await first(db.select({ raw: mailIntake.raw }).from(mailIntake).where(eq(mailIntake.id, id)));
  if (!row) throw notFound('Intake entry', id);
  return row.raw;
}
