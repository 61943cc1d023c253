/**
 * Settings the scrip engine needs while it renders notifications inside a ticket change: the
 * public URL (for `ticket.url`) and the sender address (From, and the Message-ID domain).
 * Set once at boot from the validated environment.
 */
export interface NotifySettings { publicUrl: string; mailFrom: string }

let settings: NotifySettings = { publicUrl: 'http://127.0.0.1:3000', mailFrom: 'hxdesk@localhost' };

export function configureNotifications(next: NotifySettings): void {
  settings = { publicUrl: next.publicUrl.replace(/\/+$/, ''), mailFrom: next.mailFrom };
}

export const notifySettings = (): NotifySettings => settings;
