// A server-sent event stream read the way a browser's EventSource reads it (tests of SPEC C5).

export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

export interface SseStream {
  status: number;
  /** Every message so far, in order (comments such as heartbeats are counted in `pings`). */
  messages: SseMessage[];
  pings: number;
  /** Waits for the first message (from `from` on) that `match` accepts. */
  next(match: (m: SseMessage) => boolean, opts?: { from?: number; timeoutMs?: number }): Promise<SseMessage>;
  /** The last `id:` the stream sent (what a browser sends back as Last-Event-ID). */
  lastId(): string | undefined;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ctrl.signal });
  const messages: SseMessage[] = [];
  let pings = 0;
  let last: string | undefined;
  const waiters = new Set<() => void>();
  let endedResolve!: () => void;
  const ended = new Promise<void>((r) => {
    endedResolve = r;
  });
  const stream: SseStream = {
    status: res.status,
    messages,
    get pings() {
      return pings;
    },
    lastId: () => last,
    ended,
    close: () => ctrl.abort(),
    next(match, opts = {}) {
      const from = opts.from ?? 0;
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = messages.slice(from).find(match);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching message within ${opts.timeoutMs ?? 5000} ms; got ${JSON.stringify(messages)}`));
        }, opts.timeoutMs ?? 5000);
        if (!check()) waiters.add(check);
      });
    },
  } as SseStream;
  if (res.status !== 200 || !res.body) {
    endedResolve();
    return stream;
  }
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, at);
          buf = buf.slice(at + 2);
          const m: SseMessage = { event: 'message', data: '' };
          const data: string[] = [];
          let any = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              pings++;
              continue;
            }
            const i = line.indexOf(':');
            const field = i < 0 ? line : line.slice(0, i);
            const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
            if (field === 'event') {
              m.event = value;
              any = true;
            } else if (field === 'data') {
              data.push(value);
              any = true;
            } else if (field === 'id') {
              m.id = value;
              last = value;
              any = true;
            } else if (field === 'retry') any = true;
          }
          if (!any) continue;
          m.data = data.join('\n');
          messages.push(m);
          for (const w of [...waiters]) w();
        }
      }
    } catch {
      /* aborted */
    }
    endedResolve();
  })();
  return stream;
}
