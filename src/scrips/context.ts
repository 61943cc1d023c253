import { and, eq, sql } from 'drizzle-orm';
import { type Conn, inUnitOfWork, prepared } from '../db/port.js';
import { userById } from './people.js';
import { cachedConfig } from '../db/configCache.js';
import {
  customFields,
  queues,
  teams,
  ticketCustomValues,
  tickets,
  ticketWatchers,
  transactions,
  users,
} from '../db/tables.js';

// The variables a template sees (SPEC B3): `ticket` (with queue, owner, team, requester, url),
// `transaction` (with creator) and `scrip`. Plain data only: no functions, no secrets.

export interface Person {
  id: number;
  name: string;
  email: string;
}
export interface TicketScope {
  id: number;
  subject: string;
  description: string;
  status: string;
  priority: number;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  custom_fields: Record<string, string | number>;
  queue: { id: number; name: string; description: string; mail_alias: string | null };
  owner: Person | null;
  team: { id: number; name: string; description: string } | null;
  requester: Person | null;
  url: string;
  /**
   * SPEC D4: in a requester's copy of the mail about a resolve, in a queue that asks for ratings,
   * the signed link to rate it (decision 082); empty text otherwise.
   */
  csat_url: string;
  requesters: Person[];
  cc: Person[];
  admin_cc: Person[];
}
export interface TransactionScope {
  id: number;
  type: string;
  body: string | null;
  field: string | null;
  old_value: string | null;
  new_value: string | null;
  /** SPEC D0: mail from someone not on the ticket, kept as an internal Comment. */
  outside_sender: boolean;
  created_at: string;
  creator: Person | null;
}
export interface Scope {
  ticket: TicketScope;
  transaction: TransactionScope | null;
  scrip: { id: number; key: string; description: string } | null;
  /** The person this copy of a mail goes to (absent for webhooks). */
  recipient?: Person;
}

// Compiled once: the scope is built for every notification a change sends.
const id = sql.placeholder('id');
const descriptionQuery = prepared((db) =>
  db
    .select({ body: transactions.body })
    .from(transactions)
    .where(and(eq(transactions.ticket_id, id), eq(transactions.type, 'Create'))),
);
const personQuery = prepared((db) =>
  db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, id)),
);
const ticketQuery = prepared((db) => db.select().from(tickets).where(eq(tickets.id, id)));
const queueQuery = prepared((db) => db.select().from(queues).where(eq(queues.id, id)));
/** A queue's row; kept by the process for the configuration's version inside a unit of work (decision 067). */
export const queueRowOf = (conn: Conn, queueId: number) =>
  cachedConfig(conn, `queue:${queueId}`, async () => await queueQuery(conn).get({ id: queueId }));
const teamQuery = prepared((db) => db.select().from(teams).where(eq(teams.id, id)));
const valuesQuery = prepared((db) =>
  db
    .select({ key: customFields.key, type: customFields.type, value: ticketCustomValues.value })
    .from(ticketCustomValues)
    .innerJoin(customFields, eq(customFields.id, ticketCustomValues.field_id))
    .where(eq(ticketCustomValues.ticket_id, id)),
);
const watchersQuery = prepared((db) =>
  db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(ticketWatchers)
    .innerJoin(users, eq(users.id, ticketWatchers.user_id))
    .where(and(eq(ticketWatchers.ticket_id, id), eq(ticketWatchers.role, sql.placeholder('role'))))
    .orderBy(ticketWatchers.position, ticketWatchers.created_at, users.id),
);
const transactionQuery = prepared((db) => db.select().from(transactions).where(eq(transactions.id, id)));

/** The parts of a ticket scope that cost a query of their own; the rest comes with the ticket row. */
export const TICKET_PARTS = [
  'description',
  'custom_fields',
  'owner',
  'team',
  'requester',
  'requesters',
  'cc',
  'admin_cc',
] as const;
export type TicketPart = (typeof TICKET_PARTS)[number];

/** What a template reads of the scope: the ticket parts, and whether it names the transaction's creator. */
export interface ScopeNeeds {
  ticket: ReadonlySet<TicketPart> | 'all';
  creator: boolean;
}
export const ALL_NEEDS: ScopeNeeds = { ticket: 'all', creator: true };

async function person(conn: Conn, userId: number | null): Promise<Person | null> {
  if (userId === null) return null;
  // Inside a unit of work through its users read once (decision 067); a person is only these three.
  if (inUnitOfWork(conn)) {
    const u = await userById(conn, userId);
    return u ? { id: u.id, name: u.name, email: u.email } : null;
  }
  return (await personQuery(conn).get({ id: userId })) ?? null;
}

/**
 * The explicit scope loader (decision 026): the template's variables are known before it is
 * rendered (Liquid's static analysis, src/scrips/templates.ts), so only the parts it reads are
 * loaded — a description, custom fields, people — each with one query, and the template then
 * renders against plain data. Loaded parts are kept, so the scrips of one change share them.
 */
export class ScopeLoader {
  private ticket: Partial<TicketScope> | undefined;
  private transaction: TransactionScope | null | undefined;
  private creatorLoaded = false;
  private row: typeof tickets.$inferSelect | undefined;
  private txnRow: typeof transactions.$inferSelect | undefined;

  /**
   * `publicUrl`: this server's (NotifySettings), for the staff page's `ticket.url`. `known`: rows
   * the caller has already (the transaction it just wrote; the ticket's row, read with its people):
   * not read again (decision 067).
   */
  constructor(
    private readonly conn: Conn,
    private readonly ticketId: number,
    private readonly transactionId: number | null,
    private readonly publicUrl: string,
    private readonly known: {
      transaction?: typeof transactions.$inferSelect;
      ticket?: () => Promise<typeof tickets.$inferSelect | undefined>;
    } = {},
  ) {}

