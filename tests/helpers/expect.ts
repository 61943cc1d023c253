import { expect } from 'vitest';

/** A SPEC B5 error: the status, the code, a message, and (when given) exactly these detail paths. */
export function expectError(res: { status: number; body: any; text?: string }, status: number, code: string, paths?: string[]) {
  expect(res.status, res.text ?? JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  if (paths) expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(paths);
}
