import { and, inArray, isNotNull } from 'drizzle-orm';
import type Mail from 'nodemailer/lib/mailer';
import type { Db } from '../db/port.js';
import { attachments } from '../db/tables.js';
import { textToHtml } from './html.js';
import { markdownMailHtml, markdownOfRow } from './markdownMail.js';
import { storedMail, type OutboxRow } from './outbox.js';

// An outbox e-mail row made into the message the delivery worker hands to nodemailer (SPEC C3):
// everything comes from the row (headers JSON, body, Message-ID, attachment ids, created_at as
// the Date), so sending it again after a restart sends the same message.

/**
 * Bodies longer than this (characters) go out as text only. The HTML of a text is linear in its
 * length, but hostile text (every line a change of quote depth) makes up to about 60 times as
 * much markup, and a text that long (a pasted log; inbound text is kept up to a million
 * characters) reads no better as HTML.
 */
export const HTML_MAX_SOURCE = 512 * 1024;

/** The attachment ids a row carries (a broken value counts as none). */
export function attachmentIdsOf(row: Pick<OutboxRow, 'attachment_ids'>): number[] {
  try {
    const ids = JSON.parse(row.attachment_ids) as unknown;
    return Array.isArray(ids) ? ids.filter((x): x is number => Number.isInteger(x)) : [];
  } catch {
    return [];
  }
}

/**
 * The nodemailer message for a row, and the attachment ids that are no longer stored. A file
 * gone with its (deleted) ticket does not hold the mail back for ever: it goes without it.
 * The SMTP envelope names the row's recipient alone; To and Cc show the whole conversation.
 */
export async function composeMail(db: Db, row: OutboxRow): Promise<{ message: Mail.Options; missing: number[] }> {
  const m = storedMail(row);
  const ids = attachmentIdsOf(row);
  // Only attached files (decision 061): a row names its transaction's, but a staged id never goes out.
  const files =
    ids.length === 0
      ? []
      : await db
          .select({
            id: attachments.id,
            filename: attachments.filename,
            content_type: attachments.content_type,
            content: attachments.content,
          })
          .from(attachments)
          .where(and(inArray(attachments.id, ids), isNotNull(attachments.transaction_id)));
  const byId = new Map(files.map((f) => [f.id, f]));
  const missing = ids.filter((id) => !byId.has(id));
  const from = m.from ?? { name: '', address: row.recipient };
  // SPEC D6: text written in hxdesk is Markdown, its HTML part formatted; mail-born text stays plain.
  const markdown = row.body.length <= HTML_MAX_SOURCE ? await markdownOfRow(db, row.transaction_id) : null;
  const html =
    row.body.length > HTML_MAX_SOURCE
      ? undefined
      : ((markdown !== null ? markdownMailHtml(row.body, markdown) : null) ?? textToHtml(row.body));
  return {
    missing,
    message: {
      from,
      replyTo: m.replyTo ?? undefined,
      to: m.to,
      cc: m.cc.length ? m.cc : undefined,
      envelope: { from: from.address, to: [row.recipient] },
      subject: row.subject ?? '',
      messageId: row.message_id ?? undefined,
      date: new Date(row.created_at),
      inReplyTo: m.inReplyTo,
      references: m.references,
      headers: m.extra,
      text: row.body,
      html,
      attachments: ids.flatMap((id) => {
        const f = byId.get(id);
        return f ? [{ filename: f.filename, contentType: f.content_type, content: f.content }] : [];
      }),
    },
  };
}
