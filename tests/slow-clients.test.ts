import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../src/env.js';
import { startServer, type TestServer } from './helpers/server.js';

// A client that trickles its request must not hold a connection for Node's default 300 s.
// The server here has short limits (HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS); the
// slow clients below never stop sending, so only the server can end the exchange.

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '1500' });
});
afterAll(async () => {
  await s.close();
});

interface Trickle {
  answer: Promise<string>;
  stop(): void;
}

/** Opens a raw socket, writes `head`, then one `drip` every 100 ms until the server closes it. */
function trickle(head: string, drip: string): Trickle {
  const { port } = new URL(s.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  let received = '';
  let timer: NodeJS.Timeout | undefined;
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('data', (d) => {
      received += d.toString('latin1');
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve(received);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'ECONNRESET' && e.code !== 'EPIPE') reject(e);
    });
  });
  socket.on('connect', () => {
    socket.write(head);
    timer = setInterval(() => {
      if (!socket.destroyed) socket.write(drip);
    }, 100);
  });
  return {
    answer,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe('slow clients are cut off', () => {
  it('a body trickled a byte at a time → 408 and the connection is closed', async () => {
    const t = trickle(
      'POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
      ' ',
    );
    try {
      expect(await t.answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      t.stop();
    }
  });

  it('headers trickled a line at a time → 408 and the connection is closed', async () => {
    const t = trickle('GET /healthz HTTP/1.1\r\nHost: localhost\r\n', 'X-Slow: yes\r\n');
    try {
      expect(await t.answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      t.stop();
    }
  });

  it('several slow clients at once do not keep the server from answering others', async () => {
    const slow = Array.from({ length: 5 }, () =>
      trickle(
        'POST /mailgate HTTP/1.1\r\nHost: localhost\r\nContent-Type: message/rfc822\r\nContent-Length: 1000000\r\n\r\n',
        'x',
      ),
    );
    try {
      expect((await s.api('GET', '/healthz', { token: null })).status).toBe(200);
      for (const t of slow) expect(await t.answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      for (const t of slow) t.stop();
    }
  });

  it('a body sent in a few quick chunks is answered normally', async () => {
    const { port } = new URL(s.url);
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'p'.repeat(1000) });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (d) => {
        received += d.toString('latin1');
        if (received.includes('\r\n\r\n{')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', reject);
      socket.on('connect', async () => {
        socket.write(
          `POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        for (let i = 0; i < body.length; i += 300) {
          socket.write(body.slice(i, i + 300));
          await new Promise((r) => setTimeout(r, 20));
        }
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  });
});

describe('a cut-off request is not a server error', () => {
  it('the server logged no error for the requests it cut off', () => {
    expect(s.logged.filter((l) => l.level === 'error')).toEqual([]);
  });
});

describe('the timeouts are settings', () => {
  it('defaults: 20 s for headers, 120 s for a whole request, 5 s for an idle keep-alive connection', () => {
    const env = loadEnv({});
    expect([env.HTTP_HEADERS_TIMEOUT_MS, env.HTTP_REQUEST_TIMEOUT_MS, env.HTTP_KEEPALIVE_TIMEOUT_MS]).toEqual([
      20_000, 120_000, 5_000,
    ]);
  });

  it('a headers timeout longer than the request timeout is refused at start, naming the setting', () => {
    expect(() => loadEnv({ HTTP_HEADERS_TIMEOUT_MS: '90000', HTTP_REQUEST_TIMEOUT_MS: '60000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS/,
    );
    expect(() => loadEnv({ HTTP_REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });
});
