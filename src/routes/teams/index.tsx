import { Hono } from 'hono';
import { z } from 'zod';
import { addMember, createTeam, deleteTeam, getTeam, listTeams, removeMember, updateTeam } from '../../domain/teams.js';
import { lookups } from '../../domain/lookups.js';
import { zId, zText } from '../../domain/validation.js';
import { TeamPage, TeamsPage } from '../../views/admin/people.js';
import type { AppEnv } from '../context.js';
import { actorOf, adminOf, adminScreen, dbOf, noContent, pathId, readBody, respond } from '../respond.js';

const CreateTeamSchema = z.strictObject({ name: zText(100, 1), description: zText(2000).optional() });
const UpdateTeamSchema = CreateTeamSchema.partial();
const MemberSchema = z.strictObject({ user_id: zId });

export function teamRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const teams = await listTeams(dbOf(c), actorOf(c));
    return respond(c, { teams }, { title: 'Teams', view: adminScreen(c, async () => <TeamsPage teams={teams} lookups={await lookups(dbOf(c), actorOf(c), teams.flatMap((t) => t.members))} />) });
  });
  app.post('/', async (c) => {
    const actor = adminOf(c);
    const team = await createTeam(dbOf(c), actor, await readBody(c, CreateTeamSchema));
    return respond(c, team, { status: 201, title: team.name, location: `/teams/${team.id}?saved` });
  });
  app.get('/:id', async (c) => {
    const team = await getTeam(dbOf(c), actorOf(c), pathId(c));
    return respond(c, team, { title: team.name, view: adminScreen(c, async () => <TeamPage team={team} lookups={await lookups(dbOf(c), actorOf(c), team.members)} />) });
  });
  app.patch('/:id', async (c) => {
    const actor = adminOf(c);
    const id = pathId(c);
    return respond(c, updateTeam(dbOf(c), actor, id, await readBody(c, UpdateTeamSchema)), { title: 'Team', location: `/teams/${id}?saved` });
  });
  app.delete('/:id', async (c) => {
    await deleteTeam(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/teams');
  });
  app.post('/:id/members', async (c) => {
    const actor = adminOf(c);
    const id = pathId(c);
    const { user_id } = await readBody(c, MemberSchema);
    return respond(c, addMember(dbOf(c), actor, id, user_id), { status: 201, title: 'Member added', location: `/teams/${id}?saved` });
  });
  app.delete('/:id/members/:userId', async (c) => {
    const id = pathId(c);
    await removeMember(dbOf(c), actorOf(c), id, pathId(c, 'userId'));
    return noContent(c, `/teams/${id}`);
  });
  return app;
}
