import { z } from 'zod';
import { zTimeMinutes } from '../time/schemas.js';
import { STATUS_NAME, STATUS_NAME_HINT } from '../../domain/lifecycle.js';
import { COLUMNS, zColumn } from '../../domain/savedViews.js';
import { zDistinctList } from '../../domain/tickets/query.js';
import { AttachmentsInputSchema } from '../uploads.js';
import { zBool, zId, zInt, zJsonObject, zList, zNullableId, zText } from '../../domain/validation.js';
import { BULK_MAX_IDS } from '../../domain/tickets/bulk.js';
import { LIVE_IDS_MAX } from '../../domain/tickets/list.js';
import { TRANSACTION_TYPES } from '../../domain/transactions.js';
import { DRAFT_KINDS } from '../../domain/tickets/drafts.js';
import { zRowId, zTimestamp } from '../openapi.js';
import { LinksSchema } from './linksSchemas.js';
import { TAGS_PER_REQUEST_MAX, zTag } from '../../domain/tags/normalize.js';

// SPEC D3: a status of the ticket's lifecycle (the domain checks it is one, and allowed from the current one).
const status = z
  .string({ error: STATUS_NAME_HINT })
  .regex(STATUS_NAME, STATUS_NAME_HINT)
  .describe(
    "A status of the ticket's queue's lifecycle (RT's default: new, open, stalled, resolved, rejected, deleted)",
  );
const customFields = zJsonObject;
/** A person by id (7) or address (ann@example.com, "Ann Lee <ann@example.com>"); checked by the domain. */
const personRef = z.union([z.number().int().positive(), z.string().trim().min(1).max(320)], {
  error: 'Expected a user id or an e-mail address',
});
/** Empty entries of a typed list ("ann@example.com, " after picking a suggestion) name no one. */
const withoutEmpty = (v: unknown) =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '')
    : v;
const people = z.preprocess(withoutEmpty, zList(personRef)).pipe(z.array(personRef).max(50, 'At most 50 people'));

export const WatcherRoleSchema = z.enum(['requester', 'cc', 'admin_cc'], {
  error: 'Expected one of: requester, cc, admin_cc',
});
export const AddWatcherSchema = z
  .strictObject({
    role: WatcherRoleSchema,
    user_id: zId.optional(),
    email: z.string().trim().min(1, 'Must not be empty').max(320).optional(),
  })
  .refine((v) => (v.user_id === undefined) !== (v.email === undefined), {
    path: ['user_id'],
    message: 'Give either user_id or email',
  });

export const CreateTicketSchema = z.strictObject({
  queue_id: zId,
  subject: zText(500, 1),
  description: zText(100_000).optional(),
  status: status.optional(),
  owner_id: zNullableId.optional(),
  // "default" (the new-ticket form's first choice) means the same as leaving it out: the queue's team.
  team_id: z.union([z.literal('default').transform(() => undefined), zNullableId]).optional(),
  requester_id: zId.optional(),
  priority: zInt(0, 100).optional(),
  custom_fields: customFields.optional(),
  // SPEC C2: ids or addresses; a form sends them comma-separated or as repeated fields.
  requesters: people.optional(),
  cc: people.optional(),
  admin_cc: people.optional(),
});

/** An instant, or a local date-time (a form's datetime-local, read in the writer's zone); empty or null: none. */
const zSnoozeUntil = z.preprocess(
  // The Snooze box sends its date-time and the preset pressed (after it): the last one given counts.
  (v) => (Array.isArray(v) ? ([...v].reverse().find((x) => x !== '') ?? '') : v),
  z.union(
    [
      z.null(),
      z.literal('').transform(() => null),
      zTimestamp,
      z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/),
    ],
    { error: 'Expected an ISO 8601 instant (2026-12-23T08:00:00Z), a local date-time (2026-12-23T09:00) or null' },
  ),
);

export const UpdateTicketSchema = z.strictObject({
  queue_id: zId.optional(),
  subject: zText(500, 1).optional(),
  status: status.optional(),
  owner_id: zNullableId.optional(),
  team_id: zNullableId.optional(),
  priority: zInt(0, 100).optional(),
  custom_fields: customFields.optional(),
  /** SPEC D6: Take (owner_id = you) of a ticket another agent owns: their id, as the 409 asked. */
  confirm_owner_id: zNullableId
    .optional()
    .describe(
      'Taking a ticket another agent owns (owner_id = you) asks first (409): send their id here to take it from them',
    ),
  snoozed_until: zSnoozeUntil
    .optional()
    .describe(
      'SPEC D2: snooze until this instant (the ticket is stalled until then, and wakes open); null (a form: empty) wakes it now. A form may send a local date-time (2026-12-23T09:00), read in your time zone',
    ),
  unsnooze_on_reply: zBool
    .optional()
    .describe("Whether a requester's or Cc's message wakes the snoozed ticket at once (default true)"),
  force: zBool
    .optional()
    .describe(
      'SPEC D3: a move to an inactive status while the ticket depends on tickets not done is 409 (their list); true moves it anyway',
    ),
});

