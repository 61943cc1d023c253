import { cachedConfig, configTransaction } from '../db/configCache.js';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { changes, type Conn, type Db, prepared, first, one } from '../db/port.js';
import { dashboards, queues, teamMembers, teams, tickets } from '../db/tables.js';
import { type Actor, requireAdmin, requireStaff } from './actor.js';
import { nowIso } from './clock.js';
import { invalid, notFound } from './errors.js';
import { unique } from './unique.js';
import { getUserRow } from './users.js';

type TeamRow = typeof teams.$inferSelect;
export interface TeamJson {
  id: number;
  name: string;
  description: string;
  members: number[];
  created_at: string;
  updated_at: string;
}

async function withMembers(db: Db, rows: TeamRow[]): Promise<TeamJson[]> {
  if (rows.length === 0) return [];
  const members = await db
    .select()
    .from(teamMembers)
    .where(
      inArray(
        teamMembers.team_id,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(teamMembers.user_id));
  return rows.map((t) => ({
    id: t.id,
    name: t.name,
    description: t.description,
    members: members.filter((m) => m.team_id === t.id).map((m) => m.user_id),
    created_at: t.created_at,
    updated_at: t.updated_at,
  }));
}

const teamById = prepared((db) =>
  db
    .select()
    .from(teams)
    .where(eq(teams.id, sql.placeholder('id'))),
);
/** A team's row; kept by the process for the configuration's version inside a unit of work (decision 067). */
export const getTeamRow = async (db: Conn, id: number): Promise<TeamRow | undefined> =>
  await cachedConfig(db, `team:${id}`, async () => await teamById(db).get({ id }));

export async function teamExists(db: Conn, id: number): Promise<boolean> {
  return (await getTeamRow(db, id)) !== undefined;
}

export async function listTeams(db: Db, actor: Actor): Promise<TeamJson[]> {
  requireStaff(actor);
  return withMembers(db, await db.select().from(teams).orderBy(asc(teams.name)));
}

export async function getTeam(db: Db, actor: Actor, id: number): Promise<TeamJson> {
  requireStaff(actor);
  const row = await first(db.select().from(teams).where(eq(teams.id, id)));
  if (!row) throw notFound('Team', id);
  return (await withMembers(db, [row]))[0];
}

export interface TeamInput {
  name: string;
  description?: string;
}

export async function createTeam(db: Db, actor: Actor, input: TeamInput): Promise<TeamJson> {
  requireAdmin(actor);
  const now = nowIso(db);
  const row = await configTransaction(db, (tx) =>
    unique(
      db,
      input,
      async () =>
        await one(
          tx
            .insert(teams)
            .values({ name: input.name, description: input.description ?? '', created_at: now, updated_at: now })
            .returning(),
        ),
    ),
  );
  return (await withMembers(db, [row]))[0];
}

export async function updateTeam(db: Db, actor: Actor, id: number, input: Partial<TeamInput>): Promise<TeamJson> {
  requireAdmin(actor);
  await getTeam(db, actor, id);
  const row = await configTransaction(db, (tx) =>
    unique(
      db,
      input,
      async () =>
        await one(
          tx
            .update(teams)
            .set({ ...input, updated_at: nowIso(db) })
            .where(eq(teams.id, id))
            .returning(),
        ),
    ),
  );
  return (await withMembers(db, [row]))[0];
}

/** SPEC B3: deleting a team clears team_id on queues, tickets and dashboards. */
export async function deleteTeam(db: Db, actor: Actor, id: number): Promise<void> {
  requireAdmin(actor);
  await getTeam(db, actor, id);
  await configTransaction(db, async (tx) => {
    await tx.update(queues).set({ team_id: null }).where(eq(queues.team_id, id));
    await tx.update(tickets).set({ team_id: null }).where(eq(tickets.team_id, id));
    await tx.update(dashboards).set({ team_id: null }).where(eq(dashboards.team_id, id));
    await tx.delete(teams).where(eq(teams.id, id));
  });
}

const memberIs = (teamId: number, userId: number) =>
  and(eq(teamMembers.team_id, teamId), eq(teamMembers.user_id, userId));

export interface MembershipJson {
  team_id: number;
  user_id: number;
  created_at: string;
}

export async function addMember(db: Db, actor: Actor, teamId: number, userId: number): Promise<MembershipJson> {
  requireAdmin(actor);
  await getTeam(db, actor, teamId);
  const user = await getUserRow(db, userId);
  if (!user) throw invalid('user_id', `User ${userId} does not exist`);
  if (user.disabled) throw invalid('user_id', `User ${userId} is disabled`);
  return unique(
    db,
    { team_id: teamId, user_id: userId },
    async () =>
      await configTransaction(db, (tx) =>
        one(
          tx
            .insert(teamMembers)
            .values({ team_id: teamId, user_id: userId, created_at: nowIso(db) })
            .returning(),
        ),
      ),
  );
}

export async function removeMember(db: Db, actor: Actor, teamId: number, userId: number): Promise<void> {
  requireAdmin(actor);
  await getTeam(db, actor, teamId);
  const res = await configTransaction(db, (tx) => tx.delete(teamMembers).where(memberIs(teamId, userId)));
  if (changes(res) === 0) throw notFound(`User ${userId} in team`, teamId);
}
