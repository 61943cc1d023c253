import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// The per-account sign-in limit must hold when the guesses arrive all at once: each attempt is
// counted before its password is hashed (~100 ms), so at most LOGIN_MAX_FAILURES are checked.

const LIMIT = 5;
const PASSWORD = 'the-right-password';
let s: TestServer;
beforeAll(async () => {
  s = await startServer({ LOGIN_MAX_FAILURES: String(LIMIT), LOGIN_MAX_ATTEMPTS_PER_IP: '1000' });
});
afterAll(async () => {
  await s.close();
});

let seq = 0;
async function agentWithPassword() {
  const email = `brake${++seq}@example.com`;
  const res = await s.api('POST', '/users', {
    body: { email, name: `Brake ${seq}`, role: 'agent', password: PASSWORD },
  });
  expect(res.status).toBe(201);
  return email;
}
const login = (email: string, password: string) => s.api('POST', '/login', { token: null, body: { email, password } });

describe('per-account sign-in limit under concurrency', () => {
  it(`60 simultaneous wrong guesses: ${LIMIT} are checked (401), the other 55 are 429; then the right password is 429 too`, async () => {
    const email = await agentWithPassword();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => login(email, `guess-number-${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((x) => x === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((x) => x === 429)).toHaveLength(60 - LIMIT);
    for (const a of answers.filter((x) => x.status === 429)) {
      expectError(a, 429, 'rate_limited');
      expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    const right = await login(email, PASSWORD);
    expectError(right, 429, 'rate_limited');
    expect(right.headers.getSetCookie().some((c) => c.startsWith('hxdesk_session='))).toBe(false);
  });

  it('an unknown account is braked the same way (no hint that it does not exist)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => login('nobody-at-all@example.com', 'whatever-it-is')),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(LIMIT);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(20 - LIMIT);
  });

  it('the brake on one account leaves other accounts alone', async () => {
    const braked = await agentWithPassword();
    await Promise.all(Array.from({ length: 10 }, () => login(braked, 'wrong-wrong-wrong')));
    expect((await login(braked, PASSWORD)).status).toBe(429);
    const other = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(other.status).toBe(200);
  });

  it('simultaneous right passwords all sign in, and the count starts again afterwards', async () => {
    const email = await agentWithPassword();
    const answers = await Promise.all(Array.from({ length: LIMIT }, () => login(email, PASSWORD)));
    expect(answers.map((a) => a.status)).toEqual(Array(LIMIT).fill(200));
    for (let i = 0; i < LIMIT - 1; i++) expect((await login(email, 'not-it-at-all')).status).toBe(401);
    expect((await login(email, PASSWORD)).status).toBe(200);
  });
});
