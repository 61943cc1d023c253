import type { Context } from 'hono';
import { z } from 'zod';
import { invalid } from '../domain/errors.js';
import type { NewAttachment } from '../domain/transactions.js';
import { zText } from '../domain/validation.js';
import type { AppEnv } from './context.js';
import { fileBytes } from './multipart.js';
import { MAX_FORM_FILES, readBody, readForm, validate } from './respond.js';

type C = Context<AppEnv>;

// SPEC C4: files on a message, in whichever shape the client sends them: multipart form data
// with the files in `attachments` (a browser), or JSON `attachments: [{ filename, content_type,
// content_base64 }]` (the API). Both end as the NewAttachment list the domain stores.

/**
 * Whether `s` is base64 (whitespace allowed, as MIME wraps it), padded to a multiple of 4. Plain
 * scans: a 20 MiB file's 27 MB of text takes about 40 ms here, where one anchored regex over the
 * packed text held the event loop for ~170 ms (decision 061).
 */
export function isBase64(s: string): boolean {
  const packed = /\s/.test(s) ? s.replace(/\s+/g, '') : s;
  if (packed.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(packed)) return false;
  const pad = packed.indexOf('=');
  return pad === -1 || (pad >= packed.length - 2 && /^=+$/.test(packed.slice(pad)));
}

/** One file in JSON: its bytes in base64 (whitespace allowed, as MIME wraps it). */
export const AttachmentInputSchema = z.strictObject({
  filename: zText(255, 1),
  content_type: z.string().trim().max(255).optional(),
  content_base64: z
    .string({ error: 'Required' })
    .refine(isBase64, 'Expected base64 (A–Z, a–z, 0–9, +, /, padded with = to a multiple of 4 characters)'),
});
export const AttachmentsInputSchema = z
  .array(AttachmentInputSchema)
  .max(MAX_FORM_FILES, `At most ${MAX_FORM_FILES} files`)
  .optional();

/** A browser's file name without its path, control characters or quotes' worth of trouble. */
export function cleanName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[\x00-\x1f\x7f]/g, '')
    .trim()
    .slice(0, 255);
  return clean || 'attachment';
}
/** A media type as `type/subtype`, lower-cased; anything else is application/octet-stream. */
export const cleanType = (type: string | undefined) => {
  const t = (type ?? '').split(';')[0].trim().toLowerCase();
  return /^[a-z0-9][\w.+-]*\/[\w.+-]+$/.test(t) ? t : 'application/octet-stream';
};

const mediaType = (c: C) => (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();

/**
 * A body whose fields `schema` checks (it must accept an optional `attachments` for JSON), and
 * the files it carries. A form's `attachments` must be files; an empty file input (a part with
 * no name and no bytes) is nothing.
 */
export async function readBodyWithFiles<S extends z.ZodType<{ attachments?: z.infer<typeof AttachmentsInputSchema> }>>(
  c: C,
  schema: S,
): Promise<{ input: Omit<z.infer<S>, 'attachments'>; attachments: NewAttachment[] }> {
  const type = mediaType(c);
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') {
    const form = await readForm(c);
    const given = [form.attachments ?? []].flat();
    if (given.some((v) => !(v instanceof File) && v !== ''))
      throw invalid('attachments', 'Expected files (send multipart/form-data)');
    const files = given.filter((f): f is File => f instanceof File && (f.name !== '' || f.size > 0));
    // `_method` is the plain-form override (see app.tsx); other file fields are not ours to keep.
    const fields = Object.fromEntries(
      Object.entries(form).filter(([k, v]) => k !== 'attachments' && k !== '_method' && !(v instanceof File)),
    );
    const input = validate(schema, fields);
    const attachments: NewAttachment[] = [];
    for (const f of files)
      attachments.push({
        filename: cleanName(f.name),
        content_type: cleanType(f.type),
        content: await fileBytes(f),
      });
    return { input, attachments };
  }
  const { attachments, ...input } = await readBody(c, schema);
  return {
    input: input as Omit<z.infer<S>, 'attachments'>,
    attachments: (attachments ?? []).map((a) => ({
      filename: cleanName(a.filename),
      content_type: cleanType(a.content_type),
      content: Buffer.from(a.content_base64, 'base64'),
    })),
  };
}
