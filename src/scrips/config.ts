/**
 * Settings the scrip engine needs while it renders notifications inside a ticket change: the
 * public URL (for `ticket.url`), the sender address (From, and the Message-ID domain), and the
 * portal link key and lifetime. Set once at boot from the validated environment and database.
 */
export interface NotifySettings {
  publicUrl: string; mailFrom: string; portalSecret: string; portalLinkDays: number;
  /** Addresses of ours besides the queue aliases (MAIL_FROM, MAIL_ADDRESSES), lower-cased: never mailed. */
  ownAddresses: string[];
}

let settings: NotifySettings = { publicUrl: 'http://127.0.0.1:3000', mailFrom: 'hxdesk@localhost', portalSecret: '', portalLinkDays: 30, ownAddresses: [] };

export function configureNotifications(next: Partial<NotifySettings>): void {
  settings = { ...settings, ...next };
  settings.publicUrl = settings.publicUrl.replace(/\/+$/, '');
}

export const notifySettings = (): NotifySettings => settings;
