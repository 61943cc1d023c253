import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedDatabase, pgAvailable, releasePostgres } from './helpers/postgres.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, killAll, processScope, type ServerProcess, send } from './helpers/process.js';
import { tokenFor } from './helpers/session.js';

// SPEC D1: "A large write does not hold up small ones: while replies carrying 20 MiB of files are
// being stored on one ticket, small replies on other tickets keep their p95 within 2× (p50 within
// 1.5×) of what they are while the same uploads go to another database on the same machine."
//
// Two databases in this worker's cluster, a real server process on each (the compiled server, as
// in production). Small replies (a short internal note) always go to tickets on server A; what
// changes is where the uploads go:
//   - "apart": replies carrying 20 MiB of files (two 10 MiB files, random, so nothing compresses)
//     go to a ticket on server B, database B: the machine's CPU, PostgreSQL's processes and its
//     WAL are as busy as they will be, but nothing of database A or of process A is;
//   - "together": the same uploads go to a ticket on A itself.
// The small replies' p95 and p50 "together" are compared with those "apart", measured in the same
// sitting: a ratio of two measurements under the same load, not a time against a constant. What
// it counts is what one server and one database make a small write wait for behind a large one
// (a queue of units of work, a lock every write takes, the process's event loop busy with the
// upload), not the CPU the machine shares.
//
// Robust by construction: the same number of uploads (UPLOADERS) is in flight at every moment of
// both kinds of phase (each uploader sends its next one as soon as the last is answered, and the
// small writers sample only between the first upload's start and the uploaders' stop); phases
// alternate apart / together / together / apart … (ABBA), so a drift of the machine over the test
// (the database growing, another test starting) weighs on both alike; the warm-up runs both
// paths before anything is counted; and each phase kind has ROUNDS × PER_PHASE samples.

const pgTest = describe.skipIf(!pgAvailable());
const { children, dataDir, serve } = processScope('pg-large');

const MIB = 1024 * 1024;
/** Uploads in flight during every measured phase: one reply with 20 MiB of files after another, on one ticket. */
const UPLOADERS = 1;
/** Small writers running side by side (each one request at a time). */
const WRITERS = 4;
const SMALL_TICKETS = 8;
/** Phases of each kind; they alternate ABBA. */
const ROUNDS = 6;
/** Small replies counted per phase. */
const PER_PHASE = 60;

