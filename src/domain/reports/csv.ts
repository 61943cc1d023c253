import { inArray } from 'drizzle-orm';
import type { Db } from '../../db/port.js';
import { users } from '../../db/tables.js';
import type { Actor } from '../actor.js';
import { lookups } from '../lookups.js';
import { slaJson } from '../time/slaJson.js';
import { businessMinutesReader } from './business.js';
import { createdRows, firstResponses, ratingsIn, tagsOf, timeIn } from './facts.js';
import { periodMoves } from './moves.js';
import { type ReportQuery, reportPeriodScope } from './summary.js';
import { metInTime, minutesBetween } from './stats.js';

// SPEC D4 GET /reports/tickets.csv (decision 079): one row per ticket created in the period, the
// same facts as the summary (docs/metrics.md), streamed a page at a time (never the whole file in
// memory), RFC 4180, and no cell a spreadsheet would run as a formula.

export const CSV_COLUMNS = [
  'id',
  'subject',
  'queue',
  'team',
  'owner',
  'requester',
  'tags',
  'created_at',
  'first_response_at',
  'first_response_minutes',
  'resolved_at',
  'resolution_minutes',
  'sla_first_response_met',
  'sla_resolution_met',
  'time_worked_minutes',
  'csat',
  'first_response_business_minutes',
  'resolution_business_minutes',
] as const;

/** Tickets per page read. */
const PAGE = 500;

/**
 * A text cell as RFC 4180 writes it, neutralised first: text starting with `=`, `+`, `-`, `@`, a
 * tab or a carriage return gets a leading `'` (OWASP's advice), so no spreadsheet runs it.
 */
export function textCell(s: string): string {
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
const cell = (v: string | number | boolean | null): string =>
  v === null ? '' : typeof v === 'string' ? textCell(v) : String(v);
export const csvLine = (cells: (string | number | boolean | null)[]) => `${cells.map(cell).join(',')}\r\n`;

/** The CSV's lines, produced as they are read: the header first, then a page of tickets at a time. */
export async function ticketsCsv(db: Db, actor: Actor, query: ReportQuery): Promise<AsyncGenerator<string>> {
  const { p, scope } = await reportPeriodScope(db, actor, query);
  // The period's moves, time and ratings: bounded by the period, read once (ids and figures only).
  const moves = await periodMoves(db, p.from, p.to);
  const time = new Map<number, number>();
  for (const e of await timeIn(db, p)) time.set(e.id, (time.get(e.id) ?? 0) + e.minutes);
  const rating = new Map<number, { rating: string; rated_at: string }>();
  for (const r of await ratingsIn(db, p)) {
    const had = rating.get(r.id);
    if (!had || had.rated_at < r.rated_at) rating.set(r.id, r);
  }
  const names = await lookups(db, actor);
  const business = businessMinutesReader(db);
  const name = (list: { id: number; name: string }[], id: number | null) =>
    id === null ? '' : (list.find((x) => x.id === id)?.name ?? `#${id}`);

  return (async function* () {
    yield csvLine([...CSV_COLUMNS]);
    for (let offset = 0; ; offset += PAGE) {
      const rows = await createdRows(db, scope, p, { limit: PAGE, offset });
      if (rows.length === 0) return;
      const ids = rows.map((r) => r.id);
      const first = await firstResponses(db, ids);
      const tags = await tagsOf(db, ids);
      const requesterIds = [...new Set(rows.flatMap((r) => (r.requester_id === null ? [] : [r.requester_id])))];
      const mail = new Map(
        requesterIds.length === 0
          ? []
          : (
              await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, requesterIds))
            ).map((u) => [u.id, u.email] as const),
      );
      let out = '';
      for (const t of rows) {
        const fr = first.get(t.id) ?? null;
        const resolved = moves.resolved.get(t.id) ?? null;
        const sla = slaJson(t.sla);
        const met = (c: 'first_response' | 'resolution') => metInTime(sla?.[c]);
        out += csvLine([
          t.id,
          t.subject,
          name(names.queues, t.queue_id),
          name(names.teams, t.team_id),
          name(names.users, t.owner_id),
          t.requester_id === null ? '' : (mail.get(t.requester_id) ?? ''),
          (tags.get(t.id) ?? []).join(' '),
          t.created_at,
          fr,
          fr === null ? null : minutesBetween(t.created_at, fr),
          resolved,
          resolved === null ? null : minutesBetween(t.created_at, resolved),
          met('first_response'),
          resolved === null ? null : met('resolution'),
          time.get(t.id) ?? 0,
          rating.get(t.id)?.rating ?? null,
          await business(t.sla, t.created_at, fr),
          await business(t.sla, t.created_at, resolved),
        ]);
      }
      yield out;
      if (rows.length < PAGE) return;
    }
  })();
}
