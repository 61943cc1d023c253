import type { InboundMail } from './parse.js';

// SPEC D3 Spam (decision 077): what a filter in front of hxdesk (SpamAssassin, rspamd, a hosted
// gateway) wrote on the message. `X-Spam-Flag: YES`, `X-Spam-Status: Yes, score=…` and
// `X-Spam: yes`, in any letter case; any other value (No, a score alone) is not a verdict.

/** The header that marked the message as spam (for the intake log's rule), or null. */
export function spamMark(mail: Pick<InboundMail, 'headers'>): string | null {
  const h = mail.headers;
  const value = (name: string) => (h[name] ?? []).map((v) => v.trim());
  const flag = value('x-spam-flag').find((v) => /^yes$/i.test(v));
  if (flag !== undefined) return `X-Spam-Flag: ${flag}`;
  const status = value('x-spam-status').find((v) => /^yes\b/i.test(v));
  if (status !== undefined) return `X-Spam-Status: ${status.split(/[,\s]/)[0]}`;
  const spam = value('x-spam').find((v) => /^yes$/i.test(v));
  if (spam !== undefined) return `X-Spam: ${spam}`;
  return null;
}
