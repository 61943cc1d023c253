import { asc, eq, sql } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import { cachedConfig, configTransaction } from '../../db/configCache.js';
import { type Conn, type Db, first, one } from '../../db/port.js';
import { calendars, slaPolicies } from '../../db/tables.js';
import { type Actor, parseJson, requireAdmin, requireStaff } from '../actor.js';
import { nowIso, nowMs } from '../clock.js';
import { allCustomFields, customValueJson, normalizeCustomValue } from '../customFields.js';
import { invalid, notFound } from '../errors.js';
import { getQueueRow } from '../queues.js';
import { unique } from '../unique.js';
import { addBusinessMs, type CalendarSpec } from './businessTime.js';
import { calendarSpec, defaultCalendarSpec } from './calendars.js';

// SPEC D2 SLA policies (docs/decisions/068): matched in `position` order (lower first, then the
// older), the first whose match fits a ticket applies (src/domain/time/sla.ts decides that).
// Admins write them; agents read them (the ticket page names a ticket's policy).

type Row = typeof slaPolicies.$inferSelect;

/**
 * Which tickets a policy is for; every part given must fit, an empty match fits every ticket.
 * `cf` values are as the ticket JSON shows them (numbers for number fields, text otherwise),
 * checked against the field when saved. `tags` are kept for SPEC D3 and not matched yet.
 */
export interface SlaMatch {
  queue_ids?: number[];
  priority_min?: number;
  priority_max?: number;
  cf?: Record<string, string | number>;
  tags?: string[];
}

export interface SlaPolicy {
  id: number;
  name: string;
  position: number;
  match: SlaMatch;
  /** null: around the clock. */
  calendar_id: number | null;
  first_response_minutes: number | null;
  next_response_minutes: number | null;
  resolution_minutes: number | null;
  warn_before_minutes: number;
  created_at: string;
  updated_at: string;
}

export interface SlaPolicyInput {
  name: string;
  position?: number;
  match?: SlaMatch;
  calendar_id?: number | null;
  first_response_minutes?: number | null;
  next_response_minutes?: number | null;
  resolution_minutes?: number | null;
  warn_before_minutes?: number;
}

