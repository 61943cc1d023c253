/**
 * Settings the scrip engine needs while it renders notifications inside a ticket change: the
 * public URL (for `ticket.url`), the sender address (From, and the Message-ID domain), and the
 * portal link key and lifetime. Set once at boot from the validated environment and database.
 */
export interface NotifySettings { publicUrl: string; mailFrom: string; portalSecret: string; portalLinkDays: number }

let settings: NotifySettings = { publicUrl: 'http://127.0.0.1:3000', mailFrom: 'hxdesk@localhost', portalSecret: '', portalLinkDays: 30 };

export function configureNotifications(next: Partial<NotifySettings>): void {
  settings = { ...settings, ...next };
  settings.publicUrl = settings.publicUrl.replace(/\/+$/, '');
}

export const notifySettings = (): NotifySettings => settings;
