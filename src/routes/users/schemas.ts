import { z } from 'zod';
import { ROLES } from '../../domain/actor.js';
import { zBool, zInt, zText } from '../../domain/validation.js';
import { USERS_PAGE_MAX } from '../../domain/users.js';
import { zRowId, zTimestamp } from '../openapi.js';

const email = z.string().trim().max(254).pipe(z.email('Expected an e-mail address'));
const password = z.string().min(12, 'At least 12 characters').max(1024, 'At most 1024 characters');
const role = z.enum(ROLES, { error: `Expected one of: ${ROLES.join(', ')}` });

export const CreateUserSchema = z.strictObject({
  email,
  name: zText(200).optional(),
  role: role.optional(),
  password: password.optional(),
  disabled: zBool.optional(),
});
export const UpdateUserSchema = z.strictObject({
  email: email.optional(),
  name: zText(200).optional(),
  role: role.optional(),
  password: password.nullable().optional(),
  disabled: zBool.optional(),
});
/**
 * GET /users (SPEC C4, decision 035): a page of users — by role and disabled, or with `q` a
 * people search (active people whose name or address contains q, best first). `limit` 1–500
 * (default 50) and `offset` page both, as GET /tickets pages; never everyone at once.
 */
export const UserListQuery = z
  .strictObject({
    role: role.optional(),
    disabled: zBool.optional(),
    q: z.string().trim().min(1, 'Must not be empty').max(200, 'At most 200 characters').optional(),
    limit: zInt(1, USERS_PAGE_MAX).optional(),
    offset: zInt(0, 1_000_000_000).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.q === undefined) return;
    // A search finds active people of every role, best first; these filters are for the full list.
    for (const k of ['role', 'disabled'] as const)
      if (v[k] !== undefined)
        ctx.addIssue({ code: 'custom', path: [k], message: 'Not with q (a search finds active people of every role)' });
  });

/** A user as the API answers it (SPEC B3): never a password. */
export const UserSchema = z
  .strictObject({
    id: zRowId,
    email: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    disabled: z.boolean(),
    blocked: z.boolean().describe('SPEC D3: marked as a spammer (a ticket of theirs was Spam): their mail is refused'),
    created_at: zTimestamp,
    updated_at: zTimestamp,
  })
  .meta({ id: 'User' });
export const UserPageSchema = z
  .strictObject({
    users: z.array(UserSchema),
    total: z.number().int().min(0),
    limit: z.number().int().min(0),
    offset: z.number().int().min(0),
  })
  .meta({ id: 'UserPage' });
