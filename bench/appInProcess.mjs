// The app of a built tree (dist/) over one SQLite file, for requests in process (app.fetch, no
// network), with an admin's API token: what bench/statements.mjs and bench/in-place.mjs measure.
import path from 'node:path';

/** Opens `file` (migrating it) with `root`'s dist/ and builds the app; `tokenName` names the token it adds. */
export async function appInProcess(root, file, tokenName) {
  const d = (p) => import(path.join(root, 'dist', p));
  const { loadEnv } = await d('env.js');
  const { openDb, closeDb } = await d('db/store.js');
  const { createApp } = await d('app.js');
  const { createToken } = await d('domain/auth.js');
  const env = loadEnv({
    NODE_ENV: 'production',
    DATA_DIR: path.dirname(file),
    MAILGATE_TOKEN: 'x'.repeat(32),
    MAIL_ADDRESSES: 'support@bench.example',
  });
  const db = openDb(file);
  const app = await createApp({ db, store: db.store, env, log: () => {} });
  const token = (await createToken(db, { id: 1, email: 'a', name: 'a', role: 'admin' }, tokenName)).token;
  return { db, app, token, close: () => closeDb?.(db) };
}

/**
 * The app of a built `dist` directory over the store `extraEnv` names (as the server opens it:
 * DATABASE_URL for PostgreSQL, else DATA_DIR's hxdesk.db, with reader threads), an admin's API
 * token, and `call(url, accept)`: one GET through `app.fetch`, its ms (bench/pg-ratio.mjs, bench/ab-pg.mjs, bench/pg-statements.mjs).
 */
export async function appOnStore(dist, extraEnv, tokenName) {
  const d = (p) => import(path.join(dist, p));
  const { loadEnv } = await d('env.js');
  const { openStore } = await d('db/store.js');
  const { createApp } = await d('app.js');
  const { createToken } = await d('domain/auth.js');
  const env = loadEnv({
    NODE_ENV: 'production',
    MAILGATE_TOKEN: 'x'.repeat(32),
    MAIL_ADDRESSES: 'support@bench.example',
    ...extraEnv,
  });
  const store = await openStore(env);
  const app = await createApp({ db: store.db, store, env, log: () => {} });
  const token = (await createToken(store.db, { id: 1, email: 'a', name: 'a', role: 'admin' }, tokenName)).token;
  const call = async (url, accept) => {
    const t = performance.now();
    const res = await app.fetch(
      new Request(`http://x${url}`, { headers: { authorization: `Bearer ${token}`, accept } }),
    );
    await res.text();
    if (res.status >= 400) throw new Error(`${url}: ${res.status}`);
    return performance.now() - t;
  };
  return { call, store };
}
