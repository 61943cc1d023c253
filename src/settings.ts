import type { Db } from './db/port.js';
import { appSecret } from './domain/secrets.js';
import type { Env } from './env.js';
import type { ProcessorSettings } from './mail/processor.js';

/**
 * The settings an app hands down to its parts (docs/decisions/045): what notifications say and
 * how they are signed (the scrips), how mail is read and taken in (the mail processor). Built
 * once from the validated environment and the store (the portal key lives in it), by the server
 * or by the app factory, and passed with each call: nothing of it is process-global, so two apps
 * in one process (on two stores) each sign their links with their own key and write their own
 * URL and sender.
 */
export type Settings = ProcessorSettings;

export async function loadSettings(db: Db, env: Env): Promise<Settings> {
  return {
    notify: {
      publicUrl: (env.PUBLIC_URL ?? `http://${env.HOST}:${env.PORT}`).replace(/\/+$/, ''),
      mailFrom: env.MAIL_FROM,
      ownAddresses: [...new Set([env.MAIL_FROM.toLowerCase(), ...env.MAIL_ADDRESSES])],
      portalSecret: await appSecret(db, 'portal'),
      portalLinkDays: env.PORTAL_LINK_DAYS,
    },
    mail: { senderLimitPerHour: env.MAIL_SENDER_MAX_PER_HOUR, parseTimeoutMs: env.MAIL_PARSE_TIMEOUT_MS },
  };
}