/** One reply with 20 MiB of files, as a browser's multipart form sends it: built once, sent as bytes. */
function bigReply(): { body: Buffer; type: string } {
  const boundary = `----hxdesk-large-${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  const field = (name: string, value: string) =>
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  field('body', 'The logs you asked for.');
  field('internal', 'true');
  for (const name of ['trace-1.bin', 'trace-2.bin']) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      randomBytes(10 * MIB),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const ms = (n: number) => `${n.toFixed(1)} ms`;

pgTest('a large write does not hold up small ones (PostgreSQL, two databases, two processes)', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let tokenA = '';
  let tokenB = '';
  const small: number[] = [];
  let bigOnA = 0;
  let bigOnB = 0;
  const upload = bigReply();

  async function newTicket(base: string, token: string, subject: string): Promise<number> {
    const queues = await send(base, 'GET', '/queues', undefined, { token });
    const queueId = (queues.body.queues ?? queues.body).find((q: { name: string }) => q.name === 'General').id;
    const res = await send(base, 'POST', '/tickets', { queue_id: queueId, subject, description: 'Hello' }, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.ticket.id;
  }

  beforeAll(async () => {
    const [urlA, urlB] = await Promise.all([createMigratedDatabase(), createMigratedDatabase()]);
    const settings = { LOGIN_MAX_ATTEMPTS_PER_IP: '100000' };
    [a, b] = await Promise.all([
      serve({ DATABASE_URL: urlA, DATA_DIR: dataDir() }, settings),
      serve({ DATABASE_URL: urlB, DATA_DIR: dataDir() }, settings),
    ]);
    [tokenA, tokenB] = await Promise.all([
      tokenFor(a.base, ADMIN_EMAIL, ADMIN_PASSWORD, 'large'),
      tokenFor(b.base, ADMIN_EMAIL, ADMIN_PASSWORD, 'large'),
    ]);
    for (let i = 0; i < SMALL_TICKETS; i++) small.push(await newTicket(a.base, tokenA, `Small ${i + 1}`));
    bigOnA = await newTicket(a.base, tokenA, 'Big files here');
    bigOnB = await newTicket(b.base, tokenB, 'Big files there');
  }, 120_000);

  afterAll(async () => {
    killAll(children.map((c) => c.child));
    await Promise.all(children.map((c) => c.exit));
    await releasePostgres();
  });

  const sendBig = async (base: string, token: string, ticket: number) => {
    const res = await send(base, 'POST', `/tickets/${ticket}/comment`, upload.body, { token, type: upload.type });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    expect(res.body.transaction.attachments.map((f: { size: number }) => f.size)).toEqual([10 * MIB, 10 * MIB]);
  };
  let n = 0;
  const sendSmall = async (): Promise<number> => {
    const i = n++;
    const t0 = performance.now();
    const res = await send(
      a.base,
      'POST',
      `/tickets/${small[i % small.length]}/comment`,
      { body: `Small note ${i}`, internal: true },
      { token: tokenA },
    );
    const took = performance.now() - t0;
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return took;
  };

  /** One phase: UPLOADERS uploads kept in flight to `where`, while WRITERS small writers take PER_PHASE samples on A. */
  async function phase(where: 'apart' | 'together'): Promise<{ samples: number[]; uploads: number }> {
    const [base, token, ticket] = where === 'apart' ? [b.base, tokenB, bigOnB] : [a.base, tokenA, bigOnA];
    let stop = false;
    let uploads = 0;
    const uploaders = Array.from({ length: UPLOADERS }, async () => {
      while (!stop) {
        await sendBig(base, token, ticket);
        uploads++;
      }
    });
    const samples: number[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (samples.length < PER_PHASE) samples.push(await sendSmall());
      }),
    );
    stop = true;
    await Promise.all(uploaders);
    return { samples: samples.slice(0, PER_PHASE), uploads };
  }

  it('small replies on other tickets keep p95 within 2× and p50 within 1.5× of what they are while the uploads go to another database', async () => {
    // Warm-up: both servers take an upload and small replies before anything is counted.
    await Promise.all([sendBig(a.base, tokenA, bigOnA), sendBig(b.base, tokenB, bigOnB)]);
    for (let i = 0; i < 2 * WRITERS; i++) await sendSmall();

    const apart: number[] = [];
    const together: number[] = [];
    const uploads = { apart: 0, together: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      const order: ('apart' | 'together')[] = r % 2 === 0 ? ['apart', 'together'] : ['together', 'apart'];
      for (const where of order) {
        const got = await phase(where);
        (where === 'apart' ? apart : together).push(...got.samples);
        uploads[where] += got.uploads;
      }
    }
    const figures = {
      apart: { p50: quantile(apart, 0.5), p95: quantile(apart, 0.95), n: apart.length, uploads: uploads.apart },
      together: {
        p50: quantile(together, 0.5),
        p95: quantile(together, 0.95),
        n: together.length,
        uploads: uploads.together,
      },
    };
    const summary =
      `small replies while ${UPLOADERS} upload(s) of 20 MiB in flight — ` +
      `apart (database B): p50 ${ms(figures.apart.p50)}, p95 ${ms(figures.apart.p95)} (${figures.apart.n} samples, ${figures.apart.uploads} uploads); ` +
      `together (database A): p50 ${ms(figures.together.p50)}, p95 ${ms(figures.together.p95)} (${figures.together.n} samples, ${figures.together.uploads} uploads); ` +
      `ratios p50 ${(figures.together.p50 / figures.apart.p50).toFixed(2)}×, p95 ${(figures.together.p95 / figures.apart.p95).toFixed(2)}×`;
    console.log(summary);
    expect(figures.together.p95, summary).toBeLessThanOrEqual(2 * figures.apart.p95);
    expect(figures.together.p50, summary).toBeLessThanOrEqual(1.5 * figures.apart.p50);
  }, 600_000);
});
