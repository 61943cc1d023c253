import busboy from 'busboy';
import { AppError } from '../../domain/errors.js';

// Mailgun (`body-mime`) and SendGrid (`email`) post the raw message as a form field. Its bytes
// must reach the parser as they are: an 8-bit ISO-8859-1 or Shift_JIS body read as a UTF-8
// string would be mangled for good. busboy reads the fields with latin1, where every byte is
// one character, so the message's bytes come back exactly; the small option fields (queue,
// action) are UTF-8 text.

export interface MailForm {
  message?: Buffer;
  queue?: string;
  action?: string;
}

const MESSAGE_FIELDS = ['message', 'body-mime', 'email'];

export function readMailForm(body: Buffer, headers: Record<string, string>, maxBytes: number): Promise<MailForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers,
        defCharset: 'latin1',
        defParamCharset: 'utf8',
        limits: { fieldSize: maxBytes, fileSize: maxBytes, fields: 100, files: 10, parts: 110 },
      });
    } catch (e) {
      return reject(new AppError('unsupported_media_type', `The form cannot be read: ${(e as Error).message}`));
    }
    const found: Record<string, Buffer> = {};
    const tooLarge = () =>
      reject(new AppError('too_large', `The message is larger than MAX_MAIL_BYTES (${maxBytes} bytes)`));
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return tooLarge();
      if (!(name in found)) found[name] = Buffer.from(value, 'latin1');
    });
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('limit', tooLarge);
      stream.on('close', () => {
        if (!(name in found)) found[name] = Buffer.concat(chunks);
      });
    });
    parser.on('error', (e: Error) =>
      reject(new AppError('invalid_json', `The request body is not valid form data: ${e.message}`)),
    );
    parser.on('close', () => {
      const field = MESSAGE_FIELDS.find((f) => found[f]?.length);
      const text = (k: string) => (found[k] ? found[k].toString('utf8') : undefined);
      resolve({ message: field ? found[field] : undefined, queue: text('queue'), action: text('action') });
    });
    parser.end(body);
  });
}
