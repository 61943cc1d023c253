import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: ParsedMail;
}

/** The Message-IDs a received mail's References header lists, in order (none: an empty list). */
export const refs = (m: ReceivedMail): string[] => [m.parsed.references ?? []].flat();

export interface SmtpSink {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** Resolves once at least `count` messages have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /**
   * From now on, a message's data is read but the final "250 OK" is held back: the message is
   * not accepted (not in `messages`) while held. For catching a sender mid-delivery.
   */
  hold(): void;
  /** Messages whose data arrived while held and whose answer is still pending. */
  held(): number;
  /** Of those, the ones whose client has disconnected (they will be dropped at release). */
  heldOrphans(): number;
  /**
   * Stops holding: every held message whose client is still connected is accepted (answered 250,
   * kept in `messages`); one whose client went away meanwhile was never accepted (SMTP: a
   * message is delivered by the server's 250) and is counted in `dropped` instead.
   */
  release(): void;
  /** Held messages whose client disconnected before the answer: not delivered. */
  dropped: ReceivedMail[];
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it is given. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const dropped: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  let holding = false;
  const pending: { mail: ReceivedMail; session: string; accept: () => void }[] = [];
  const closed = new Set<string>();
  const accept = (mail: ReceivedMail, callback: () => void) => {
    messages.push(mail);
    for (const w of waiters.splice(0)) w();
    callback();
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onClose(session) {
      closed.add(session.id);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const parsed = await simpleParser(raw);
        const mail = {
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          raw,
          parsed,
        };
        if (holding) pending.push({ mail, session: session.id, accept: () => accept(mail, callback) });
        else accept(mail, callback);
      });
    },
  });
  // A client killed mid-session (a SIGKILLed server) resets its connection: that is the client's end, not the sink's.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitFor(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`expected ${count} messages, got ${messages.length}`)),
          timeoutMs,
        );
        const check = () => {
          if (messages.length >= count) {
            clearTimeout(deadline);
            resolve(messages);
          } else waiters.push(check);
        };
        check();
      });
    },
    hold() {
      holding = true;
    },
    held: () => pending.length,
    heldOrphans: () => pending.filter((p) => closed.has(p.session)).length,
    release() {
      holding = false;
      for (const p of pending.splice(0)) {
        if (closed.has(p.session)) dropped.push(p.mail);
        else p.accept();
      }
    },
    dropped,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
