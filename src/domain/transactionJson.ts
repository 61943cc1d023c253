import type { ScripResult } from '../scrips/kinds.js';

// A history entry as readers receive it, in a file of its own (decision 046): the typed errors
// carry entries (StaleError) and the transactions module reads them, so neither imports the other.

export interface AttachmentJson {
  id: number;
  filename: string;
  content_type: string;
  size: number;
}
export interface TransactionJson {
  id: number;
  ticket_id: number;
  type: string;
  creator_id: number | null;
  body: string | null;
  field: string | null;
  old_value: string | null;
  new_value: string | null;
  message_id: string | null;
  attachments: AttachmentJson[];
  scrip_results: ScripResult[];
  /** SPEC D0: a Comment that is mail from someone not on the ticket (its creator); staff only ever see it. */
  outside_sender: boolean;
  /** SPEC D3: the merged ticket this entry came from ("from #id"), or null (decision 076). */
  merged_from: number | null;
  created_at: string;
}
