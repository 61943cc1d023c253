import { z } from 'zod';
import { COLUMNS, zColumn, zWidth } from '../../domain/savedViews.js';
import { zId, zNullableId, zJsonObject, zJsonText, zList, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

export const CreateSavedViewSchema = z.strictObject({
  name: zText(100, 1),
  owner_id: zId.optional(),
  filters: zJsonObject.optional(),
  columns: zList(zColumn).optional(),
  column_widths: zJsonText(z.partialRecord(zColumn, zWidth)).optional(),
  // SPEC C4: shared with a team ("" from the form's "Only me": not shared).
  team_id: zNullableId.optional(),
});
export const UpdateSavedViewSchema = CreateSavedViewSchema.omit({ owner_id: true }).partial();

/** A saved view as the API answers it (SPEC B3). */
export const SavedViewSchema = z
  .strictObject({
    id: zRowId,
    name: z.string(),
    owner_id: zRowId,
    filters: z.record(z.string(), z.unknown()).describe('GET /tickets parameters'),
    columns: z.array(z.enum(COLUMNS)),
    column_widths: z.partialRecord(z.enum(COLUMNS), z.number()),
    team_id: zRowId.nullable().describe("The team it is shared with, or null: the owner's own"),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'SavedView' });
export const ListedViewSchema = SavedViewSchema.extend({
  shared: z.boolean().describe("Another's view, shared with one of your teams"),
  owner_name: z.string(),
}).meta({ id: 'ListedSavedView' });
