import type { InboundMail } from './parse.js';

// Loop protection (SPEC B6/B7/C1). Two kinds of machine mail:
// - `bounce`: delivery reports and mail from mailer daemons or from ourselves. Recorded in the
//   intake log only (verdict ignored_auto): it changes no ticket.
// - `auto`: out-of-office replies, list and bulk mail. Processed like any mail, but scrips
//   see it as automatic: no autoreply, no reopening of inactive tickets.
// Everything else is human mail — also a message with several Return-Path headers that carry
// addresses (only `Return-Path: <>`, the null sender, is empty).

export type MailKind = { kind: 'human' } | { kind: 'auto' | 'bounce'; reason: string };

const first = (mail: InboundMail, name: string) => (mail.headers[name]?.[0] ?? '').trim().toLowerCase();

export function classify(mail: InboundMail, ourAddresses: string[]): MailKind {
  const h = mail.headers;
  if (mail.contentType === 'multipart/report' && mail.reportType === 'delivery-status')
    return { kind: 'bounce', reason: 'delivery report (multipart/report)' };
  if (/^(mailer-daemon|postmaster)@/.test(mail.from.address))
    return { kind: 'bounce', reason: `sender ${mail.from.address}` };
  // The topmost Return-Path is the one the final MTA wrote: the envelope sender.
  if (h['return-path']?.length && /^<\s*>$/.test(first(mail, 'return-path')))
    return { kind: 'bounce', reason: 'empty Return-Path' };
  if (ourAddresses.includes(mail.from.address))
    return { kind: 'bounce', reason: `sent from our own address ${mail.from.address}` };
  const autoSubmitted = first(mail, 'auto-submitted').split(';')[0].trim();
  if (autoSubmitted && autoSubmitted !== 'no') return { kind: 'auto', reason: `Auto-Submitted: ${autoSubmitted}` };
  const precedence = first(mail, 'precedence');
  if (['bulk', 'junk', 'list'].includes(precedence)) return { kind: 'auto', reason: `Precedence: ${precedence}` };
  if (h['x-autoreply'] || h['x-autorespond']) return { kind: 'auto', reason: 'X-Autoreply/X-Autorespond header' };
  if (h['list-id']) return { kind: 'auto', reason: 'mailing list (List-Id)' };
  return { kind: 'human' };
}
