import { Hono } from 'hono';
import { lookups } from '../../domain/lookups.js';
import { revokePortalLinks } from '../../domain/portal.js';
import { createUser, deleteUser, getUser, listUsers, searchPeoplePage, updateUser } from '../../domain/users.js';
import { PeopleOptions } from '../../views/tickets/people.js';
import { UserPage, UsersPage } from '../../views/admin/people.js';
import type { AppEnv } from '../context.js';
import { actorOf, adminOf, adminScreen, dbOf, isHtmx, noContent, pathId, queryObject, readBody, respond, staffOf, validate } from '../respond.js';
import { CreateUserSchema, UpdateUserSchema, UserListQuery } from './schemas.js';

export function userRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const { q, limit, offset, ...filter } = validate(UserListQuery, queryObject(c));
    const db = dbOf(c);
    const actor = actorOf(c);
    const page = q !== undefined ? await searchPeoplePage(db, actor, q, { limit, offset }) : await listUsers(db, actor, filter, { limit, offset });
    // The people search behind the Requester, Cc and "add person" fields: htmx gets the suggestions.
    if (q !== undefined && isHtmx(c)) return respond(c, page, { title: 'Users', view: () => <PeopleOptions users={page.users} q={q} /> });
    return respond(c, page, { title: 'Users', view: adminScreen(c, () => <UsersPage page={page} query={{ q, limit, ...filter }} />) });
  });
  app.post('/', async (c) => {
    const actor = adminOf(c);
    const user = await createUser(dbOf(c), actor, await readBody(c, CreateUserSchema));
    return respond(c, user, { status: 201, title: user.email, location: `/users/${user.id}?saved` });
  });
  app.get('/:id', async (c) => {
    const user = await getUser(dbOf(c), actorOf(c), pathId(c));
    return respond(c, user, { title: user.email, view: adminScreen(c, async () => <UserPage user={user} lookups={await lookups(dbOf(c), actorOf(c), [user.id])} />) });
  });
  app.patch('/:id', async (c) => {
    const actor = adminOf(c);
    const id = pathId(c);
    return respond(c, await updateUser(dbOf(c), actor, id, await readBody(c, UpdateUserSchema)), { title: 'User', location: `/users/${id}?saved` });
  });
  // SPEC C2: every portal link handed to this user so far stops working (their portal_epoch moves on).
  app.post('/:id/portal-links/revoke', async (c) => {
    const id = pathId(c);
    await revokePortalLinks(dbOf(c), staffOf(c), id);
    return noContent(c, `/users/${id}`);
  });
  app.delete('/:id', async (c) => {
    await deleteUser(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/users');
  });
  return app;
}
