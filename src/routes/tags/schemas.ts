import { z } from 'zod';
import { TAG_MAX, zTag } from '../../domain/tags/normalize.js';
import { zBool, zInt } from '../../domain/validation.js';
import { TicketSchema } from '../tickets/schemas.js';
import { ScripResultSchema } from '../tickets/schemas.js';

/** POST /tickets/:id/tags (SPEC D3): trimmed and lower-cased, 1–40 letters, digits, - _ . / : (decision 074). */
export const AddTagSchema = z.strictObject({
  tag: zTag.describe(`1–${TAG_MAX} letters, digits, - _ . / : — trimmed and lower-cased`),
});

/** A tag in a path (`/tickets/:id/tags/:tag`, `/tags/:tag`): percent-encoded, normalized as a body's is. */
export const TagPathSchema = zTag;

/** GET /tags: the tags starting with `q` (autocomplete), at most `limit`. */
export const TagListQuerySchema = z.strictObject(
  {
    q: z
      .string({ error: 'Expected one text value' })
      .max(TAG_MAX, `At most ${TAG_MAX} characters`)
      .optional()
      .describe('Only the tags starting with this (case does not matter)'),
    limit: zInt(1, 1000).optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `Unknown parameter: ${iss.keys.join(', ')}` : undefined) },
);

/** PATCH /tags/:tag (admins): the new name; an existing tag's name merges the two. */
export const RenameTagSchema = z.strictObject({
  name: zTag.describe('The new name; if a tag of that name exists, the two are merged'),
});

/** DELETE /tags/:tag: a page asks first (HTML without `confirm`); the API deletes at once. */
export const DeleteTagSchema = z.strictObject({
  confirm: zBool.optional().describe('HTML forms: true once the admin confirmed'),
});

export const TagCountSchema = z
  .strictObject({ name: z.string(), count: z.number().int().min(0).describe('How many tickets have it') })
  .meta({ id: 'TagCount' });

export const TagListSchema = z.strictObject({ tags: z.array(TagCountSchema) });

export const TagRenamedSchema = z.strictObject({
  tag: TagCountSchema.describe('The tag under its new name, with its tickets now'),
  tickets: z.number().int().min(0).describe('How many tickets changed'),
});

export const TagDeletedSchema = z.strictObject({
  tickets: z.number().int().min(0).describe('How many tickets lost the tag'),
});

/** A ticket's tag change: the ticket as it is now and the change's scrip results. */
export const TagChangeSchema = z
  .strictObject({ ticket: TicketSchema, scrip_results: z.array(ScripResultSchema) })
  .meta({ id: 'TagChange' });
