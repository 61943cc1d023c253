import type { Db } from '../db/client.js';
import type { Commit } from '../db/groupCommit.js';
import type { Actor } from '../domain/actor.js';
import type { Env } from '../env.js';
import type { Logger } from '../log.js';

/** Everything a request handler can reach: built once by the app factory. */
export interface Deps {
  db: Db; env: Env; log: Logger;
  /** Runs a ticket change in the group commit (src/db/groupCommit.ts); the app factory makes one. */
  commit: Commit;
  /** Called after a successful write request, so queued notifications go out at once. */
  afterWrite?: () => void;
}

export interface AppEnv {
  Variables: {
    deps: Deps;
    /** The signed-in user or token owner; null on public routes. */
    actor: Actor | null;
    authVia: 'cookie' | 'token' | null;
  };
}

declare module 'hono' {
  interface ContextRenderer {
    (content: string | Promise<string>, props?: { title?: string }): Response | Promise<Response>;
  }
}