/**
 * A reply or note. The text may be empty only when files come with it (checked once the files
 * are read: a form's files are not fields). `set_status` is a canned response's status, applied
 * in the same unit of work ("" = none).
 */
export const CommentSchema = z.strictObject({
  body: z.string({ error: 'Required' }).max(100_000, 'At most 100000 characters').default(''),
  internal: zBool.optional(),
  creator_id: zId.optional(),
  set_status: z.union([z.literal('').transform(() => undefined), status]).optional(),
  attachments: AttachmentsInputSchema,
  /** SPEC C5: the newest history entry the writer had loaded; newer mail by others is 409 `stale` unless `force`. */
  seen_transaction_id: zId.optional(),
  force: zBool.optional(),
  /** SPEC D4: minutes worked with this message (staff; empty or 0: none), decision 081. */
  time_minutes: zTimeMinutes.describe(
    'SPEC D4: minutes worked, entered with the message (staff; today, by its writer); empty or 0: none',
  ),
});

/** The list's `columns` parameter: known column names, each once (at most the seven). */
export const ColumnsParamSchema = zDistinctList(zColumn, 'column', COLUMNS.length);

/** SPEC C5: the tickets a live list asks about (`live_ids=3,8`): ids, each once, at most LIVE_IDS_MAX. */
export const LiveIdsSchema = zDistinctList(zId, 'id', LIVE_IDS_MAX);

/** "none" (a form's choice) or null: clear it; an id sets it. */
const zClearableId = z.union([z.literal('none').transform(() => null), z.null(), zId], {
  error: 'Expected an id, null or "none"',
});
/** A form's empty choice ("no change") is no change at all. */
const withoutBlank = (v: unknown) =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== '' && x !== undefined))
    : v;

export const BulkChangesSchema = z.preprocess(
  withoutBlank,
  z
    .strictObject({
      status: status.optional(),
      owner_id: zClearableId.optional(),
      queue_id: zId.optional(),
      team_id: zClearableId.optional(),
      priority: zInt(0, 100).optional(),
      // SPEC D3: tags to add and to take off each ticket (`a,b` or repeated; decision 074).
      add_tags: zDistinctList(zTag, 'tag', TAGS_PER_REQUEST_MAX).optional(),
      remove_tags: zDistinctList(zTag, 'tag', TAGS_PER_REQUEST_MAX).optional(),
    })
    .refine(
      (v) => Object.values(v).some((x) => x !== undefined && !(Array.isArray(x) && x.length === 0)),
      'Choose at least one change (status, owner, queue, team, priority or tags)',
    ),
);

/**
 * PATCH /tickets (SPEC C4): the same change to up to BULK_MAX_IDS tickets. A form sends
 * `ids` repeated and `changes.status` …; `return_to` is the list's query string to go back to.
 */
