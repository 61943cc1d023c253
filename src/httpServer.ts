import type { ServerOptions } from 'node:http';
import type { Env } from './env.js';

type Timeouts = Pick<Env, 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_KEEPALIVE_TIMEOUT_MS'>;

/**
 * The Node HTTP server's settings, for src/server.ts and the tests' server alike. A client that
 * trickles its headers or body is answered 408 and disconnected once the headers or the whole
 * request take longer than allowed (Node's defaults are 60 s and 300 s). Node looks for such
 * connections every `connectionsCheckingInterval` (30 s by default, which would let a 1 s limit
 * last 30 s): here a quarter of the shorter limit, at most 5 s.
 */
export function httpServerOptions(env: Timeouts): ServerOptions {
  const shorter = Math.min(env.HTTP_HEADERS_TIMEOUT_MS, env.HTTP_REQUEST_TIMEOUT_MS);
  return {
    headersTimeout: env.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeout: env.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: env.HTTP_KEEPALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: Math.max(25, Math.min(5_000, Math.floor(shorter / 4))),
  };
}
