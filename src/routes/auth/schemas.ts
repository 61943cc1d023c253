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
/** `verbose=1`: an administrator's answer also counts the units of work retried (SPEC D1). */
export const HealthQuery = z.object({
  verbose: z
    .enum(['0', '1'], 'verbose must be 0 or 1')
    .optional()
    .describe('1: an administrator also gets `write_retries` (others get the plain answer)'),
});
export const HealthSchema = z.strictObject({
  ok: z.literal(true),
  write_retries: z
    .record(
      z.string().describe('The operation (the domain function that ran the unit of work)'),
      z.strictObject({
        retries: z.number().int().min(0).describe('Times it ran again after a deadlock or serialization failure'),
        give_ups: z.number().int().min(0).describe('Times it failed after the last attempt'),
      }),
    )
    .optional()
    .describe('Administrators with verbose=1: since this process started, per operation (PostgreSQL; empty on SQLite)'),
});

/** Forgot password (decision 056): the address to mail a link to. */
export const ForgotPasswordSchema = z.object({
  email: z
    .string()
    .trim()
    .min(1, 'Required')
    .max(254, 'At most 254 characters')
    .pipe(z.email('Enter an e-mail address')),
});
/** The one answer to every reset request, whether or not the address is an account's. */
export const ForgotPasswordAnswerSchema = z.strictObject({ message: z.string() });
/** A reset link that is still good: whose account, until when. */
export const ResetLinkSchema = z.strictObject({ email: z.string(), expires_at: zTimestamp });
/** The new password: the same rule as everywhere a password is set (settings, users). */
export const ResetPasswordSchema = z.object({
  password: z.string().min(12, 'At least 12 characters').max(1024, 'At most 1024 characters'),
  password_confirm: z.string().max(1024, 'At most 1024 characters').optional(),
});
