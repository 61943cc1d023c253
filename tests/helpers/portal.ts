import { expect } from 'vitest';
import { signPortalToken, type PortalClaims } from '../../src/scrips/portalLinks.js';
import { rawGet } from './db.js';
import { base64Lines, entity, multipart, postMail } from './mail.js';
import type { TestServer } from './server.js';
import type { ReceivedMail } from './smtp.js';

// Helpers for the requester portal tests (SPEC C2): links out of real mail, links signed with
// the server's own key (read from its database, as an operator could), mail in through /mailgate.

/** The server's portal key, as stored in its database (app_secrets). */
export async function portalSecretOf(s: TestServer): Promise<string> {
  const row = await rawGet<{ value: string }>(s, "SELECT value FROM app_secrets WHERE name = 'portal'");
  if (!row) throw new Error('no portal secret in app_secrets');
  return row.value;
}

/** A link path signed with the server's key: valid for a day at epoch 0 unless told otherwise. */
export async function signedPath(
  s: TestServer,
  c: Partial<PortalClaims> & { ticketId: number; userId: number },
): Promise<string> {
  const claims: PortalClaims = { expires: Math.floor(Date.now() / 1000) + 86_400, epoch: 0, ...c };
  return `/portal/${signPortalToken(claims, await portalSecretOf(s))}`;
}

export const PORTAL_LINK = /\/portal\/\d+\.\d+\.\d+\.\d+\.[A-Za-z0-9_-]{43}/;

/** The portal path in a mail's text (the link's host is the server's configured URL). */
export function portalPathIn(mail: ReceivedMail): string {
  const m = PORTAL_LINK.exec(mail.parsed.text ?? '');
  expect(m, `a portal link in:\n${mail.parsed.text}`).not.toBeNull();
  return m![0];
}

let seq = 0;
export interface MailIn {
  from: string;
  name?: string;
  subject: string;
  body: string;
  file?: { name: string; type: string; content: Buffer };
  action?: 'comment';
}

/** Sends a message through /mailgate (optionally with one file); returns what it became. */
export async function mailIn(s: TestServer, m: MailIn): Promise<{ ticket_id: number; transaction_id: number }> {
  const head = {
    From: m.name ? `${m.name} <${m.from}>` : m.from,
    To: 'support@helpdesk.example',
    Subject: m.subject,
    'Message-ID': `<portal.${++seq}.${Date.now().toString(36)}@customer.example>`,
    'MIME-Version': '1.0',
  };
  const text = entity({ 'Content-Type': 'text/plain; charset=utf-8' }, `${m.body}\r\n`);
  const raw = m.file
    ? entity(
        { ...head, 'Content-Type': 'multipart/mixed; boundary="b1"' },
        multipart('b1', [
          text,
          entity(
            {
              'Content-Type': `${m.file.type}; name="${m.file.name}"`,
              'Content-Disposition': `attachment; filename="${m.file.name}"`,
              'Content-Transfer-Encoding': 'base64',
            },
            base64Lines(m.file.content),
          ),
        ]),
      )
    : entity({ ...head, 'Content-Type': 'text/plain; charset=utf-8' }, `${m.body}\r\n`);
  const res = m.action
    ? await postMail(s, raw, {
        contentType: 'application/json',
        body: JSON.stringify({ message: raw.toString('utf8'), action: m.action }),
      })
    : await postMail(s, raw);
  expect(res.status, res.text).toBeLessThan(300);
  return res.body;
}

/** A multipart body for a portal reply: the text and files in `attachments`. */
export function replyForm(body: string, files: { name: string; type: string; content: Buffer }[] = []): FormData {
  const form = new FormData();
  form.set('body', body);
  for (const f of files) form.append('attachments', new Blob([new Uint8Array(f.content)], { type: f.type }), f.name);
  return form;
}
