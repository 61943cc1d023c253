// The worker-thread side of src/mail/reader.ts: parses one message per task, away from the
// thread that serves HTTP. A MalformedMail is answered as data (errors lose their class on
// the way between threads).
import { MalformedMail } from './malformed.js';
import { parseHeadersOnly, parseMail, type InboundMail } from './parse.js';

export type ParseAnswer = { mail: InboundMail } | { malformed: string };

const bytes = (raw: Uint8Array) => Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

async function answer(work: () => Promise<InboundMail>): Promise<ParseAnswer> {
  try {
    return { mail: await work() };
  } catch (e) {
    if (e instanceof MalformedMail) return { malformed: e.message };
    throw e;
  }
}

export const parse = (raw: Uint8Array) => answer(() => parseMail(bytes(raw)));
export const headersOnly = (task: { raw: Uint8Array; reason: string }) =>
  answer(() => parseHeadersOnly(bytes(task.raw), task.reason));
