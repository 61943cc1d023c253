import { Hono } from 'hono';
import { createUser, deleteUser, getUser, listUsers, updateUser } from '../../domain/users.js';
import type { AppEnv } from '../context.js';
import { actorOf, adminOf, dbOf, noContent, pathId, queryObject, readBody, respond, validate } from '../respond.js';
import { CreateUserSchema, UpdateUserSchema, UserListQuery } from './schemas.js';

export function userRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => respond(c, { users: listUsers(dbOf(c), actorOf(c), validate(UserListQuery, queryObject(c))) }, { title: 'Users' }));
  app.post('/', async (c) => {
    const actor = adminOf(c);
    const user = await createUser(dbOf(c), actor, await readBody(c, CreateUserSchema));
    return respond(c, user, { status: 201, title: user.email, location: `/users/${user.id}` });
  });
  app.get('/:id', (c) => respond(c, getUser(dbOf(c), actorOf(c), pathId(c)), { title: 'User' }));
  app.patch('/:id', async (c) => {
    const actor = adminOf(c);
    const id = pathId(c);
    return respond(c, await updateUser(dbOf(c), actor, id, await readBody(c, UpdateUserSchema)), { title: 'User', location: `/users/${id}` });
  });
  app.delete('/:id', (c) => {
    deleteUser(dbOf(c), actorOf(c), pathId(c));
    return noContent(c, '/users');
  });
  return app;
}
