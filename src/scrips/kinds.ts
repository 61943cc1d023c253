import type { transactions } from '../db/tables.js';
import { categoryIn, isResolving, type Lifecycle } from '../domain/lifecycles/categories.js';
import type { NotifySettings } from './config.js';
import { isStaffRole } from './people.js';

// What the scrip engine (engine.ts) works with: the events it is given, the results it reports,
// and SPEC B6's catalogue of conditions and actions with each condition's test.

/** The outcome of one scrip whose condition matched a transaction (SPEC B6). */
export interface ScripResult {
  scrip_id: number;
  key: string;
  action: string;
  ok: boolean;
  notifications: number;
  error?: string;
  /**
   * SPEC D0: customers this action did not mail, and why (what a customer wrote reaches the
   * ticket's other customers only after a staff member has replied publicly on it).
   */
  withheld?: { recipients: string[]; reason: string };
}

/** What the engine sees of a freshly written transaction. */
export interface ScripEvent {
  ticketId: number;
  transactionId: number;
  type: string;
  actorId: number | null;
  field: string | null;
  oldValue: string | null;
  newValue: string | null;
  /** SPEC D0: a Comment that is mail from someone not on the ticket: staff hear of it as of a customer's reply. */
  outsideSender?: boolean;
  /** Set for mail that announced itself as automatic (Auto-Submitted, Precedence: bulk…): no autoreply. */
  autoSubmitted?: boolean;
  /** For inbound mail: the addresses it was sent to (To, Cc). They have it already, so it is not relayed to them. */
  alreadySent?: string[];
  /** The settings of the app the change came through: its URL, sender, portal key, own addresses. */
  notify: NotifySettings;
  /** The ticket's queue, when the caller knows it (its row): the scrips then need no read to find it. */
  queueId?: number;
  /** The actor's role, when the caller knows it (the actor is the signed-in user): not read again. */
  actorRole?: string;
  /** The transaction was written with no file: there are none to read. */
  noFiles?: boolean;
  /** The transaction's row as written (the template scope reads it no more). */
  transactionRow?: typeof transactions.$inferSelect;
}

/** A change a scrip asks for; the domain applies it as a transaction that runs no scrips. */
export interface ScripEffects {
  setStatus?: string;
  /** SPEC D3: tags to add (add_tag), each an AddTag entry when the ticket has it not yet. */
  addTags?: string[];
}

export const CONDITIONS = [
  'on_create',
  'on_transaction',
  'on_correspond',
  'on_customer_correspond',
  'on_comment',
  'on_status_change',
  'on_resolve',
  'on_reopen',
  'on_owner_change',
  'on_team_change',
  'on_queue_change',
  'on_priority_change',
  'on_staff_take_up',
  'on_sla_warning',
  'on_sla_breach',
  // SPEC D2: a ticket stayed in one of `config.statuses` for `config.hours` (an Idle entry of this scrip).
  'on_idle',
  'on_unsnooze',
  // SPEC D3: a tag was added (an AddTag entry); `config.if_tag` narrows it to one tag.
  'on_tag_added',
  // SPEC D4: a requester rated a resolve (a Rating entry); `config.max` (bad, the default, or okay) catches ratings at or below it.
  'on_rating',
] as const;
export type Condition = (typeof CONDITIONS)[number];

export const ACTIONS = [
  'autoreply_requester',
  'notify_requester',
  'notify_requesters_and_cc',
  'notify_owner',
  'notify_owner_and_admin_cc',
  'notify_staff_watchers',
  'notify_owner_or_staff_watchers',
  'notify_team',
  'notify_webhook',
  'open_inactive',
  'open_new',
  'set_status',
  // SPEC D2: mails the requesters the template `config.template` (default "Closing") and resolves the ticket.
  'close_idle',
  // SPEC D3: adds the tag `config.tag` (nothing when the ticket has it).
  'add_tag',
] as const;
export type Action = (typeof ACTIONS)[number];
/** Actions that send e-mail and therefore need a template (close_idle names its own: `config.template`). */
export const MAIL_ACTIONS: readonly Action[] = ACTIONS.filter(
  (a) =>
    a !== 'notify_webhook' &&
    a !== 'open_inactive' &&
    a !== 'open_new' &&
    a !== 'set_status' &&
    a !== 'close_idle' &&
    a !== 'add_tag',
);
/** The template close_idle mails when its config names none. */
export const CLOSING_TEMPLATE = 'Closing';

