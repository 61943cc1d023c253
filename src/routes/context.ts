import type { Store } from '../db/port.js';
import type { Actor } from '../domain/actor.js';
import type { Env } from '../env.js';
import type { Hub } from '../events/hub.js';
import type { Logger } from '../log.js';
import type { ProcessorSettings as Settings } from '../mail/processor.js';

/** Everything a request handler can reach: built once by the app factory. */
export interface Deps {
  /** The store `openStore()` opened (decision 065): handlers work on its reader, `store.db`. */
  store: Store;
  env: Env;
  log: Logger;
  /** The app's settings (src/settings.ts): given by the server, else built by the app factory. */
  settings?: Settings;
  /** The live-update hub (SPEC C5): started by the app factory unless given. */
  hub?: Hub;
}

export interface AppEnv {
  Variables: {
    deps: Deps;
    /** The signed-in user or token owner; null on public routes. */
    actor: Actor | null;
    authVia: 'cookie' | 'token' | null;
    /** The id of the request, in its log lines and its `X-Request-Id` answer (routes/access.ts). */
    requestId: string;
    /** Set when a form's `_method` dispatched the request again: what the inner dispatch found. */
    redispatched?: Redispatch;
  };
}

declare module 'hono' {
  interface ContextRenderer {
    (content: string | Promise<string>, props?: { title?: string }): Response | Promise<Response>;
  }
}

/** What a re-dispatched request (a form's `_method`, routes/methodOverride.ts) tells the request it came from. */
export interface Redispatch {
  id: string;
  method?: string;
  route?: string | null;
  userId?: number | null;
}
