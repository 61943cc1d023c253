import type { InboundMail } from './parse.js';

// Loop protection (SPEC B6/B7). Two kinds of machine mail:
// - `bounce`: delivery reports and mail from mailer daemons or from ourselves. Recorded in the
//   intake log only (verdict ignored_auto): it changes no ticket.
// - `auto`: out-of-office replies, list and bulk mail. Processed like any mail, but scrips
//   see it as automatic: no autoreply, no reopening of inactive tickets.

export type MailKind = { kind: 'human' } | { kind: 'auto' | 'bounce'; reason: string };

const text = (v: unknown): string => {
  if (typeof v === 'string') return v.trim().toLowerCase();
  if (v && typeof v === 'object' && 'text' in v) return String((v as { text: unknown }).text).trim().toLowerCase();
  if (v && typeof v === 'object' && 'value' in v) return String((v as { value: unknown }).value).trim().toLowerCase();
  return '';
};

export function classify(mail: InboundMail, ourAddresses: string[]): MailKind {
  const h = mail.headers;
  if (mail.contentType === 'multipart/report') return { kind: 'bounce', reason: 'delivery report (multipart/report)' };
  if (/^(mailer-daemon|postmaster)@/.test(mail.from.address)) return { kind: 'bounce', reason: `sender ${mail.from.address}` };
  if (h.has('return-path') && /^<?\s*>?$/.test(text(h.get('return-path')))) return { kind: 'bounce', reason: 'empty Return-Path' };
  if (ourAddresses.includes(mail.from.address)) return { kind: 'bounce', reason: `sent from our own address ${mail.from.address}` };
  const autoSubmitted = text(h.get('auto-submitted'));
  if (autoSubmitted && autoSubmitted !== 'no') return { kind: 'auto', reason: `Auto-Submitted: ${autoSubmitted}` };
  const precedence = text(h.get('precedence'));
  if (['bulk', 'junk', 'list'].includes(precedence)) return { kind: 'auto', reason: `Precedence: ${precedence}` };
  if (h.has('x-autoreply') || h.has('x-autorespond')) return { kind: 'auto', reason: 'X-Autoreply/X-Autorespond header' };
  // mailparser folds the List-* headers into one `list` object (List-Id is `list.id`).
  const list = h.get('list');
  if (h.has('list-id') || (list && typeof list === 'object' && 'id' in list)) return { kind: 'auto', reason: 'mailing list (List-Id)' };
  return { kind: 'human' };
}
