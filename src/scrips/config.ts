/**
 * Settings the scrip engine needs while it renders notifications inside a ticket change: the
 * public URL (for `ticket.url`), the sender address (From, and the Message-ID domain), the portal
 * link key and lifetime, and our own addresses. Part of the app's one settings object
 * (src/settings.ts, docs/decisions/045), handed down from the app factory with each change: two
 * apps in one process each sign and address their own mail.
 */
export interface NotifySettings {
  /** Without a trailing slash. */
  publicUrl: string;
  mailFrom: string;
  portalSecret: string;
  portalLinkDays: number;
  /** Addresses of ours besides the queue aliases (MAIL_FROM, MAIL_ADDRESSES), lower-cased: never mailed. */
  ownAddresses: string[];
}
