import type { CustomFieldJson } from '../../domain/customFields.js';
import type { Lookups } from '../../domain/lookups.js';
import type { NotAddedJson } from '../../domain/mailCc.js';
import type { ResponseJson } from '../../domain/responses.js';
import type { CustomerContext } from '../../domain/tickets/customer.js';
import type { TicketJson } from '../../domain/tickets/serialize.js';
import type { LinkedTicket } from '../../domain/linksPanel.js';
import type { TransactionJson } from '../../domain/transactions.js';
import type { TimeEntryJson } from '../../domain/timeWorked/entries.js';

// What the ticket page is given, in a file of its own (decision 046): the page (./show.tsx) and
// its parts (./properties.tsx) both read it, so no part imports the page back.

export interface TicketPageProps {
  ticket: TicketJson;
  transactions: TransactionJson[];
  lookups: Lookups;
  /** The custom fields that apply to the ticket's queue. */
  fields: CustomFieldJson[];
  staff: boolean;
  /** The statuses the ticket may be set to (SPEC B3): the domain's, handed over by the route. */
  statuses: readonly string[];
  /** SPEC D3: each status's color in the ticket's lifecycle. */
  colors?: Record<string, string>;
  /** SPEC D3: the Resolve button's status (none: no Resolve button). */
  resolveTo?: string;
  /** Who is looking (the writer of a reply is not mailed it). */
  actorId: number;
  /** The queue's Cc and AdminCc (user ids): watchers of every ticket in the queue. */
  queueWatchers: { cc: number[]; admin_cc: number[] };
  /** Staff: who mail named on the ticket and the Cc bounds left out (SPEC D0). */
  notAdded?: NotAddedJson[];
  /** Staff: the canned responses for this ticket's queue (own and shared), for the reply box. */
  responses?: Pick<ResponseJson, 'id' | 'name' | 'set_status'>[];
  /** MAX_ATTACHMENT_BYTES: what the files of one message may have in all. */
  maxAttachmentBytes?: number;
  /** SPEC C5: a message refused as stale (a plain form post), shown again with what came in. */
  reply?: ReplyDraft;
  /** SPEC D6: the reader's saved draft of this ticket, for the reply box (none: null or absent). */
  savedDraft?: { kind: 'reply' | 'note'; body: string } | null;
  /** SPEC D6: the newest entry the reader had seen before (null: never opened it); newer entries by others are marked New. */
  newAfter?: number | null;
  /** SPEC D6: `?quote=<id>`, the entry whose text the reply box starts with (a Reply link without JavaScript). */
  quote?: number;
  /** SPEC D6: the page opened with the subject form open (`?edit=subject`, the control without JavaScript). */
  editSubject?: boolean;
  /** SPEC D6: a deleted ticket's Restore sets this status (the one it had before deletion, or open). */
  restoreStatus?: string;
  /** Staff: the requester's other tickets and organization (SPEC D6, decision 055). */
  customer?: CustomerContext | null;
  /** Staff: the linked tickets' subjects and statuses, for the Links panel (SPEC D3). */
  linked?: LinkedTicket[];
  /** Staff, SPEC D4: the time entries tied to history entries (a TimeWorked's note, a reply's minutes), by transaction id. */
  timeEntries?: Map<number, TimeEntryJson>;
  /** SPEC D4: today's date in the reader's zone (the Add time form's default and latest date). */
  today?: string;
}

/** What a refused reply box had: its text and kind, and the entries that came in after its page. */
export interface ReplyDraft {
  body: string;
  internal: boolean;
  set_status?: string;
  /** SPEC D4: the minutes worked it had. */
  time_minutes?: number;
  files: number;
  stale: TransactionJson[];
}
