// A delaying TCP relay, so that a PostgreSQL server on this machine is reached as from another
// host (SPEC D1 "Measure": about 1 ms each way). Every chunk, in each direction, is held
// `delayMs` before it is passed on (in order: Node fires timers of one duration first in, first
// out), and so is the end of each direction. It runs in a worker thread of the bench's process,
// so the load generator's own event loop (autocannon, 128 connections) does not add to the delay.
//
//   const relay = await startRelay({ host: '127.0.0.1', port: 5432 }, 1);
//   … connect to 127.0.0.1:relay.port …
//   await relay.stop();
import net from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface Relay {
  port: number;
  delayMs: number;
  stop(): Promise<void>;
}

/** Passes what `from` sends on to `to`, each chunk `delayMs` later; pauses `from` while `to` is full. */
function pipeDelayed(from: net.Socket, to: net.Socket, delayMs: number) {
  const pass = (fn: () => void) => (delayMs > 0 ? setTimeout(fn, delayMs) : fn());
  from.on('data', (chunk: Buffer) =>
    pass(() => {
      if (to.destroyed) return;
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    }),
  );
  from.on('end', () => pass(() => to.end()));
}

/** The relay itself (in the thread that calls it): listens on a free port of 127.0.0.1. */
export function listenRelay(target: { host: string; port: number }, delayMs: number): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    pipeDelayed(client, upstream, delayMs);
    pipeDelayed(upstream, client, delayMs);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', () => setTimeout(() => upstream.destroy(), delayMs + 5));
    upstream.on('close', () => setTimeout(() => client.destroy(), delayMs + 5));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Starts the relay to `target` in a worker thread; resolves once it listens. */
export async function startRelay(target: { host: string; port: number }, delayMs: number): Promise<Relay> {
  // The worker loads this file through tsx's loader (a worker does not inherit `--import tsx`'s hooks in Node 20).
  const worker = new Worker(
    `import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(import.meta.url)}))`,
    { eval: true, workerData: { target, delayMs } },
  );
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`relay worker exited with ${code}`)));
  });
  worker.unref();
  return {
    port,
    delayMs,
    stop: async () => {
      await worker.terminate();
    },
  };
}

if (!isMainThread && parentPort && (workerData as { target?: unknown })?.target) {
  const { target, delayMs } = workerData as { target: { host: string; port: number }; delayMs: number };
  const server = await listenRelay(target, delayMs);
  parentPort.postMessage({ port: (server.address() as net.AddressInfo).port });
}
