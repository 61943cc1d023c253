import { type Conn, uniqueViolation } from '../db/port.js';
import { AppError } from './errors.js';

// Uniqueness is the database's to decide (SPEC C6): a write simply goes ahead, and the unique
// index it breaks is answered here, in one place, as 409 conflict naming the field. A check
// before the write would be a second, racy copy of the rule (two requests can both pass it).

type Values = Record<string, unknown>;
interface Meaning {
  path: string;
  message: (v: Values) => string;
}

const named = (what: string, field: string, label: string): Meaning => ({
  path: field,
  message: (v) =>
    v[field] == null
      ? `Another ${what} already has this ${label}`
      : `A ${what} with ${label} "${String(v[field])}" already exists`,
});

/** Each unique index (by its columns, as SQLite names them) and what it means to a person. */
const MEANINGS: Record<string, Meaning> = {
  'users.email': named('user', 'email', 'e-mail address'),
  'teams.name': named('team', 'name', 'the name'),
  'queues.name': named('queue', 'name', 'the name'),
  'queues.mail_alias': {
    path: 'mail_alias',
    message: (v) =>
      v.mail_alias == null
        ? 'Another queue already uses this mail alias'
        : `Another queue already uses the mail alias ${String(v.mail_alias)}`,
  },
  'templates.name': named('template', 'name', 'the name'),
  'scrips.key': named('scrip', 'key', 'the key'),
  'custom_fields.key': named('custom field', 'key', 'the key'),
  'calendars.name': named('calendar', 'name', 'the name'),
  'lifecycles.name': named('lifecycle', 'name', 'the name'),
  'sla_policies.name': {
    path: 'name',
    message: (v) =>
      v.name == null
        ? 'Another SLA policy already has this name'
        : `An SLA policy named "${String(v.name)}" already exists`,
  },
  // Canned responses (decision 048): one agent's own, and the shared ones (owner_id null).
  'canned_responses.owner_id,canned_responses.name': {
    path: 'name',
    message: (v) => `A canned response named "${String(v.name)}" already exists`,
  },
  'canned_responses.name': {
    path: 'name',
    message: (v) => `A shared canned response named "${String(v.name)}" already exists`,
  },
  'team_members.team_id,team_members.user_id': {
    path: 'user_id',
    message: (v) =>
      v.user_id == null
        ? 'That user is already a member of this team'
        : `User ${String(v.user_id)} is already a member of team ${String(v.team_id)}`,
  },
};

/**
 * The 409 for a broken unique index, naming the field in the message and in `details`
 * (`values` are what the write tried to store, for the message); undefined for other errors.
 * The store of `conn` reads its own driver's error (decision 065).
 */
export function uniqueConflict(conn: Conn, err: unknown, values: object = {}): AppError | undefined {
  const columns = uniqueViolation(conn, err);
  if (!columns) return undefined;
  const meaning = MEANINGS[columns.join(',')];
  if (!meaning) {
    const field = columns.map((c) => c.split('.').pop()!).join(', ');
    return new AppError(
      'conflict',
      `The ${field} is already taken`,
      field ? [{ path: field, message: 'Already taken' }] : undefined,
    );
  }
  const message = meaning.message(values as Values);
  return new AppError('conflict', message, [{ path: meaning.path, message }]);
}

/** Runs a write on the store of `conn`; a unique index it breaks becomes the 409 of `uniqueConflict`. */
export async function unique<T>(conn: Conn, values: object, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw uniqueConflict(conn, err, values) ?? err;
  }
}
