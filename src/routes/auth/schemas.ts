import { z } from 'zod';
import { zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

export const LoginSchema = z.object({
  email: z.string().trim().min(1, 'Required').max(254),
  password: z.string().min(1, 'Required').max(1024),
  next: z.string().optional(),
});
export const TokenSchema = z.object({ name: zText(100, 1) });

/** An API token as listed: never its secret. */
export const TokenJsonSchema = z
  .strictObject({ id: zRowId, name: z.string(), created_at: zTimestamp, last_used_at: zTimestamp.nullable() })
  .meta({ id: 'Token' });
export const NewTokenSchema = TokenJsonSchema.extend({
  token: z.string().describe('The secret: shown this once, stored hashed'),
}).meta({ id: 'NewToken' });
export const HealthSchema = z.strictObject({ ok: z.literal(true) });
