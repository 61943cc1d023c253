import { z } from 'zod';
import { zId, zInt, zList } from '../validation.js';
import { STATUSES } from '../../lifecycle.js';

export const SORTS = ['id', 'created', 'updated', 'priority'] as const;
const sortValues = SORTS.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];

/** The longest `q`. */
export const MAX_TERM = 200;

/**
 * Search text: trimmed, at most MAX_TERM characters, and text a message can hold — no control
 * characters (tab and line breaks aside) and no lone UTF-16 surrogates (what a broken
 * percent-escape leaves): such a term cannot be matched and used to fail inside the search.
 */
const zTerm = z.string({ error: 'Expected one text value' }).trim().max(MAX_TERM, `At most ${MAX_TERM} characters`)
  .refine((s) => !/[\0-\x08\x0B\x0C\x0E-\x1F\x7F]/.test(s), 'Must not contain control characters')
  .refine((s) => !/[\uD800-\uDFFF]/u.test(s), 'Must be valid Unicode text (it holds a lone surrogate)');

/**
 * The GET /tickets parameters of SPEC B4, as they arrive in a query string or a saved view.
 * `cf.<key>` parameters are collected into `cf` before validation.
 */
export const TicketFilterSchema = z.strictObject({
  queue_id: zId.optional(),
  status: zList(z.enum(STATUSES, { error: `Expected one of: ${STATUSES.join(', ')}` })).optional(),
  owner_id: z.union([z.literal('none'), zId], { error: 'Expected a user id or "none"' }).optional(),
  q: zTerm.optional(),
  cf: z.record(z.string(), z.string()).optional(),
  team_id: zId.optional(),
  ticket_team_id: zId.optional(),
  requester_id: zId.optional(),
  sort: z.enum(sortValues, { error: `Expected one of: ${sortValues.join(', ')}` }).optional(),
  limit: zInt(1, 500).optional(),
  offset: zInt(0, 1_000_000_000).optional(),
}, { error: (iss) => (iss.code === 'unrecognized_keys' ? `Unknown parameter: ${iss.keys.join(', ')}` : undefined) });

export const TicketListQuerySchema = TicketFilterSchema.extend({ view_id: zId.optional() });

export type TicketFilter = z.infer<typeof TicketFilterSchema>;
export type TicketListQuery = z.infer<typeof TicketListQuerySchema>;

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
