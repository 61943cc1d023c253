// `npm run fuzz [-- --requests N --seed S --concurrency C]`: fuzzes every route of a fresh test
// server (tests/helpers/fuzz.ts) and prints the statuses by class and every failure (a 5xx, a
// malformed JSON error, no answer). Exits 1 when there was any failure or the server is unwell after.
import { parseArgs } from 'node:util';
import { fuzz, MAILGATE_TOKEN } from '../tests/helpers/fuzz.js';
import { startServer } from '../tests/helpers/server.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '1' },
    production: { type: 'boolean', default: false },
  },
});
const requests = Number(values.requests);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
if (![requests, seed, concurrency].every((n) => Number.isInteger(n) && n >= 0) || concurrency < 1) {
  process.stderr.write('usage: npm run fuzz -- [--requests N] [--seed S] [--concurrency C] [--production]\n');
  process.exit(2);
}

const s = await startServer({ MAILGATE_TOKEN, ...(values.production ? { NODE_ENV: 'production' } : {}) });
try {
  const result = await fuzz(s, {
    requests,
    seed,
    concurrency,
    onProgress: (n) => process.stderr.write(`  ${n} requests\r`),
  });
  const health = await s.api('GET', '/healthz', { token: null });
  const me = await s.api('GET', '/me');
  const unhandled = s.logged.filter((l) => l.msg === 'unhandled error');
  process.stdout.write(
    `${JSON.stringify(
      {
        requests: result.requests,
        routes: result.routes,
        seed,
        concurrency,
        elapsed_s: +(result.elapsedMs / 1000).toFixed(1),
        by_class: result.byClass,
        by_status: result.byStatus,
        failures: result.failures.length,
        unhandled_errors_logged: unhandled.length,
        healthy_after: health.status === 200 && me.status === 200,
      },
      null,
      2,
    )}\n`,
  );
  for (const f of result.failures) process.stdout.write(`FAIL ${JSON.stringify(f)}\n`);
  for (const l of unhandled) process.stdout.write(`LOGGED ${JSON.stringify({ ...l.fields, stack: undefined })}\n`);
  process.exitCode =
    result.failures.length === 0 && unhandled.length === 0 && health.status === 200 && me.status === 200 ? 0 : 1;
} finally {
  await s.close();
}
