import type { TicketListSpec } from '../ticketListSpec.js';

// A list's total and its page, which must agree (decision 096).

export type TotalAndPage = { total: number; exact: boolean; page: unknown[] };

/**
 * Whether a page cannot be the page of its total: an exact total says how many rows the page
 * holds; a bounded one ("1,000+") that the page is full up to it.
 */
export function contradicts(f: Pick<TicketListSpec, 'limit' | 'offset'>, r: TotalAndPage): boolean {
  const shown = Math.max(0, Math.min(f.limit, r.total - f.offset));
  return r.exact ? r.page.length !== shown : r.page.length < shown;
}
