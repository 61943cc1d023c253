import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { threadLimits } from '../threadHeap.js';
import { MalformedMail } from './malformed.js';
import type { InboundMail } from './parse.js';
import type { ParseAnswer } from './parseWorker.js';

// Reading a message (MIME, charsets, HTML to text, uuencode) happens on worker threads, never
// on the thread that serves HTTP (which does not even load ./parse.js's libraries): a
// pathological message costs a worker, not the server. A message not read within the time
// limit (or that exhausts a worker's memory, or trips a bug) is still kept: its headers are
// read on their own and the whole raw message is attached.

export interface MailReading {
  mail: InboundMail;
  /** Why the text could not be read (the raw message is then attached whole). */
  degraded?: string;
}

/** Reading the top-level headers alone (at most 1 MiB) gets its own limit: it is the fallback that keeps the message. */
const HEADERS_TIMEOUT_MS = 5000;
const fromSource = import.meta.url.endsWith('.ts'); // under tsx or vitest, not the compiled dist/
/** The memory one reading thread may use. */
const MEMORY_MB = 512;
// One pool of threads per process, shared by every app in it (as the CPU is); what each reading
// may take (MAIL_PARSE_TIMEOUT_MS) is its caller's setting, given with each message.
let pool: Piscina | undefined;

function workers(): Piscina {
  pool ??= new Piscina({
    filename: new URL(fromSource ? './parseWorker.source.mjs' : './parseWorker.js', import.meta.url).href,
    minThreads: 1,
    maxThreads: Math.max(1, Math.min(2, availableParallelism())),
    idleTimeout: 60_000,
    recordTiming: false,
    resourceLimits: threadLimits({ maxOldGenerationSizeMb: MEMORY_MB }),
  });
  return pool;
}

const revive = (mail: InboundMail): InboundMail =>
  withoutNul({
    ...mail,
    attachments: mail.attachments.map((a) => ({
      ...a,
      content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength),
    })),
  });

/**
 * Every NUL character in what was read (subject, names, text, content types) as U+FFFD, the
 * replacement character: a NUL means nothing in text, and PostgreSQL's text cannot hold one, so
 * the same message becomes the same ticket on either store. Bytes (the raw message, files) are
 * kept as they are.
 */
function withoutNul<T>(v: T): T {
  if (typeof v === 'string') return (v.includes('\0') ? v.replaceAll('\0', '\uFFFD') : v) as T;
  if (Array.isArray(v)) return v.map(withoutNul) as T;
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutNul(x)])) as T;
  }
  return v;
}

function why(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; code?: string; message?: string };
  if (err?.name === 'AbortError') return `reading it took longer than ${timeoutMs / 1000} s`;
  if (err?.code === 'ERR_WORKER_OUT_OF_MEMORY') return `reading it needed more than ${MEMORY_MB} MB of memory`;
  return `the parser failed (${(err?.message ?? String(e)).slice(0, 200)})`;
}

async function run(name: 'parse' | 'headersOnly', task: unknown, timeoutMs: number): Promise<InboundMail> {
  const answer = (await workers().run(task, { name, signal: AbortSignal.timeout(timeoutMs) })) as ParseAnswer;
  if ('malformed' in answer) throw new MalformedMail(answer.malformed);
  return revive(answer.mail);
}

/**
 * Reads a raw message within `timeoutMs` (MAIL_PARSE_TIMEOUT_MS). Throws MalformedMail for what
 * cannot be a message (no sender).
 */
export async function readMail(raw: Buffer, timeoutMs: number): Promise<MailReading> {
  try {
    return { mail: await run('parse', raw, timeoutMs) };
  } catch (e) {
    if (e instanceof MalformedMail) throw e;
    const reason = why(e, timeoutMs);
    try {
      return { mail: await run('headersOnly', { raw, reason }, HEADERS_TIMEOUT_MS), degraded: reason };
    } catch (e2) {
      if (e2 instanceof MalformedMail) throw e2;
      throw new MalformedMail(`The message could not be read: ${reason}`);
    }
  }
}

/**
 * Answered once the first thread has loaded its module. Node 20 aborts the whole process (a V8
 * fatal error, "IsGraphAsync … must be used on an instantiated module") when a worker thread is
 * terminated while it is still loading an ES module: a server stopped right after it started
 * (SIGTERM a moment after it listens) crashed instead of exiting cleanly. So closing waits for this.
 */
let loaded: Promise<unknown> | undefined;

/** Starts the worker thread now (the server, once it listens), so the first message does not wait for it. */
export function startMailReading(): void {
  // A task of nothing (the headers of an empty message): its answer says the thread is ready.
  loaded ??= workers()
    .run({ raw: new Uint8Array(0), reason: 'start' }, { name: 'headersOnly' })
    .catch(() => {});
}

/** Stops the worker threads (a graceful shutdown), once the first has loaded (see `loaded`). */
export async function closeMailReading(): Promise<void> {
  const p = pool;
  const ready = loaded;
  pool = undefined;
  loaded = undefined;
  if (ready)
    await Promise.race([
      ready,
      new Promise((r) => {
        setTimeout(r, 5000).unref();
      }),
    ]);
  await p?.destroy();
}
