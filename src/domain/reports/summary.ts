import { z } from 'zod';
import type { Db } from '../../db/port.js';
import { type Actor, requireStaff } from '../actor.js';
import { invalid } from '../errors.js';
import { type Lookups, lookups } from '../lookups.js';
import { effectiveFilter } from '../tickets/list.js';
import { flatFilterParams, type TicketFilter, TicketListQuerySchema, type TicketListQuery } from '../tickets/query.js';
import { slaJson } from '../time/slaJson.js';
import { nowIso } from '../clock.js';
import { type Period, reportFacts, reportScope, type TicketFacts } from './facts.js';
import { addDays, isDate, isoWeek, localDate, mondayOf, startOfDay } from '../dates.js';
import { metInTime, minutesBetween, percent, type Spread, spread } from './stats.js';

// SPEC D4 GET /reports/summary (decision 079; the definitions: docs/metrics.md). A pure grouping
// of the period's facts (./facts.ts), each row with the two GET /tickets links that list exactly
// the tickets its `created` and `resolved` count.

export const GROUP_BY = ['queue', 'team', 'owner', 'tag', 'week', 'day'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
/** The longest period a report reads (its cost grows with the period). */
export const MAX_DAYS = 366;

const zDate = z
  .string({ error: 'Expected one date' })
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date such as 2032-03-09')
  .refine(isDate, 'Not a date in the calendar');

/** The report's own parameters plus every GET /tickets filter (not its sort or paging). */
export const ReportQuerySchema = TicketListQuerySchema.omit({ sort: true, limit: true, offset: true }).extend({
  /** The first day of the period, in the reader's zone (default: 30 days before `to`). */
  from: zDate.optional(),
  /** The day after the period (default: tomorrow in the reader's zone, so the period ends with today). */
  to: zDate.optional(),
  group_by: z.enum(GROUP_BY, { error: `Expected one of: ${GROUP_BY.join(', ')}` }).optional(),
});
export type ReportQuery = z.infer<typeof ReportQuerySchema>;

export interface ReportFigures {
  created: number;
  resolved: number;
  reopened: number;
  unanswered: number;
  first_response_minutes: Spread;
  resolution_minutes: Spread;
  /** The same in business minutes, over the tickets an SLA policy applies to (null figures when none). */
  first_response_business_minutes: Spread;
  resolution_business_minutes: Spread;
  sla_met_percent: { first_response: number | null; resolution: number | null };
  time_worked_minutes: number;
  csat: { count: number; good_percent: number | null };
  tickets_url: string;
  resolved_url: string;
}
export interface ReportRow extends ReportFigures {
  key: string | number | null;
  label: string;
}
export interface ReportSummary {
  from: string;
  to: string;
  zone: string;
  group_by: GroupBy;
  rows: ReportRow[];
  totals: ReportFigures;
}

/** The period of a query in the reader's zone: [from, to) as dates and as instants. */
export function periodOf(db: Db, q: { from?: string; to?: string }, zone: string): Period {
  const toDate = q.to ?? addDays(localDate(nowIso(db), zone), 1);
  const fromDate = q.from ?? addDays(toDate, -30);
  if (fromDate >= toDate) throw invalid('to', 'Must be after from');
  if (Date.parse(toDate) - Date.parse(fromDate) > MAX_DAYS * 86400_000)
    throw invalid('from', `A report covers at most ${MAX_DAYS} days`);
  return { fromDate, toDate, from: startOfDay(fromDate, zone), to: startOfDay(toDate, zone), zone };
}

interface Group {
  key: string | number | null;
  label: string;
  /** Extra list parameters naming the group's tickets. */
  params: Record<string, string>;
  /** The group's part of the period (week and day groups), else the whole period. */
  from: string;
  to: string;
  created: Set<TicketFacts>;
  resolved: Set<TicketFacts>;
  reopened: Set<number>;
  time: number;
  ratings: string[];
  any: boolean;
}

type Keyed = { key: string | number | null; label: string; params: Record<string, string>; from?: string; to?: string };

function figures(g: Group, base: Record<string, string>): ReportFigures {
  const created = [...g.created];
  const answered = created.filter((f) => f.first_response_at !== null);
  const resolved = [...g.resolved];
  const clocks = (list: TicketFacts[], clock: 'first_response' | 'resolution') => {
    const decided = list.map((f) => metInTime(slaJson(f.row.sla)?.[clock])).filter((m) => m !== null);
    return percent(decided.filter((m) => m).length, decided.length);
  };
  const link = (range: 'created' | 'resolved') =>
    `/tickets?${new URLSearchParams({ ...base, ...g.params, [`${range}_from`]: g.from, [`${range}_to`]: g.to })}`;
  return {
    created: created.length,
    resolved: resolved.length,
    reopened: g.reopened.size,
    unanswered: created.length - answered.length,
    first_response_minutes: spread(
      answered.map((f) => minutesBetween(f.row.created_at, f.first_response_at as string)),
    ),
    resolution_minutes: spread(resolved.map((f) => minutesBetween(f.row.created_at, f.resolved_at as string))),
    first_response_business_minutes: spread(
      answered.flatMap((f) => (f.business.first_response === null ? [] : [f.business.first_response])),
    ),
    resolution_business_minutes: spread(
      resolved.flatMap((f) => (f.business.resolution === null ? [] : [f.business.resolution])),
    ),
    sla_met_percent: { first_response: clocks(created, 'first_response'), resolution: clocks(resolved, 'resolution') },
    time_worked_minutes: g.time,
    csat: {
      count: g.ratings.length,
      good_percent: percent(g.ratings.filter((r) => r === 'good').length, g.ratings.length),
    },
    tickets_url: link('created'),
    resolved_url: link('resolved'),
  };
}

/**
 * What a report of a period counts, read once: the period, the filter as the list means it, the
 * facts of every ticket concerned, and the names groups are labelled with. One context can be
 * grouped several ways (the reports page: its table, per week and per owner for its charts).
 */
export interface ReportContext {
  p: Period;
  zone: string;
  filter: TicketFilter;
  facts: Map<number, TicketFacts>;
  names: Lookups;
  base: Record<string, string>;
}

/**
 * A report's period in the reader's zone and its filter as the list means it (staff only): what
 * the summary and the CSV both start from. The period is set by from and to alone.
 */
export async function reportPeriodScope(db: Db, actor: Actor, query: ReportQuery) {
  requireStaff(actor);
  const { from: _f, to: _t, group_by: _g, ...listQuery } = query;
  const zone = actor.timezone ?? 'UTC';
  const p = periodOf(db, query, zone);
  const filter = await effectiveFilter(db, actor, listQuery as TicketListQuery);
  for (const k of ['created_from', 'created_to', 'resolved_from', 'resolved_to'] as const)
    if (filter[k] !== undefined) throw invalid(k, 'A report sets the period with from and to');
  return { zone, p, filter, scope: await reportScope(db, actor, filter) };
}

/** Reads a report's context; `tags`: the tickets' tags too (grouping by tag needs them). */
export async function reportContext(
  db: Db,
  actor: Actor,
  query: ReportQuery,
  opts: { tags: boolean },
): Promise<ReportContext> {
  const { zone, p, filter, scope } = await reportPeriodScope(db, actor, query);
  const facts = await reportFacts(db, scope, p, opts);
  const names = await lookups(db, actor);
  const base = flatFilterParams(filter);
  delete base.view_id;
  return { p, zone, filter, facts, names, base };
}

/** The first-response minutes of the tickets created in the period that were answered. */
export const firstResponseMinutes = (ctx: ReportContext): number[] =>
  [...ctx.facts.values()]
    .filter((f) => f.created && f.first_response_at !== null)
    .map((f) => minutesBetween(f.row.created_at, f.first_response_at as string));

/** GET /reports/summary (staff). */
export async function reportSummary(db: Db, actor: Actor, query: ReportQuery): Promise<ReportSummary> {
  const by: GroupBy = query.group_by ?? 'queue';
  return summarize(await reportContext(db, actor, query, { tags: by === 'tag' }), by);
}

/** The context grouped `by` (a pure grouping: no reads). */
export function summarize(ctx: ReportContext, by: GroupBy): ReportSummary {
  const { p, zone, filter, facts, names, base } = ctx;
  const nameOf = <T extends { id: number; name: string }>(list: T[], id: number | null, none: string) =>
    id === null ? none : (list.find((x) => x.id === id)?.name ?? `#${id}`);

  const groups = new Map<string, Group>();
  const total: Group = { key: null, label: 'Total', params: {}, from: p.from, to: p.to, ...fresh() };
  function fresh() {
    return {
      created: new Set<TicketFacts>(),
      resolved: new Set<TicketFacts>(),
      reopened: new Set<number>(),
      time: 0,
      ratings: [] as string[],
      any: false,
    };
  }
  const byDate = (date: string): Keyed => {
    const start = by === 'week' ? mondayOf(date) : date;
    const end = addDays(start, by === 'week' ? 7 : 1);
    const from = startOfDay(start, zone);
    const to = startOfDay(end, zone);
    return {
      key: by === 'week' ? isoWeek(date) : date,
      label: by === 'week' ? `${isoWeek(date)} (from ${start})` : date,
      params: {},
      from: [from, p.from].sort()[1] as string,
      to: [to, p.to].sort()[0] as string,
    };
  };
  /** The groups a ticket's event (at an instant, or on a date) counts in. */
  const keysOf = (f: TicketFacts, at: { iso?: string; date?: string }): Keyed[] => {
    const t = f.row;
    switch (by) {
      case 'queue':
        return [
          { key: t.queue_id, label: nameOf(names.queues, t.queue_id, ''), params: { queue_id: String(t.queue_id) } },
        ];
      case 'team':
        return [
          {
            key: t.team_id,
            label: nameOf(names.teams, t.team_id, 'No team'),
            params: { ticket_team_id: String(t.team_id ?? 'none') },
          },
        ];
      case 'owner':
        return [
          {
            key: t.owner_id,
            label: nameOf(names.users, t.owner_id, 'Unassigned'),
            params: { owner_id: String(t.owner_id ?? 'none') },
          },
        ];
      case 'tag':
        return f.tags.length === 0
          ? [{ key: null, label: 'Untagged', params: { untagged: 'true' } }]
          : f.tags.map((tag) => ({
              key: tag,
              label: tag,
              params: { tag: [...(filter.tag ?? []), tag].filter((x, i, a) => a.indexOf(x) === i).join(',') },
            }));
      default:
        return [byDate(at.date ?? localDate(at.iso as string, zone))];
    }
  };
  const each = (f: TicketFacts, at: { iso?: string; date?: string }, add: (g: Group) => void) => {
    add(total);
    total.any = true;
    for (const k of keysOf(f, at)) {
      const id = `${k.key}`;
      let g = groups.get(id);
      if (!g) {
        g = { key: k.key, label: k.label, params: k.params, from: k.from ?? p.from, to: k.to ?? p.to, ...fresh() };
        groups.set(id, g);
      }
      g.any = true;
      add(g);
    }
  };
  for (const f of facts.values()) {
    if (f.created) each(f, { iso: f.row.created_at }, (g) => g.created.add(f));
    if (f.resolved_at) each(f, { iso: f.resolved_at }, (g) => g.resolved.add(f));
    for (const at of f.reopens) each(f, { iso: at }, (g) => g.reopened.add(f.row.id));
    for (const e of f.time)
      each(f, { date: e.worked_on }, (g) => {
        g.time += e.minutes;
      });
    for (const r of f.ratings) each(f, { iso: r.rated_at }, (g) => g.ratings.push(r.rating));
  }
  const ordered = [...groups.values()].sort((a, b) => {
    if (by === 'week' || by === 'day') return String(a.key) < String(b.key) ? -1 : 1;
    if (a.key === null || b.key === null) return a.key === null ? 1 : -1;
    return a.label.localeCompare(b.label) || String(a.key).localeCompare(String(b.key));
  });
  return {
    from: p.fromDate,
    to: p.toDate,
    zone,
    group_by: by,
    rows: ordered.map((g) => ({ key: g.key, label: g.label, ...figures(g, base) })),
    totals: figures(total, base),
  };
}
