import { z } from 'zod';
import { CATEGORIES } from '../../domain/lifecycles/categories.js';
import { zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

// SPEC D3 lifecycles (decision 073). A form sends its rows as `statuses.0.name`, … (blank rows
// dropped), a status's allowed targets as the checkboxes `transitions.<status>` (a hidden empty one
// each, so a status with none checked moves nowhere), and `any_transition` for "any to any".

/** Rows of a form (`{ "0": {…}, "1": {…} }`) as a list in their order, without the blank ones. */
const rows = (v: unknown) =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? Object.entries(v as Record<string, Record<string, unknown>>)
        .filter(([k]) => /^\d+$/.test(k))
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([, r]) => r)
        .filter((r) => !(r && typeof r === 'object' && String(r.name ?? '').trim() === ''))
    : v;
const targets = (v: unknown) => [v].flat().filter((x) => x !== '');

const StatusInput = z.strictObject({
  name: z.string().trim().min(1, 'Required').max(40, 'At most 40 characters').describe('Lower-case letters and _'),
  category: z.enum(CATEGORIES, { error: `Expected one of: ${CATEGORIES.join(', ')}` }),
  color: z.string().trim().describe('#rrggbb'),
});
const Transitions = z
  .record(z.string().max(40), z.preprocess(targets, z.array(z.string().max(40)).max(100)))
  .nullable()
  .describe('From a status to the statuses people may move it to; null or absent: any to any');

const fromForm = (v: unknown) => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const o = { ...(v as Record<string, unknown>) };
  if ('statuses' in o) o.statuses = rows(o.statuses);
  if (o.on_customer_reply === '') o.on_customer_reply = null;
  if ('any_transition' in o) {
    if ([o.any_transition].flat().some((x) => x === 'on' || x === 'true' || x === true)) o.transitions = null;
    delete o.any_transition;
  }
  return o;
};

const Fields = {
  name: zText(100, 1),
  statuses: z.array(StatusInput).min(1, 'A lifecycle needs statuses').max(50, 'At most 50 statuses'),
  transitions: Transitions.optional(),
  on_customer_reply: z
    .string()
    .max(40)
    .nullable()
    .optional()
    .describe(
      'The active status a waiting or inactive ticket moves to when a requester writes; null: the first active one',
    ),
};
export const CreateLifecycleSchema = z.preprocess(fromForm, z.strictObject(Fields));
export const UpdateLifecycleSchema = z.preprocess(fromForm, z.strictObject(Fields).partial());

export const LifecycleSchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    statuses: z.array(
      z.strictObject({ name: z.string(), category: z.enum(CATEGORIES), color: z.string().describe('#rrggbb') }),
    ),
    transitions: z.record(z.string(), z.array(z.string())).nullable().describe('null: any to any'),
    on_customer_reply: z.string().nullable(),
    queue_ids: z.array(zRowId).describe('The queues that use it'),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'Lifecycle' });
