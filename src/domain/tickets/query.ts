import { z } from 'zod';
import { zBool, zId, zInt, zList } from '../validation.js';
import { STATUS_NAME, STATUS_NAME_HINT } from '../lifecycle.js';
import { CATEGORIES } from '../lifecycles/categories.js';
import { TAGS_PER_REQUEST_MAX, zTag } from '../tags/normalize.js';

/** The most statuses one list filter names. */
export const STATUS_FILTER_MAX = 100;

export const SORTS = ['id', 'created', 'updated', 'priority', 'status', 'owner', 'queue', 'due'] as const;
/** SPEC D2 `sla=`: tickets past a clock's due time, and inside its warning window. */
export const SLA_FILTERS = ['breached', 'due_soon'] as const;
const sortValues = SORTS.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];

/** The longest `q` and `cf.<key>` value; a list links to itself with them, so they stay short. */
export const MAX_TERM = 200;

/**
 * Search text: trimmed, at most MAX_TERM characters, and text a message can hold — no control
 * characters (tab and line breaks aside) and no lone UTF-16 surrogates (what a broken
 * percent-escape leaves): such a term cannot be matched and used to fail inside the search.
 */
const zTerm = z
  .string({ error: 'Expected one text value' })
  .trim()
  .max(MAX_TERM, `At most ${MAX_TERM} characters`)
  .refine((s) => !/[\0-\x08\x0B\x0C\x0E-\x1F\x7F]/.test(s), 'Must not contain control characters')
  .refine((s) => !/[\uD800-\uDFFF]/u.test(s), 'Must be valid Unicode text (it holds a lone surrogate)');

/** An instant as ISO 8601 with a zone (`2032-03-09T00:00:00Z`), kept as UTC ISO text. */
const zInstant = z
  .string({ error: 'Expected one date and time' })
  .trim()
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
    {
      message: 'Expected a date and time such as 2032-03-09T00:00:00Z',
    },
  )
  .transform((s) => new Date(Date.parse(s)).toISOString());

/** A mail domain as the "who is this customer" panel links it: lower-cased, letters, digits, dots and hyphens. */
const zDomain = z
  .string({ error: 'Expected one text value' })
  .trim()
  .toLowerCase()
  .max(253, 'At most 253 characters')
  .regex(
    /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/,
    'Expected a mail domain such as example.com',
  );

/**
 * A list of at most `max` values, each once (a repeat only makes the request, the page and its
 * links longer). Length and repeats are checked before the items, so a long list of bad values
 * is one error, not one per value.
 */
export const zDistinctList = <T extends z.ZodType>(item: T, what: string, max: number) =>
  zList(z.unknown())
    .refine((v) => v.length <= max, { message: `At most ${max} values`, abort: true })
    .refine((v) => new Set(v).size === v.length, { message: `Each ${what} may appear once`, abort: true })
    .pipe(z.array(item));

/**
 * The GET /tickets parameters of SPEC B4, as they arrive in a query string or a saved view.
 * `cf.<key>` parameters are collected into `cf` before validation.
 */
export const TicketFilterSchema = z.strictObject(
  {
    queue_id: zId.optional(),
    // SPEC D3: any status of any lifecycle (the domain refuses one no lifecycle has, naming it).
    status: zDistinctList(z.string().regex(STATUS_NAME, STATUS_NAME_HINT), 'status', STATUS_FILTER_MAX).optional(),
    /** SPEC D3: tickets whose status is of one of these categories in their queue's lifecycle. */
    status_category: zDistinctList(
      z.enum(CATEGORIES, { error: `Expected one of: ${CATEGORIES.join(', ')}` }),
      'category',
      CATEGORIES.length,
    ).optional(),
    // "me": the reader (a saved view or a link with it means whoever opens it).
    owner_id: z
      .union([z.literal('none'), z.literal('me'), zId], { error: 'Expected a user id, "me" or "none"' })
      .optional(),
    /** Tickets in the queues of the reader's teams (the queue's team, SPEC C4 built-in lists). */
    my_teams: zBool.optional(),
    q: zTerm.optional(),
    cf: z.record(z.string(), zTerm).optional(),
    team_id: zId.optional(),
    // "none": tickets of no team (SPEC D4: a report's "No team" row links here).
    ticket_team_id: z.union([z.literal('none'), zId], { error: 'Expected a team id or "none"' }).optional(),
    requester_id: zId.optional(),
    /** SPEC D2: tickets past the due time of a clock (breached), or inside its warning window (due_soon). Staff only. */
    sla: zDistinctList(
      z.enum(SLA_FILTERS, { error: `Expected one of: ${SLA_FILTERS.join(', ')}` }),
      'value',
      SLA_FILTERS.length,
    ).optional(),
    /** Tickets whose requester's address is at this domain (`example.com`; decision 055). */
    requester_domain: zDomain.optional(),
    /** SPEC D2: snoozed tickets only (true), or none of them (false). */
    snoozed: zBool.optional(),
    /** SPEC D3: tickets with every one of these tags (`tag=a&tag=b`, or `tag=a,b`). Staff only. */
    tag: zDistinctList(zTag, 'tag', TAGS_PER_REQUEST_MAX).optional(),
    /** SPEC D3: tickets with at least one of these tags (`tag_any=a,b`). Staff only. */
    tag_any: zDistinctList(zTag, 'tag', TAGS_PER_REQUEST_MAX).optional(),
    /** SPEC D4 drill-down (decision 079): created at or after this instant (ISO 8601). Staff only. */
    created_from: zInstant.optional(),
    /** SPEC D4: created before this instant. Staff only. */
    created_to: zInstant.optional(),
    /** SPEC D4: resolved in [resolved_from, resolved_to) by the report's rule (docs/metrics.md); both or neither. Staff only. */
    resolved_from: zInstant.optional(),
    resolved_to: zInstant.optional(),
    /** SPEC D4: tickets with no tag (a report's untagged row). Staff only. */
    untagged: zBool.optional(),
    sort: z.enum(sortValues, { error: `Expected one of: ${sortValues.join(', ')}` }).optional(),
    limit: zInt(1, 500).optional(),
    offset: zInt(0, 1_000_000_000).optional(),
    /** Decision 085: `exact` counts every matching ticket for `total`; by default a list counts up to a bound. */
    count: z.enum(['exact'], { error: 'Expected exact' }).optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `Unknown parameter: ${iss.keys.join(', ')}` : undefined) },
);

