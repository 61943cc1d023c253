import { z } from 'zod';
import { ROLES } from '../../domain/actor.js';
import { zBool, zText } from '../../domain/validation.js';

const email = z.string().trim().max(254).pipe(z.email('Expected an e-mail address'));
const password = z.string().min(12, 'At least 12 characters').max(1024, 'At most 1024 characters');
const role = z.enum(ROLES, { error: `Expected one of: ${ROLES.join(', ')}` });

export const CreateUserSchema = z.strictObject({
  email, name: zText(200).optional(), role: role.optional(), password: password.optional(), disabled: zBool.optional(),
});
export const UpdateUserSchema = z.strictObject({
  email: email.optional(), name: zText(200).optional(), role: role.optional(), password: password.nullable().optional(), disabled: zBool.optional(),
});
export const UserListQuery = z.strictObject({ role: role.optional(), disabled: zBool.optional() });
