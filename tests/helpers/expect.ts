import { expect } from 'vitest';

/** The paths of a SPEC B5 error's details (none when the answer carries none). */
export const errorPaths = (res: { body: any }): string[] =>
  (res.body?.error?.details ?? []).map((d: { path: string }) => d.path);

/**
 * A SPEC B5 error: the status, a JSON body (when the answer's headers are at hand), the code, a
 * message that says something, and the detail paths: a list is exactly these paths, in order; a
 * single path is one of them.
 */
export function expectError(
  res: { status: number; body: any; text?: string; headers?: Headers },
  status: number,
  code: string,
  paths?: string[] | string,
) {
  expect(res.status, res.text ?? JSON.stringify(res.body)).toBe(status);
  if (res.headers) expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if (Array.isArray(paths)) expect(errorPaths(res)).toEqual(paths);
  else if (paths !== undefined) expect(errorPaths(res)).toContain(paths);
}
