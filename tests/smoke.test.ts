import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

describe('healthz', () => {
  it('answers ok without signing in', async () => {
    const res = await s.api('GET', '/healthz', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });
});
