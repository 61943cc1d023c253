import { asc, eq } from 'drizzle-orm';
import { type Conn, type Db, transaction } from '../db/port.js';
import { queues } from '../db/tables.js';
import type { NotifySettings } from '../scrips/config.js';
import { type Actor, isStaff } from './actor.js';
import { nowMs } from './clock.js';
import { forbidden, invalid } from './errors.js';
import { checkFiles, type PortalLimits, type PortalTicketJson, spendBrakes } from './portal.js';
import { withStagedFiles } from './stagedFiles.js';
import { sweepThrottle } from './throttle.js';
import { createTicket } from './tickets/write.js';
import type { NewAttachment } from './transactions.js';

// SPEC D6, docs/decisions/050: a signed-in customer opens a new request from the portal, in a
// queue the admin opened to them (`portal_create`). It is the ticket a mail from them would make
// — createTicket as the requester, so the Create scrips (autoreply, staff notices) run in its
// unit of work and our autoreply's Message-ID threads their mail replies into it — braked as
// their portal replies are (decision 041: the same hourly count and daily bytes).

/** A queue a customer may open requests in: its name and description only. */
export interface PortalQueueJson {
  id: number;
  name: string;
  description: string;
}

/** The queues the admin opened to new requests from the portal, by name. */
export async function portalQueues(conn: Conn): Promise<PortalQueueJson[]> {
  return conn
    .select({ id: queues.id, name: queues.name, description: queues.description })
    .from(queues)
    .where(eq(queues.portal_create, true))
    .orderBy(asc(queues.name));
}

export interface PortalRequestInput {
  /** Needed only when several queues take requests. */
  queue_id?: number;
  subject: string;
  body: string;
  attachments: NewAttachment[];
}

/** The words of the new-request page when no queue takes requests from the portal. */
export const BY_MAIL_ONLY = 'New requests are opened by e-mail: write to us and your message becomes a request here.';

/** POST /portal/requests: the new request, as its customer sees it. `now` moves the brakes' windows (tests). */
export async function openPortalRequest(
  db: Db,
  actor: Actor,
  input: PortalRequestInput,
  limits: PortalLimits,
  notify: NotifySettings,
  now = nowMs(db),
): Promise<PortalTicketJson> {
  if (isStaff(actor)) throw forbidden('Staff open tickets on the new-ticket page, not in the portal');
  const subject = input.subject.replace(/\s+/g, ' ').trim();
  if (subject === '') throw invalid('subject', 'Say in a few words what your request is about');
  const body = input.body.trim() === '' ? '' : input.body;
  if (body === '' && input.attachments.length === 0) throw invalid('body', 'Describe your request or attach a file');
  const size = checkFiles(input.attachments, limits);
  let sweep = false;
  // The files stored first, outside the unit of work (decision 061); a refusal deletes them.
  const ticket = await withStagedFiles(db, input.attachments, (attachments) =>
    transaction(db, async (tx) => {
      const open = await portalQueues(tx);
      if (open.length === 0) throw forbidden(BY_MAIL_ONLY);
      const queue =
        input.queue_id === undefined
          ? open.length === 1
            ? open[0]
            : undefined
          : open.find((q) => q.id === input.queue_id);
      if (!queue)
        throw invalid(
          'queue_id',
          input.queue_id === undefined ? 'Choose what your request is about' : 'Choose one of the topics offered',
        );
      sweep = await spendBrakes(tx, actor.id, size, limits, now);
      const { ticket } = await createTicket(
        tx,
        actor,
        { queue_id: queue.id, subject: subject.slice(0, 500), description: body, attachments },
        notify,
      );
      return ticket;
    }),
  );
  if (sweep) await sweepThrottle(db, now);
  return {
    id: ticket.id,
    subject: ticket.subject,
    status: ticket.status,
    created_at: ticket.created_at,
    updated_at: ticket.updated_at,
  };
}
