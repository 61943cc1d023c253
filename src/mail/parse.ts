import { createHash } from 'node:crypto';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { InboundMessage } from '../domain/mailIntake.js';

/**
 * A parsed message: what the domain applies (decoded by mailparser: charsets, RFC 2047, HTML
 * to text), plus the headers the classifier reads.
 */
export type InboundMail = Omit<InboundMessage, 'raw' | 'kind' | 'kindReason'> & { headers: Map<string, unknown>; contentType: string };

export class MalformedMail extends Error {}

const idList = (v: string | string[] | undefined): string[] =>
  (Array.isArray(v) ? v : v ? v.split(/\s+/) : []).map((s) => s.trim()).filter((s) => /^<[^<>\s]+>$/.test(s));

function addresses(v: AddressObject | AddressObject[] | undefined): string[] {
  return [v ?? []].flat().flatMap((a) => a.value.flatMap((x) => [x.address, ...(x.group ?? []).map((g) => g.address)]))
    .filter((x): x is string => !!x).map((x) => x.toLowerCase());
}

function headerAddresses(headers: ParsedMail['headers'], name: string): string[] {
  const v = headers.get(name);
  const text = typeof v === 'string' ? v : v && typeof v === 'object' && 'text' in v ? String((v as { text: string }).text) : '';
  return [...text.matchAll(/[^\s<>,;"]+@[^\s<>,;"]+/g)].map((m) => m[0].toLowerCase());
}

export async function parseMail(raw: Buffer): Promise<InboundMail> {
  let parsed: ParsedMail;
  try {
    parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  } catch (e) {
    throw new MalformedMail(`The message could not be parsed: ${(e as Error).message}`);
  }
  const from = parsed.from?.value.find((v) => v.address);
  if (!from?.address || !/^[^@\s]+@[^@\s]+$/.test(from.address)) throw new MalformedMail('The message has no valid From address');
  const messageId = parsed.messageId && /^<[^<>\s]+>$/.test(parsed.messageId) ? parsed.messageId : null;
  const recipients = [
    ...addresses(parsed.to), ...addresses(parsed.cc),
    ...headerAddresses(parsed.headers, 'delivered-to'), ...headerAddresses(parsed.headers, 'x-original-to'),
  ];
  const contentType = parsed.headers.get('content-type');
  return {
    identity: messageId ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    messageId,
    inReplyTo: idList(parsed.inReplyTo),
    references: idList(parsed.references),
    subject: (parsed.subject ?? '').replace(/\s+/g, ' ').trim(),
    from: { address: from.address.toLowerCase(), name: from.name?.trim() ?? '' },
    recipients: [...new Set(recipients)],
    text: (parsed.text ?? '').replace(/\r\n/g, '\n').trim(),
    attachments: parsed.attachments.filter((a) => a.contentDisposition !== 'inline' || a.filename).map((a, i) => ({
      filename: a.filename ?? `attachment-${i + 1}`, content_type: a.contentType || 'application/octet-stream', content: a.content,
    })),
    headers: parsed.headers,
    contentType: typeof contentType === 'object' && contentType && 'value' in contentType ? String((contentType as { value: string }).value).toLowerCase() : '',
  };
}
