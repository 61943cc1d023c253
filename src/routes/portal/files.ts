import type { Context } from 'hono';
import type { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import type { NewAttachment } from '../../domain/transactions.js';
import type { AppEnv } from '../context.js';
import { fileBytes } from '../multipart.js';
import { readBody, readForm, validate } from '../respond.js';
import { cleanName, cleanType } from '../uploads.js';

type Base64File = { filename: string; content_type?: string; content_base64: string };

/**
 * A portal message in whichever shape it came (decision 020): JSON with base64 files in
 * `attachments`, urlencoded, or multipart with files in `attachments`. The other fields are
 * validated by `schema` either way.
 */
export async function readWithFiles<S extends z.ZodType<{ attachments?: Base64File[] }>>(
  c: Context<AppEnv>,
  schema: S,
): Promise<{ input: z.infer<S>; attachments: NewAttachment[] }> {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') {
    const form = await readForm(c);
    const given = [form.attachments ?? []].flat();
    if (given.some((v) => !(v instanceof File) && v !== ''))
      throw invalid('attachments', 'Expected files (multipart/form-data)');
    // A file input left empty still sends a part with no name and no bytes.
    const files = given.filter((f): f is File => f instanceof File && (f.name !== '' || f.size > 0));
    const fields = Object.fromEntries(
      Object.entries(form).filter(([k, v]) => k !== 'attachments' && !(v instanceof File)),
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
  // JSON (and the refusal of any other media type): as every route reads it.
  const input = await readBody(c, schema);
  return {
    input,
    attachments: (input.attachments ?? []).map((a) => ({
      filename: cleanName(a.filename),
      content_type: cleanType(a.content_type),
      content: Buffer.from(a.content_base64, 'base64'),
    })),
  };
}
