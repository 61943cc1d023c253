import type { TicketListSpec } from '../../src/db/ticketListSpec.js';

/** A staff list's spec as the store gets it (newest update first, 50 a page), with `more` on top. */
export const listSpecOf = (more: Partial<TicketListSpec> = {}): TicketListSpec => ({
  includeComments: true,
  cf: [],
  sort: 'updated',
  desc: true,
  limit: 50,
  offset: 0,
  ...more,
});
