import type { Context } from 'hono';
import type { z } from 'zod';
import type { NewAttachment } from '../../domain/transactions.js';
import type { AppEnv } from '../context.js';
import { readBody } from '../respond.js';
import { decodeFiles, isFormBody, readFormFiles } from '../uploads.js';

type Base64File = { filename: string; content_type?: string; content_base64: string };

/**
 * A portal message in whichever shape it came (decision 020): JSON with base64 files in
 * `attachments`, urlencoded, or multipart with files in `attachments` (read as staff forms are,
 * src/routes/uploads.ts, in the portal's words). The other fields are validated by `schema` either way.
 */
export async function readWithFiles<S extends z.ZodType<{ attachments?: Base64File[] }>>(
  c: Context<AppEnv>,
  schema: S,
): Promise<{ input: z.infer<S>; attachments: NewAttachment[] }> {
  if (isFormBody(c)) return readFormFiles(c, schema, { notFiles: 'Expected files (multipart/form-data)' });
  // JSON (and the refusal of any other media type): as every route reads it.
  const input = await readBody(c, schema);
  return { input, attachments: decodeFiles(input.attachments) };
}
