import { expect } from 'vitest';
import type { TestServer } from './server.js';
import type { ReceivedMail, SmtpSink } from './smtp.js';
import { until } from './wait.js';

// Reading what a change sent: its outbox rows (written with the change) and, once every row is
// delivered, the messages a real SMTP sink received.

export async function outboxOf(s: TestServer, ticketId: number): Promise<any[]> {
  const res = await s.api('GET', `/outbox?ticket_id=${ticketId}&limit=500`);
  expect(res.status, res.text).toBe(200);
  return (res.body.outbox as any[]).sort((a, b) => a.id - b.id);
}

/** Waits until every outbox row of the ticket is delivered, so the sink holds all its mail. */
export function settle(s: TestServer, ticketId: number) {
  return until(`outbox of ticket ${ticketId} to be sent`, async () => {
    const rows = await outboxOf(s, ticketId);
    for (const r of rows) if (r.status === 'failed') throw new Error(`outbox row ${r.id} failed: ${r.last_error}`);
    return rows.every((r) => r.status === 'sent') && rows;
  });
}

/** The mail the sink received about a ticket, for one envelope recipient, in arrival order. */
export const mailsFor = (sink: SmtpSink, ticketId: number, email: string): ReceivedMail[] =>
  sink.messages.filter(
    (m) => String(m.parsed.headers.get('x-hxdesk-ticket')) === String(ticketId) && m.envelope.to.includes(email),
  );

/** Every mail the sink received for the envelope recipient `address`, in arrival order. */
export const mailsTo = (sink: SmtpSink, address: string): ReceivedMail[] =>
  sink.messages.filter((m) => m.envelope.to.includes(address));

/** The first mail to `address` that matches, waiting for it to be delivered. */
export function mailTo(
  sink: SmtpSink,
  address: string,
  match: (m: ReceivedMail) => boolean = () => true,
): Promise<ReceivedMail> {
  return until(`mail to ${address}`, () => sink.messages.find((m) => m.envelope.to.includes(address) && match(m)));
}