export const BulkUpdateSchema = z.strictObject({
  ids: zList(z.unknown())
    .refine((v) => v.length > 0, { message: 'Select at least one ticket', abort: true })
    .refine((v) => v.length <= BULK_MAX_IDS, {
      message: `You can change at most ${BULK_MAX_IDS} tickets at a time`,
      abort: true,
    })
    .pipe(z.array(zId))
    .refine((v) => new Set(v).size === v.length, 'Each ticket may appear once'),
  changes: BulkChangesSchema,
  /** SPEC D3: a move to an inactive status while a ticket depends on tickets not done is refused per ticket unless force. */
  force: zBool
    .optional()
    .describe('SPEC D3: move tickets to an inactive status even when they depend on tickets not done'),
  /** SPEC D6: a change to `deleted` asks first; without `confirm: true` nothing changes and the answer is the question (409). */
  confirm: zBool.optional().describe('A change to status `deleted` asks first (409): send true to delete'),
  return_to: z
    .string()
    .max(4000)
    .regex(/^(\?[^\x00-\x1f\x7f#]*)?$/, "Expected the list's query string (starting with ?)")
    .optional(),
});

/**
 * GET /tickets/:id/live and the portal's `…/live` (SPEC C5): `after` is the last history entry
 * the page shows; what came after it is answered (everything without it).
 */
export const LiveQuerySchema = z.strictObject({
  after: z.coerce
    .number({ error: 'Expected a whole number' })
    .int('Expected a whole number')
    .min(0, 'Expected a whole number')
    .max(Number.MAX_SAFE_INTEGER, 'Expected a whole number')
    .optional(),
});

// ---- What the ticket routes answer (SPEC B3, D5): the document's response schemas ----------

/** SPEC D6, decision 050: a requester's answers leave these out. */
const STAFF_ONLY = 'Staff only: absent when a requester reads it';

/** SPEC B6: one entry per scrip whose condition matched. */
export const ScripResultSchema = z
  .strictObject({
    scrip_id: zRowId,
    key: z.string(),
    action: z.string(),
    ok: z.boolean(),
    notifications: z.number().int().min(0),
    error: z.string().optional(),
    withheld: z
      .strictObject({ recipients: z.array(z.string()), reason: z.string() })
      .optional()
      .describe('Customers this action did not mail, and why'),
  })
  .meta({ id: 'ScripResult' });

export const AttachmentSchema = z
  .strictObject({ id: zRowId, filename: z.string(), content_type: z.string(), size: z.number().int().min(0) })
  .meta({ id: 'Attachment', description: 'A file on a message; its bytes: GET /attachments/{id}' });

export const TransactionSchema = z
  .strictObject({
    id: zRowId,
    ticket_id: zRowId,
    type: z.enum(TRANSACTION_TYPES),
    creator_id: zRowId.nullable(),
    body: z.string().nullable(),
    field: z.string().nullable(),
    old_value: z.string().nullable(),
    new_value: z.string().nullable(),
    message_id: z.string().nullable(),
    attachments: z.array(AttachmentSchema),
    scrip_results: z.array(ScripResultSchema).optional().describe(STAFF_ONLY),
    outside_sender: z.boolean().describe('A Comment that is mail from someone not on the ticket'),
    merged_from: zRowId
      .nullable()
      .describe(
        'SPEC D3: the merged ticket this entry was moved from, or whose thread it arrived through ("from #id"); null otherwise',
      ),
    created_at: zTimestamp,
  })
  .meta({ id: 'Transaction', description: "One entry of a ticket's history" });

const SlaClockSchema = z
  .strictObject({
    due_at: zTimestamp.nullable().describe('When the clock falls due; null while it is paused or met'),
    met_at: zTimestamp.nullable().describe('When a staff reply (or, for resolution, a resolve) met it'),
    breached_at: zTimestamp.nullable().describe('The due time that was missed, once it was'),
  })
  .meta({ id: 'SlaClock' });
const SlaSchema = z
  .strictObject({
    policy_id: zRowId,
    first_response: SlaClockSchema.nullable(),
    next_response: SlaClockSchema.nullable(),
    resolution: SlaClockSchema.nullable(),
    paused: z.boolean().describe('The resolution clock is paused (the ticket waits: stalled or snoozed)'),
  })
  .meta({ id: 'TicketSla' });

export const TicketSchema = z
  .strictObject({
    id: zRowId,
    queue_id: zRowId,
    subject: z.string(),
    description: z.string(),
    status: z.string(),
    owner_id: zRowId.nullable().optional().describe(STAFF_ONLY),
    team_id: zRowId.nullable().optional().describe(STAFF_ONLY),
    requester_id: zRowId.nullable(),
    priority: z.number().int().min(0).max(100).optional().describe(STAFF_ONLY),
    custom_fields: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .optional()
      .describe(`Values by custom field key. ${STAFF_ONLY}`),
    created_at: zTimestamp,
    updated_at: zTimestamp,
    resolved_at: zTimestamp.nullable(),
    requesters: z.array(zRowId),
    cc: z.array(zRowId),
    admin_cc: z.array(zRowId).optional().describe(STAFF_ONLY),
    sla: SlaSchema.nullable()
      .optional()
      .describe(`SPEC D2: the clocks of the SLA policy that applies (null: none does). ${STAFF_ONLY}`),
    next_due_at: zTimestamp
      .nullable()
      .optional()
      .describe(`The earliest due time of a clock not yet met and not paused (sort=due). ${STAFF_ONLY}`),
    snoozed_until: zTimestamp
      .nullable()
      .optional()
      .describe(`When a snoozed ticket wakes (null: not snoozed). ${STAFF_ONLY}`),
    replied_while_snoozed: z
      .boolean()
      .optional()
      .describe(`A requester or Cc wrote while the ticket slept on (unsnooze_on_reply false). ${STAFF_ONLY}`),
    tags: z.array(z.string()).optional().describe(`SPEC D3: the ticket's tags, sorted. ${STAFF_ONLY}`),
    unread: z
      .boolean()
      .optional()
      .describe('Lists, for staff: a customer wrote since you last opened the ticket (SPEC D6)'),
    links: LinksSchema.optional().describe(`SPEC D3: the tickets linked to this one, by name. ${STAFF_ONLY}`),
    time_worked_minutes: z
      .number()
      .int()
      .optional()
      .describe(`SPEC D4: the minutes worked on the ticket, every entry summed. ${STAFF_ONLY}`),
    csat: z
      .strictObject({ rating: z.enum(['good', 'okay', 'bad']), comment: z.string(), rated_at: zTimestamp })
      .nullable()
      .optional()
      .describe(`SPEC D4: the requester's current rating, null when never rated. ${STAFF_ONLY}`),
  })
  .meta({ id: 'Ticket' });

/** SPEC D6: a listed ticket names who wrote in (decision 055); a customer reads a staff requester's name only (email ""). */
export const ListedTicketSchema = TicketSchema.extend({
  requester: z.strictObject({ id: zRowId, name: z.string(), email: z.string() }).nullable(),
}).meta({ id: 'ListedTicket' });

export const TicketListSchema = z
  .strictObject({
    tickets: z.array(ListedTicketSchema),
    total: z
      .number()
      .int()
      .min(0)
      .describe(
        'The matching tickets, counted exactly up to a bound past the page (1,000 for the first pages); beyond it, at least this many, with total_exact false (decision 085). count=exact counts them all',
      ),
    total_exact: z.boolean(),
    limit: z.number().int().min(0),
    offset: z.number().int().min(0),
  })
  .meta({ id: 'TicketList' });

/** SPEC C5: what a live list learns of the tickets its stream named. */
export const LiveRowsSchema = z
  .strictObject({
    sort: z.string(),
    rows: z.array(
      z.strictObject({
        id: zRowId,
        visible: z.boolean(),
        matches: z.boolean(),
        ticket: ListedTicketSchema.optional(),
        sort_key: z.tuple([z.union([z.number(), z.string()]), z.number()]).optional(),
      }),
    ),
  })
  .meta({ id: 'LiveRows' });

export const TicketChangeSchema = z
  .strictObject({ ticket: TicketSchema, scrip_results: z.array(ScripResultSchema).optional().describe(STAFF_ONLY) })
  .meta({ id: 'TicketChange' });
export const CommentResultSchema = z
  .strictObject({
    transaction: TransactionSchema,
    scrip_results: z.array(ScripResultSchema).optional().describe(STAFF_ONLY),
  })
  .meta({ id: 'TransactionChange', description: 'A new history entry and the scrips it ran' });
export const BulkResultsSchema = z
  .strictObject({
    results: z.array(
      z.strictObject({
        id: zRowId,
        ok: z.boolean(),
        error: z.string().optional(),
        scrip_results: z.array(ScripResultSchema).optional(),
      }),
    ),
  })
  .meta({ id: 'BulkResults' });
export const NotAddedSchema = z
  .strictObject({
    email: z.string(),
    name: z.string(),
    reason: z.string(),
    transaction_id: zRowId.nullable(),
    created_at: zTimestamp,
  })
  .meta({ id: 'NotAdded', description: 'Someone mail named whom the Cc bounds left off the ticket' });

// ---- SPEC D6 drafts (docs/decisions/054) ------------------------------------------------------

/**
 * PUT /tickets/:id/draft: the reply box's text (as long as a reply may be) and its kind. JSON
 * clients say `kind`; the reply box's form sends its own `internal` choice. Empty text removes it.
 */
export const DraftInputSchema = z
  .strictObject({
    body: z.string({ error: 'Required' }).max(100_000, 'At most 100000 characters'),
    kind: z.enum(DRAFT_KINDS, { error: `Expected one of: ${DRAFT_KINDS.join(', ')}` }).optional(),
    internal: zBool.optional().describe("The reply box's choice: true is a note (when `kind` is not given)"),
  })
  .transform(({ body, kind, internal }) => ({
    body,
    kind: kind ?? (internal === true ? ('note' as const) : ('reply' as const)),
  }));

export const DraftSchema = z
  .strictObject({
    ticket_id: zRowId,
    kind: z.enum(DRAFT_KINDS),
    body: z.string(),
    updated_at: zTimestamp,
  })
  .meta({ id: 'Draft', description: "Your unsent reply or note on a ticket (others' drafts are never shown)" });

export const DraftAnswerSchema = z
  .strictObject({ draft: DraftSchema.nullable().describe('null: no draft') })
  .meta({ id: 'DraftAnswer' });
/**
 * GET /tickets/:id (SPEC D6): `quote`, a public message of the ticket whose text the page's reply
 * box starts with, quoted (the "Reply" link of a history entry without JavaScript). Other
 * parameters are left alone, as before.
 */
export const TicketPageQuerySchema = z.object({
  quote: zId.optional(),
});