  /** The scope with at least the parts `needs` names (plain values: no getters, no queries left). */
  async load(needs: ScopeNeeds): Promise<{ ticket: TicketScope; transaction: TransactionScope | null }> {
    const { conn } = this;
    if (!this.ticket) {
      const t = this.known.ticket ? await this.known.ticket() : await ticketQuery(conn).get({ id: this.ticketId });
      if (!t) throw new Error(`ticket ${this.ticketId} not found`);
      const q = (await queueRowOf(conn, t.queue_id))!;
      this.row = t;
      this.ticket = {
        id: t.id,
        subject: t.subject,
        status: t.status,
        priority: t.priority,
        created_at: t.created_at,
        updated_at: t.updated_at,
        resolved_at: t.resolved_at,
        queue: { id: q.id, name: q.name, description: q.description, mail_alias: q.mail_alias },
        url: `${this.publicUrl}/tickets/${t.id}`,
        csat_url: '',
      };
    }
    const t = this.row!;
    const scope = this.ticket;
    for (const part of needs.ticket === 'all' ? TICKET_PARTS : needs.ticket) {
      if (part in scope) continue;
      switch (part) {
        case 'description':
          // The description is the body of the ticket's Create: known when that is the transaction at hand.
          scope.description =
            this.known.transaction?.type === 'Create' && this.known.transaction.ticket_id === t.id
              ? (this.known.transaction.body ?? '')
              : ((await descriptionQuery(conn).get({ id: t.id }))?.body ?? '');
          break;
        case 'custom_fields': {
          const cf: Record<string, string | number> = {};
          for (const v of await valuesQuery(conn).all({ id: t.id }))
            cf[v.key] = v.type === 'number' ? Number(v.value) : v.value;
          scope.custom_fields = cf;
          break;
        }
        case 'owner':
          scope.owner = await person(conn, t.owner_id);
          break;
        case 'team': {
          const teamId = t.team_id;
          const team =
            teamId === null
              ? undefined
              : await cachedConfig(conn, `team:${teamId}`, async () => await teamQuery(conn).get({ id: teamId }));
          scope.team = team ? { id: team.id, name: team.name, description: team.description } : null;
          break;
        }
        case 'requester':
          scope.requester = await person(conn, t.requester_id);
          break;
        case 'requesters':
        case 'cc':
        case 'admin_cc':
          scope[part] = await watchersQuery(conn).all({ id: t.id, role: part === 'requesters' ? 'requester' : part });
          break;
      }
    }
    if (this.transaction === undefined) {
      const x =
        this.transactionId === null
          ? undefined
          : this.known.transaction?.id === this.transactionId
            ? this.known.transaction
            : await transactionQuery(conn).get({ id: this.transactionId });
      this.txnRow = x;
      this.transaction = x
        ? ({
            id: x.id,
            type: x.type,
            body: x.body,
            field: x.field,
            old_value: x.old_value,
            new_value: x.new_value,
            outside_sender: x.outside_sender,
            created_at: x.created_at,
          } as TransactionScope)
        : null;
    }
    if (needs.creator && this.transaction && !this.creatorLoaded) {
      this.transaction.creator = await person(conn, this.txnRow!.creator_id);
      this.creatorLoaded = true;
    }
    return { ticket: { ...scope } as TicketScope, transaction: this.transaction ? { ...this.transaction } : null };
  }
}

/** The whole scope of a ticket and one of its transactions (template previews, webhooks). */
export async function fullScope(conn: Conn, ticketId: number, transactionId: number | null, publicUrl: string) {
  return new ScopeLoader(conn, ticketId, transactionId, publicUrl).load(ALL_NEEDS);
}

/** The same ticket scope with another `url` (customer mail links to the reader's portal page) and rating link. */
export const withUrl = (ticket: TicketScope, url: string, csatUrl = ''): TicketScope => ({
  ...ticket,
  url,
  csat_url: csatUrl,
});

/** The time of every date in the sample scope: a fixed instant (a sample reads no clock). */
const SAMPLE_TIME = '2030-01-07T09:30:00.000Z';

/**
 * A complete scope with every variable present, for checking templates when they are saved (and
 * previewing them): its `ticket.url` is on `publicUrl` when given, this server's.
 */
export function sampleScope(customFieldKeys: string[], publicUrl = 'https://hxdesk.example'): Scope {
  const someone = (id: number, name: string): Person => ({ id, name, email: `${name.toLowerCase()}@example.com` });
  const now = SAMPLE_TIME;
  return {
    ticket: {
      id: 123,
      subject: 'Printer on fire',
      description: 'It smokes.',
      status: 'open',
      priority: 10,
      created_at: now,
      updated_at: now,
      resolved_at: now,
      custom_fields: Object.fromEntries(customFieldKeys.map((k) => [k, 'value'])),
      queue: { id: 1, name: 'General', description: 'Default queue', mail_alias: 'support@example.com' },
      owner: someone(2, 'Olivia'),
      team: { id: 1, name: 'Support', description: 'First line' },
      requester: someone(3, 'Rita'),
      url: `${publicUrl}/tickets/123`,
      csat_url: `${publicUrl}/csat/sample`,
      requesters: [someone(3, 'Rita')],
      cc: [someone(4, 'Carl')],
      admin_cc: [someone(5, 'Ada')],
    },
    transaction: {
      id: 456,
      type: 'Correspond',
      body: 'We are on it.',
      field: 'status',
      old_value: 'new',
      new_value: 'open',
      outside_sender: false,
      created_at: now,
      creator: someone(2, 'Olivia'),
    },
    scrip: { id: 1, key: 'sample_scrip', description: 'A sample scrip' },
    recipient: someone(3, 'Rita'),
  };
}
