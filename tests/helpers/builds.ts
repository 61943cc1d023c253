import { SQLiteSelectBase } from 'drizzle-orm/sqlite-core';

/**
 * Counts the SQLite queries drizzle builds (its select builder's private `_prepare`) while `run`
 * runs: what a statement kept or compiled once does not do again (issue 32). Gives `run`'s answer
 * and the count; drizzle is put back whatever happens.
 */
export async function countingBuilds<T>(run: () => Promise<T> | T): Promise<{ answer: T; builds: number }> {
  const proto = SQLiteSelectBase.prototype as unknown as { _prepare: (...a: unknown[]) => unknown };
  const build = proto._prepare;
  let builds = 0;
  proto._prepare = function (this: unknown, ...a: unknown[]) {
    builds++;
    return build.apply(this, a);
  };
  try {
    return { answer: await run(), builds };
  } finally {
    proto._prepare = build;
  }
}
