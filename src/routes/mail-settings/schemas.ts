import { z } from 'zod';
import { MAIL_ADDRESSES_MAX } from '../../domain/mailSettings.js';
import { zRowId, zTimestamp } from '../openapi.js';

const isAddress = (a: string) => z.email().safeParse(a).success;

/**
 * The admins' list of our own addresses (SPEC D6): a JSON array, or (from the admin page's text
 * box) one text with the addresses on lines of their own or separated by commas. Trimmed,
 * lower-cased and without repeats; every item must be an e-mail address, at most
 * MAIL_ADDRESSES_MAX of them. Refusals name the addresses, on the field itself.
 */
const mailAddresses = z
  .union(
    [
      z.array(z.string({ error: 'Each address must be text' }).max(320, 'An address has at most 320 characters')),
      z
        .string()
        .max(20_000, 'At most 20000 characters')
        .transform((v) => v.split(/[\s,;]+/)),
    ],
    { error: 'Expected a list of e-mail addresses' },
  )
  .transform((list) => [...new Set(list.map((a) => a.trim().toLowerCase()).filter((a) => a !== ''))])
  .superRefine((list, ctx) => {
    const bad = list.filter((a) => !isAddress(a));
    if (bad.length > 0) {
      const named = bad
        .slice(0, 3)
        .map((a) => `"${a.length > 60 ? `${a.slice(0, 60)}…` : a}"`)
        .join(', ');
      ctx.addIssue({
        code: 'custom',
        message: `${named}${bad.length > 3 ? ` and ${bad.length - 3} more` : ''} ${bad.length === 1 ? 'is not an e-mail address' : 'are not e-mail addresses'}`,
      });
    } else if (list.length > MAIL_ADDRESSES_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: `At most ${MAIL_ADDRESSES_MAX} addresses (${list.length} given)`,
      });
    }
  })
  .describe(
    `E-mail addresses (at most ${MAIL_ADDRESSES_MAX}); a text with one address a line, or separated by commas, is read the same way`,
  );

export const UpdateMailSettingsSchema = z.strictObject({ mail_addresses: mailAddresses });

export const MailSettingsSchema = z
  .strictObject({
    mail_addresses: z.array(z.string()).describe('The list admins keep, lower-cased'),
    updated_at: zTimestamp.nullable().describe('When the list was last saved; null when never'),
    other_addresses: z
      .array(
        z.strictObject({
          address: z.string(),
          from: z
            .array(z.string())
            .describe('Where it comes from: `MAIL_FROM`, `MAIL_ADDRESSES`, `IMAP_URL user`, `alias of queue <name>`'),
        }),
      )
      .describe('Our other addresses: from the environment and the queue aliases (changed there, not here)'),
    tickets_with_our_addresses: z
      .strictObject({
        total: z.number().int().min(0).describe('Tickets (not deleted) naming one of our addresses as a person'),
        tickets: z
          .array(
            z.strictObject({
              ticket_id: zRowId,
              subject: z.string(),
              address: z.string(),
              role: z.enum(['requester', 'cc', 'admin_cc']),
            }),
          )
          .describe('The first 50 of them, by ticket: such a watcher is never mailed; remove it on the ticket'),
      })
      .describe('A warning: tickets whose requesters, Cc or AdminCc include one of our addresses'),
  })
  .meta({ id: 'MailSettings' });
