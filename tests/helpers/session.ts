import { expect } from 'vitest';
import { createToken } from '../../src/domain/auth.js';
import type { Role } from '../../src/domain/actor.js';
import { login, send } from './process.js';
import type { TestServer } from './server.js';

// Signing in, and the API tokens tests act with: got over HTTP as a person gets them, or minted
// in the store for a user who has no password (one the mail created).

/**
 * Signs in with JSON and returns the session cookie (`name=value`), expecting 200 and the cookie.
 * `at` is a server process's base URL, or an in-process server: then through its `api`, which
 * also holds the answer to the OpenAPI document.
 */
export async function signIn(at: string | Pick<TestServer, 'api'>, email: string, password: string): Promise<string> {
  if (typeof at === 'string') {
    const res = await login(at, email, password);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.cookie, 'a session cookie is set').toMatch(/^hxdesk_session=/);
    return res.cookie!;
  }
  const res = await at.api('POST', '/login', { token: null, body: { email, password } });
  expect(res.status, res.text).toBe(200);
  const line = res.headers.getSetCookie().find((c) => c.startsWith('hxdesk_session='));
  expect(line, 'a session cookie is set').toBeDefined();
  return line!.split(';')[0];
}

/**
 * An API token of the user's own, got as a person gets one: signed in at `base` (a server
 * process, or an in-process server's url), then POST /tokens with that session (201).
 */
export async function tokenFor(base: string, email: string, password: string, name = 'tests'): Promise<string> {
  const cookie = await signIn(base, email, password);
  const res = await send(base, 'POST', '/tokens', { name }, { cookie });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token;
}

/** An API token minted in the store for a user without a password (a requester the mail created), as if they had signed in. */
export async function mintedToken(
  s: Pick<TestServer, 'db'>,
  user: { id: number; email: string; name?: string; role?: Role },
): Promise<string> {
  return (
    await createToken(
      s.db,
      { id: user.id, email: user.email, name: user.name ?? user.email, role: user.role ?? 'requester' },
      'tests',
    )
  ).token;
}
