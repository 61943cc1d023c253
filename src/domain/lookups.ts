import { asc, inArray } from 'drizzle-orm';
import { cachedConfig } from '../db/configCache.js';
import { type Db, prepared, preparedForIds } from '../db/port.js';
import { queues, teamMembers, teams, users } from '../db/tables.js';
import { type Actor, isStaff } from './actor.js';
import { allCustomFields, type CustomFieldJson } from './customFields.js';
import { listSavedViews } from './savedViews.js';
import { slaPolicies } from './time/slaConfig.js';

export interface Named {
  id: number;
  name: string;
}
export interface Person {
  id: number;
  name: string;
  email: string;
  role: string;
  disabled: boolean;
}

export interface SlaPolicyName extends Named {
  warn_before_minutes: number;
}

/** What screens need to show names for ids and to fill pickers. Small tables, loaded for HTML only. */
export interface Lookups {
  queues: (Named & { team_id: number | null; mail_alias: string | null })[];
  teams: (Named & { members: number[] })[];
  users: Person[];
  customFields: CustomFieldJson[];
  /** SPEC D2: the SLA policies (staff), for their names and warning windows on clocks and badges. */
  slaPolicies: SlaPolicyName[];
  /** The reader's views and those shared with their teams (`shared`, by `owner_name`). */
  savedViews: { id: number; name: string; columns: string[]; shared: boolean; owner_name: string }[];
}

/**
 * Staff (for owner pickers and names) plus the users in `alsoUsers` (a ticket's requester,
 * the authors in its history): requesters can number in the hundred thousands, so they are
 * never loaded wholesale.
 */
export async function lookups(
  db: Db,
  actor: Actor,
  /** A promise: the other reads start now, the users by id once it is kept (the ticket page: its history names them). */
  alsoUsers: (number | null)[] | Promise<(number | null)[]> = [],
  /** `savedViews: false`: a screen that shows no view picker (the ticket page; issue 32) reads none. */
  need: { savedViews?: boolean } = {},
): Promise<Lookups> {
  const staff = isStaff(actor);
  // Independent reads, asked together: on PostgreSQL each is a round trip (decision 088).
  // The configuration among them through the process's cache (decision 067; a GET: one statement for all).
  const [memberRows, queueRows, teamRows, people, fields, policies, views] = await Promise.all([
    cachedConfig(db, 'lookups:members', async () => await allMembers(db).all()),
    cachedConfig(db, 'lookups:queues', async () => await queuesByName(db).all()),
    cachedConfig(db, 'lookups:teams', async () => await teamsByName(db).all()),
    staff ? staffAnd(db, alsoUsers) : customerView(db, actor, alsoUsers),
    staff ? allCustomFields(db) : [],
    staff ? slaPolicies(db) : [],
    // Saved views are for staff (decision 016): a requester has none to pick.
    !staff || need.savedViews === false ? [] : listSavedViews(db, actor),
  ]);
  return {
    queues: queueRows,
    teams: teamRows.map((t) => ({
      ...t,
      members: memberRows.filter((m) => m.team_id === t.id).map((m) => m.user_id),
    })),
    users: people,
    customFields: fields,
    slaPolicies: policies.map((p) => ({ id: p.id, name: p.name, warn_before_minutes: p.warn_before_minutes })),
    savedViews: views.map((v) => ({
      id: v.id,
      name: v.name,
      columns: v.columns,
      shared: v.shared,
      owner_name: v.owner_name,
    })),
  };
}

// Every page's lookups: compiled once (issue 32: building them cost more than running them).
const allMembers = prepared((db) =>
  db.select({ team_id: teamMembers.team_id, user_id: teamMembers.user_id }).from(teamMembers),
);
const queuesByName = prepared((db) =>
  db
    .select({ id: queues.id, name: queues.name, team_id: queues.team_id, mail_alias: queues.mail_alias })
    .from(queues)
    .orderBy(asc(queues.name)),
);
const teamsByName = prepared((db) =>
  db.select({ id: teams.id, name: teams.name }).from(teams).orderBy(asc(teams.name)),
);

const person = { id: users.id, name: users.name, email: users.email, role: users.role, disabled: users.disabled };
const staffPrepared = prepared((db) => staffQuery(db));
const peopleByIds = preparedForIds((db, inIds) => db.select(person).from(users).where(inIds(users.id)));
const byName = (a: Person, b: Person) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id);

/** Every agent and admin, through users_role_idx (exported for its plan check). */
export const staffQuery = (db: Db) =>
  db
    .select(person)
    .from(users)
    .where(inArray(users.role, ['admin', 'agent']));

/**
 * What a customer sees of the people on their ticket: themselves, and the others by name —
 * staff without their address (as the portal shows them), other customers as their mail does.
 */
async function customerView(
  db: Db,
  actor: Actor,
  asked: (number | null)[] | Promise<(number | null)[]>,
): Promise<Person[]> {
  const others = [...new Set(await asked)].filter((id): id is number => id !== null && id !== actor.id);
  const rows = await peopleByIds(db, others);
  return [
    { id: actor.id, name: actor.name, email: actor.email, role: actor.role, disabled: false },
    ...rows.map((u) => (u.role === 'requester' ? u : { ...u, email: '' })),
  ].sort(byName);
}

/**
 * Staff, and the users asked for by id; by name. Both read side by side (on PostgreSQL one round
 * trip, not two; issue 32): the ids' staff come twice and are kept once.
 */
async function staffAnd(db: Db, ids: (number | null)[] | Promise<(number | null)[]>): Promise<Person[]> {
  const byIds = async () =>
    peopleByIds(
      db,
      [...new Set(await ids)].filter((id): id is number => id !== null),
    );
  // The staff are kept with the configuration (decision 104): every write that changes a staff
  // member's row bumps its version, and the users by id (requesters) are read each time.
  const [staff, named] = await Promise.all([
    cachedConfig(db, 'lookups:staff', async () => await staffPrepared(db).all()),
    byIds(),
  ]);
  const known = new Set(staff.map((u) => u.id));
  return [...staff, ...named.filter((u) => !known.has(u.id))].sort(byName);
}
