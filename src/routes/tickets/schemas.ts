import { z } from 'zod';
import { STATUSES } from '../../lifecycle.js';
import { COLUMNS, zColumn } from '../../domain/savedViews.js';
import { zDistinctList } from '../../domain/tickets/query.js';
import { zBool, zId, zInt, zJsonObject, zNullableId, zText } from '../../domain/validation.js';

const status = z.enum(STATUSES, { error: `Expected one of: ${STATUSES.join(', ')}` });
const customFields = zJsonObject;

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
});

export const UpdateTicketSchema = z.strictObject({
  queue_id: zId.optional(),
  subject: zText(500, 1).optional(),
  status: status.optional(),
  owner_id: zNullableId.optional(),
  team_id: zNullableId.optional(),
  priority: zInt(0, 100).optional(),
  custom_fields: customFields.optional(),
});

export const CommentSchema = z.strictObject({
  body: z.string({ error: 'Required' }).max(100_000, 'At most 100000 characters').refine((s) => s.trim() !== '', 'Must not be empty'),
  internal: zBool.optional(),
  creator_id: zId.optional(),
});

/** The list's `columns` parameter: known column names, each once (at most the seven). */
export const ColumnsParamSchema = zDistinctList(zColumn, 'column', COLUMNS.length);
