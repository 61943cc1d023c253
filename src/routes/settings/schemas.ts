import { z } from 'zod';
import { ROLES } from '../../domain/actor.js';
import { zBool, zText } from '../../domain/validation.js';
import { zRowId, zTimestamp } from '../openapi.js';

/** An empty form field means "not given" (a password form left blank changes nothing). */
const blankless = <T extends z.ZodType>(schema: T) =>
  z.union([z.literal('').transform(() => undefined), schema]).optional();

export const SettingsSchema = z.strictObject({
  name: zText(200).optional(),
  timezone: z.string().trim().max(100).optional(),
  signature: z.string().max(4000, 'At most 4000 characters').optional(),
  notify_new_tickets: zBool.optional(),
  notify_replies: zBool.optional(),
  notify_notes: zBool.optional(),
  password: blankless(z.string().min(12, 'At least 12 characters').max(1024, 'At most 1024 characters')),
  password_confirm: blankless(z.string().max(1024)),
  current_password: blankless(z.string().max(1024)),
});

/** The signed-in user's own settings; the signature and notification choices are staff's only. */
export const SettingsJsonSchema = z
  .strictObject({
    id: zRowId,
    email: z.string(),
    role: z.enum(ROLES),
    name: z.string(),
    timezone: z.string(),
    signature: z.string().optional(),
    notify_new_tickets: z.boolean().optional(),
    notify_replies: z.boolean().optional(),
    notify_notes: z.boolean().optional(),
    updated_at: zTimestamp,
  })
  .meta({ id: 'Settings' });
