// What a filtered ticket list asks the store (SPEC B4): part of the store port (src/db/port.ts,
// decision 026), which every store's list (src/db/<dialect>/ticketList.ts) answers.
import type { PartsWanted } from './shared/pageParts.js';

/** What a filtered ticket list asks the store (SPEC B4, after the domain resolved names and views). */
export interface TicketListSpec {
  /** A customer: only the tickets they are a requester or Cc of. */
  customerId?: number;
  queue_id?: number;
  /** In one of these queues (none: no ticket). */
  queue_ids?: number[];
  status?: string[];
  /** SPEC D3: a status category where a name means different categories in different queues: one of these (queues, statuses) pairs. */
  statusByQueue?: { queue_ids: number[]; status: string[] }[];
  owner_id?: number | 'none';
  /** Owned by a member of this team. */
  owner_team_id?: number;
  ticket_team_id?: number | 'none';
  requester_id?: number;
  /** SPEC D4 (decision 079): created in [createdFrom, createdTo) (ISO instants; either may be absent). */
  createdFrom?: string;
  createdTo?: string;
  /** SPEC D4: one of these tickets (the domain's resolved set of a period; empty: no ticket). */
  idSet?: number[];
  /** SPEC D4: tickets with no tag. */
  untagged?: boolean;
  /** The requester's address is at this domain (lower-case, checked: letters, digits, dots, hyphens). */
  requester_domain?: string;
  /** SPEC D2: snoozed (snoozed_until set) or not. */
  snoozed?: boolean;
  /** SPEC D3: tickets with every one of these tags (`tag=a&tag=b`). */
  tags?: string[];
  /** SPEC D3: tickets with at least one of these tags (`tag_any=a,b`). */
  tagsAny?: string[];
  /** This ticket only (a `q` of `#123`: the domain asks for the ticket by its number). */
  id?: number;
  /** Every ticket but this one (the rest of such a list, without the ticket shown first). */
  exceptId?: number;
  /** Case-insensitive substring of the subject or of a message the reader may see. */
  q?: string;
  /**
   * Count the list only up to this many tickets (decision 085): a total that reaches it is
   * answered as it (`exact: false`: at least that many). Absent: counted exactly.
   */
  countUpTo?: number;
  /**
   * With q: the people whose name or address matched it (the domain's bounded people search,
   * decision 035); q also finds the tickets any of them is a requester of (ticket_watchers).
   */
  qRequesterIds?: number[];
  includeComments: boolean;
  /** Custom field values (exact, as stored). */
  cf: { field_id: number; value: string }[];
  sort: 'id' | 'created' | 'updated' | 'priority' | 'status' | 'owner' | 'queue' | 'due';
  /** SPEC D2 `sla=`: past a clock's due time (`breached`) or inside its warning window (`dueSoon`), at `now`. */
  sla?: { breached: boolean; dueSoon: boolean; now: string };
  /** For `status`, `owner`, `queue`: each value's place in the order (the domain's: lifecycle, names A→Z; decision 055). */
  ranks?: { values: (string | number)[]; nullRank: number };
  desc: boolean;
  limit: number;
  offset: number;
  /**
   * What to read beside the page, in the list's snapshot (decision 105): a store may answer them
   * (`parts`), or leave them to the domain, which then reads them itself.
   */
  parts?: PartsWanted;
}