/** Not done (SPEC D3: an initial, active or waiting status of the ticket's lifecycle). */
const isActive = (l: Lifecycle, s: string | null) => {
  const c = s === null ? undefined : categoryIn(l, s);
  return c !== undefined && c !== 'inactive';
};

/** A condition's test: the event, the actor's role (read when asked), the scrip (its id and parsed config), and the ticket's lifecycle (read when asked). */
type ConditionTest = (
  e: ScripEvent,
  actorRole: () => Promise<string | undefined>,
  scrip: { id: number; config: Record<string, unknown> },
  lifecycle: () => Promise<Lifecycle>,
) => boolean | Promise<boolean>;

export const CONDITION_TESTS: Record<Condition, ConditionTest> = {
  on_create: (e) => e.type === 'Create',
  on_transaction: () => true,
  on_correspond: (e) => e.type === 'Correspond',
  // A reply from a requester or Cc (anyone not staff), by mail or the portal; and mail from an
  // outside sender (SPEC D0), which staff hear of as they would of a customer's reply.
  on_customer_correspond: async (e, role) =>
    (e.type === 'Correspond' && e.actorId !== null && !isStaffRole(await role())) ||
    (e.type === 'Comment' && e.outsideSender === true),
  // A note staff wrote: not an outside sender's mail, though it is kept as a Comment too.
  on_comment: (e) => e.type === 'Comment' && !e.outsideSender,
  on_status_change: (e) => e.type === 'Status',
  on_resolve: async (e, _r, _s, lc) =>
    e.type === 'Status' && e.newValue !== null && isResolving(await lc(), e.oldValue ?? '', e.newValue),
  on_reopen: async (e, _r, _s, lc) =>
    e.type === 'Status' && !isActive(await lc(), e.oldValue) && isActive(await lc(), e.newValue),
  on_owner_change: (e) => e.type === 'SetOwner',
  on_team_change: (e) => e.type === 'SetTeam',
  on_queue_change: (e) => e.type === 'SetQueue',
  on_priority_change: (e) => e.type === 'SetPriority',
  // SPEC D6: staff take a ticket up: a staff member's public reply (web, API or mail), or a Take
  // (the owner set to the one who set it). Not a requester's reply, not an internal note.
  on_staff_take_up: async (e, role) =>
    e.actorId !== null &&
    (e.type === 'Correspond' || (e.type === 'SetOwner' && e.newValue === String(e.actorId))) &&
    isStaffRole(await role()),
  // SPEC D2: a clock's warning or breach (an `SLA` entry by its timer); `config.clock` narrows it to one clock.
  on_sla_warning: (e, _role, scrip) => slaEntry(e, 'warning', scrip.config),
  on_sla_breach: (e, _role, scrip) => slaEntry(e, 'breached', scrip.config),
  // SPEC D2: the Idle entry a timer wrote for this very scrip (other idle scrips have their own).
  on_idle: (e, _role, scrip) => e.type === 'Idle' && e.newValue === String(scrip.id),
  // SPEC D2: a snoozed ticket woke (its time came, its customer wrote, or staff woke it).
  on_unsnooze: (e) => e.type === 'Unsnooze',
  // SPEC D3: the stored if_tag is normalized (decision 074), as the entry's tag is.
  on_tag_added: (e, _role, scrip) =>
    e.type === 'AddTag' && (scrip.config.if_tag === undefined || scrip.config.if_tag === e.newValue),
  on_rating: (e, _role, scrip) =>
    e.type === 'Rating' &&
    ratingRank(e.newValue) >= ratingRank(typeof scrip.config.max === 'string' ? scrip.config.max : 'bad'),
};

/** SPEC D4: ratings from best to worst; a rating "at or below" `max` ranks at least as high. */
export const RATING_ORDER = ['good', 'okay', 'bad'] as const;
const ratingRank = (r: string | null) => RATING_ORDER.indexOf(r as (typeof RATING_ORDER)[number]);

const slaEntry = (e: ScripEvent, step: string, config: Record<string, unknown>) =>
  e.type === 'SLA' && e.newValue === step && (config.clock === undefined || config.clock === e.field);
