import type { ScripResult } from '../scrips/kinds.js';
import { type Actor, isStaff } from './actor.js';
import { forbidden } from './errors.js';
import type { TransactionJson } from './transactionJson.js';

// SPEC D6, docs/decisions/050: what a requester reads through the staff API is shaped here, in
// the domain, for every route that answers them — their own tickets and the public entries, with
// nothing of the staff side: no owner, team, AdminCc, priority, custom field, scrip result or
// queue internals. Staff get everything unchanged.

/** The ticket fields only staff read (absent from a requester's ticket). */
export const STAFF_TICKET_FIELDS = [
  'owner_id',
  'team_id',
  'priority',
  'custom_fields',
  'admin_cc',
  'sla',
  'next_due_at',
  'snoozed_until',
  'replied_while_snoozed',
  'links',
  // SPEC D3: tags are staff's words for a ticket ("angry", "refund-abuse"): not the customer's (decision 074).
  'tags',
  // SPEC D4: time worked and the customer's rating are staff's (decisions 081, 082).
  'time_worked_minutes',
  'csat',
] as const;
/** The queue fields only staff read (absent from a requester's queue). */
export const STAFF_QUEUE_FIELDS = [
  'mail_alias',
  'team_id',
  'keep_mail_cc',
  'signature',
  'mail_cc_per_message',
  'mail_cc_per_ticket',
  'lifecycle_id',
  'csat_enabled',
  'cc',
  'admin_cc',
] as const;
/** The history entries a customer sees: what was written to them or by them (decision 020). */
export const CUSTOMER_TYPES: readonly string[] = ['Create', 'Correspond'];
/** A ticket in this status is not shown to its customers at all (decision 050). */
export const HIDDEN_STATUS = 'deleted';

export type StaffTicketField = (typeof STAFF_TICKET_FIELDS)[number];
/** What a customer reads of an object whose fields `K` are staff's: those may be absent. */
export type CustomerShape<T, K extends string> = Omit<T, K> & Partial<Pick<T, K & keyof T>>;

const omit = <T extends object>(o: T, keys: readonly string[]): T =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k))) as T;

/** A ticket as this actor may read it. */
export function ticketFor<T extends object>(actor: Actor, t: T): CustomerShape<T, StaffTicketField> {
  return isStaff(actor) ? t : omit(t, STAFF_TICKET_FIELDS);
}

/** A queue as this actor may read it. */
export function queueFor<Q extends object>(actor: Actor, q: Q): Q {
  return isStaff(actor) ? q : omit(q, STAFF_QUEUE_FIELDS);
}

/** A history as this actor may read it: customers get the public entries, without scrip results. */
export function transactionsFor(actor: Actor, list: TransactionJson[]): TransactionJson[] {
  if (isStaff(actor)) return list;
  return list.filter((t) => CUSTOMER_TYPES.includes(t.type)).map((t) => omit(t, ['scrip_results']));
}

/** A write's scrip results: staff information (who was mailed, what failed), absent for customers. */
export function scripResultsFor<T extends { scrip_results: ScripResult[] }>(
  actor: Actor,
  change: T,
): Omit<T, 'scrip_results'> & { scrip_results?: ScripResult[] } {
  return isStaff(actor) ? change : omit(change, ['scrip_results']);
}

/** The list filters and sorts that would tell a customer what staff fields hold: refused. */
export function refuseStaffFilters(
  actor: Actor,
  f: {
    owner_id?: unknown;
    team_id?: unknown;
    ticket_team_id?: unknown;
    my_teams?: unknown;
    snoozed?: unknown;
    cf?: object;
    sort?: string;
    sla?: unknown;
    tag?: unknown;
    tag_any?: unknown;
    created_from?: unknown;
    created_to?: unknown;
    resolved_from?: unknown;
    resolved_to?: unknown;
    untagged?: unknown;
  },
): void {
  if (isStaff(actor)) return;
  for (const k of [
    'owner_id',
    'team_id',
    'ticket_team_id',
    'my_teams',
    'snoozed',
    'sla',
    'tag',
    'tag_any',
    'created_from',
    'created_to',
    'resolved_from',
    'resolved_to',
    'untagged',
  ] as const)
    if (f[k] !== undefined) throw forbidden(`Requesters cannot filter by ${k}`);
  if (f.cf && Object.keys(f.cf).length > 0) throw forbidden('Requesters cannot filter by custom fields');
  if (f.sort?.replace(/^-/, '') === 'priority') throw forbidden('Requesters cannot sort by priority');
  if (f.sort?.replace(/^-/, '') === 'due') throw forbidden('Requesters cannot sort by due time');
}