export const TicketListQuerySchema = TicketFilterSchema.extend({ view_id: zId.optional() });

export type TicketFilter = z.infer<typeof TicketFilterSchema>;
export type TicketListQuery = z.infer<typeof TicketListQuerySchema>;

/**
 * The explicit parameters of a validated list query as flat strings (`status` joined by commas,
 * `cf.<key>`), the form the list's own links carry: built from the checked values, never from
 * the raw query string, so a link is never longer than what the list accepts.
 */
export function flatFilterParams(query: TicketListQuery): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === '') continue;
    if (k === 'cf') for (const [key, value] of Object.entries(v as Record<string, string>)) out[`cf.${key}`] = value;
    else out[k] = Array.isArray(v) ? v.join(',') : String(v);
  }
  return out;
}

/**
 * Turns flat parameters (`{ 'cf.severity': 'high', status: 'open' }`) into the schema's shape
 * (`{ cf: { severity: 'high' }, status: 'open' }`). Empty values mean "no filter", as an HTML
 * filter form sends them.
 */
export function nestFilterParams(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const cf: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === '' || v === undefined || v === null) continue;
    if (k.startsWith('cf.')) cf[k.slice(3)] = v;
    else if (k === 'cf' && typeof v === 'object') Object.assign(cf, v);
    else out[k] = v;
  }
  if (Object.keys(cf).length > 0) out.cf = cf;
  return out;
}

/** Where a ticket sorts in a list: the sort column's value, then the id (the stores' own tie-break). */
export type SortKey = [number | string, number];

/**
 * The order of a ranked sort (status, owner, queue; decision 055): each value's place, in order
 * (`values[i]` sorts at i), anything else at `values.length`, no value (no owner) at `nullRank`.
 */
export interface SortRanks {
  values: (string | number)[];
  nullRank: number;
}

/** Where a value sorts under ranks. */
export function rankOf(ranks: SortRanks, value: string | number | null): number {
  if (value === null) return ranks.nullRank;
  const i = ranks.values.indexOf(value);
  return i < 0 ? ranks.values.length : i;
}

/**
 * A ticket's sort key under a list's `sort` (`-updated` …): what a live list places new rows by
 * (SPEC C5). A ranked sort (status, owner, queue) keys by the value's rank.
 */
export function sortKeyOf(
  t: {
    id: number;
    created_at: string;
    updated_at: string;
    priority: number;
    status: string;
    owner_id: number | null;
    queue_id: number;
    next_due_at?: string | null;
  },
  sort: string,
  ranks?: SortRanks,
): SortKey {
  const by = sort.replace(/^-/, '');
  // No due time sorts last either way (SPEC D2), as the stores order it (src/db/shared/listSort.ts).
  if (by === 'due') return [t.next_due_at ?? (sort.startsWith('-') ? '' : '~'), t.id];
  if (ranks && (by === 'status' || by === 'owner' || by === 'queue'))
    return [rankOf(ranks, by === 'status' ? t.status : by === 'owner' ? t.owner_id : t.queue_id), t.id];
  return [
    by === 'created' ? t.created_at : by === 'updated' ? t.updated_at : by === 'priority' ? t.priority : t.id,
    t.id,
  ];
}