const toPolicy = (r: Row): SlaPolicy => ({
  id: r.id,
  name: r.name,
  position: r.position,
  match: parseJson(r.match, {}),
  calendar_id: r.calendar_id,
  first_response_minutes: r.first_response_minutes,
  next_response_minutes: r.next_response_minutes,
  resolution_minutes: r.resolution_minutes,
  warn_before_minutes: r.warn_before_minutes,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const inOrder = [asc(slaPolicies.position), asc(slaPolicies.id)];

/** Every policy in the order they are matched in; kept per configuration version (decision 067). */
export async function policiesInOrder(conn: Conn): Promise<SlaPolicy[]> {
  return cachedConfig(conn, 'sla-policies', async () =>
    (
      await conn
        .select()
        .from(slaPolicies)
        .orderBy(...inOrder)
    ).map(toPolicy),
  );
}

export async function listSlaPolicies(db: Db, actor: Actor): Promise<SlaPolicy[]> {
  requireStaff(actor);
  return (
    await db
      .select()
      .from(slaPolicies)
      .orderBy(...inOrder)
  ).map(toPolicy);
}

async function rowOf(db: Conn, id: number): Promise<Row> {
  const row = await first(db.select().from(slaPolicies).where(eq(slaPolicies.id, id)));
  if (!row) throw notFound('SLA policy', id);
  return row;
}

export async function getSlaPolicy(db: Db, actor: Actor, id: number): Promise<SlaPolicy> {
  requireStaff(actor);
  return toPolicy(await rowOf(db, id));
}

/** The match as it will be kept: queues and custom fields that exist, a priority range in order. */
async function checkMatch(db: Db, m: SlaMatch): Promise<SlaMatch> {
  const out: SlaMatch = {};
  if (m.queue_ids?.length) {
    for (const [i, id] of m.queue_ids.entries()) {
      if (!(await getQueueRow(db, id))) throw invalid(`match.queue_ids.${i}`, `Queue ${id} does not exist`);
    }
    out.queue_ids = [...new Set(m.queue_ids)];
  }
  if (m.priority_min !== undefined) out.priority_min = m.priority_min;
  if (m.priority_max !== undefined) out.priority_max = m.priority_max;
  if (m.priority_min !== undefined && m.priority_max !== undefined && m.priority_min > m.priority_max) {
    throw invalid(
      'match.priority_max',
      `Highest priority (${m.priority_max}) must not be below the lowest priority (${m.priority_min})`,
    );
  }
  const cf = Object.entries(m.cf ?? {});
  if (cf.length) {
    const fields = await allCustomFields(db);
    out.cf = {};
    for (const [key, value] of cf) {
      const path = `match.cf.${key}`;
      const field = fields.find((f) => f.key === key);
      if (!field) throw invalid(path, `Custom field "${key}" does not exist`);
      out.cf[key] = customValueJson(field.type, normalizeCustomValue(field, value, path));
    }
  }
  if (m.tags?.length) out.tags = [...new Set(m.tags)];
  return out;
}

async function checked(db: Db, input: Partial<SlaPolicyInput>) {
  if (input.calendar_id != null) {
    const cal = await first(db.select({ id: calendars.id }).from(calendars).where(eq(calendars.id, input.calendar_id)));
    if (!cal) throw invalid('calendar_id', `Calendar ${input.calendar_id} does not exist`);
  }
  const { match, ...rest } = input;
  return { ...rest, ...(match !== undefined && { match: JSON.stringify(await checkMatch(db, match)) }) };
}

export async function createSlaPolicy(db: Db, actor: Actor, input: SlaPolicyInput): Promise<SlaPolicy> {
  requireAdmin(actor);
  const values = await checked(db, { match: {}, ...input });
  const now = nowIso(db);
  const row = await configTransaction(db, (tx) =>
    unique(db, input, async () => {
      // No position given: after every other policy (it is matched last).
      const position =
        input.position ??
        ((await first(tx.select({ max: sql<number | null>`max(${slaPolicies.position})` }).from(slaPolicies)))?.max ??
          -1) + 1;
      return one(
        tx
          .insert(slaPolicies)
          .values({ ...values, name: input.name, position, created_at: now, updated_at: now })
          .returning(),
      );
    }),
  );
  return toPolicy(row);
}

export async function updateSlaPolicy(
  db: Db,
  actor: Actor,
  id: number,
  input: Partial<SlaPolicyInput>,
): Promise<SlaPolicy> {
  requireAdmin(actor);
  await rowOf(db, id);
  const values = await checked(db, input);
  const row = await configTransaction(db, (tx) =>
    unique(db, input, async () =>
      one(
        tx
          .update(slaPolicies)
          .set({ ...values, updated_at: nowIso(db) })
          .where(eq(slaPolicies.id, id))
          .returning(),
      ),
    ),
  );
  return toPolicy(row);
}

/** Deletes a policy; tickets that had it keep the `sla` they have (what their clocks do then is src/domain/time/sla.ts's). */
export async function deleteSlaPolicy(db: Db, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await rowOf(db, id);
  await configTransaction(db, (tx) => tx.delete(slaPolicies).where(eq(slaPolicies.id, id)));
}

/**
 * The business time a ticket's idle hours count in (SPEC D2 `on_idle` with `business: true`): the
 * calendar of its policy (`tickets.sla.policy_id`), else the default calendar, else around the
 * clock (null). A policy that counts around the clock has no calendar of its own: the default's.
 */
export async function businessCalendarFor(
  conn: Conn,
  policyId: number | null | undefined,
): Promise<CalendarSpec | null> {
  const policy = policyId == null ? undefined : (await policiesInOrder(conn)).find((p) => p.id === policyId);
  if (policy?.calendar_id != null) {
    const spec = await calendarSpec(conn, policy.calendar_id);
    if (spec) return spec;
  }
  return defaultCalendarSpec(conn);
}

export interface PolicyPreview {
  /** The zone the due times are best read in: the policy's calendar's; null around the clock. */
  time_zone: string | null;
  start: string;
  due: { clock: 'first_response' | 'next_response' | 'resolution'; minutes: number; due_at: string }[];
}

/** When each of a policy's targets would fall due for a ticket that came in now (the policy's admin page). */
export async function previewPolicy(db: Db, actor: Actor, policy: SlaPolicy): Promise<PolicyPreview> {
  requireStaff(actor);
  const cal = await calendarSpec(db, policy.calendar_id);
  const start = nowMs(db);
  const iso = (ms: number) => Temporal.Instant.fromEpochMilliseconds(ms).toString({ fractionalSecondDigits: 3 });
  const due: PolicyPreview['due'] = [];
  for (const clock of ['first_response', 'next_response', 'resolution'] as const) {
    const minutes = policy[`${clock}_minutes`];
    if (minutes == null) continue;
    due.push({ clock, minutes, due_at: iso(addBusinessMs(cal, start, minutes * 60_000).dueMs) });
  }
  return { time_zone: cal?.time_zone ?? null, start: iso(start), due };
}
