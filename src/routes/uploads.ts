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

/** How one side reads a form's files: its words for a non-file in `attachments`, the fields it drops unread. */
export interface FormFilesOptions {
  /** The refusal of an `attachments` value that is text, not a file (each side keeps its words). */
  notFiles: string;
  /** Fields that are not the schema's to check (staff: `_method`, the plain-form override of app.tsx). */
  ignore?: readonly string[];
}

/**
 * A form (urlencoded or multipart) as fields `schema` checks and the files in its `attachments`,
 * for staff and portal alike. `attachments` must be files; an empty file input (a part with no
 * name and no bytes, as a browser sends a file input left empty) is nothing; other file fields
 * are not ours to keep.
 */
export async function readFormFiles<S extends z.ZodType>(
  c: C,
  schema: S,
  opts: FormFilesOptions,
): Promise<{ input: z.infer<S>; attachments: NewAttachment[] }> {
  const form = await readForm(c);
  const given = [form.attachments ?? []].flat();
  if (given.some((v) => !(v instanceof File) && v !== '')) throw invalid('attachments', opts.notFiles);
  const files = given.filter((f): f is File => f instanceof File && (f.name !== '' || f.size > 0));
  const ignore = new Set(['attachments', ...(opts.ignore ?? [])]);
  const fields = Object.fromEntries(Object.entries(form).filter(([k, v]) => !ignore.has(k) && !(v instanceof File)));
  const input = validate(schema, fields);
  const attachments: NewAttachment[] = [];
  for (const f of files)
    attachments.push({
      filename: cleanName(f.name),
      content_type: cleanType(f.type),
      content: await fileBytes(f),
      movable: true, // joined from the body's chunks for this file alone; nothing reads it after it is stored
    });
  return { input, attachments };
}

/** Whether the body is a form (urlencoded or multipart), which `readFormFiles` reads; else JSON. */
export const isFormBody = (c: C) => {
  const type = mediaType(c);
  return type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data';
};

/** JSON's base64 files as the domain stores them. */
export const decodeFiles = (files: readonly z.infer<typeof AttachmentInputSchema>[] | undefined): NewAttachment[] =>
  (files ?? []).map((a) => ({
    filename: cleanName(a.filename),
    content_type: cleanType(a.content_type),
    content: Buffer.from(a.content_base64, 'base64'),
    movable: true, // decoded for this file alone
  }));

/**
 * A body whose fields `schema` checks (it must accept an optional `attachments` for JSON), and
 * the files it carries, as multipart form data or JSON base64.
 */
export async function readBodyWithFiles<S extends z.ZodType<{ attachments?: z.infer<typeof AttachmentsInputSchema> }>>(
  c: C,
  schema: S,
): Promise<{ input: Omit<z.infer<S>, 'attachments'>; attachments: NewAttachment[] }> {
  if (isFormBody(c))
    return readFormFiles(c, schema, { notFiles: 'Expected files (send multipart/form-data)', ignore: ['_method'] });
  const { attachments, ...input } = await readBody(c, schema);
  return { input: input as Omit<z.infer<S>, 'attachments'>, attachments: decodeFiles(attachments) };
}
