import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail { envelope: { from: string; to: string[] }; raw: string; parsed: ParsedMail }

export interface SmtpSink {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** Resolves once at least `count` messages have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it is given. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const parsed = await simpleParser(raw);
        messages.push({
          envelope: { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) },
          raw, parsed,
        });
        waiters.splice(0).forEach((w) => w());
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitFor(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`expected ${count} messages, got ${messages.length}`)), timeoutMs);
        const check = () => {
          if (messages.length >= count) { clearTimeout(deadline); resolve(messages); } else waiters.push(check);
        };
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
