import { randomUUID } from 'node:crypto';

// Presence (SPEC C5, docs/decisions/037): who is viewing a ticket page, who is typing a reply.
// Nothing of it is stored. Each process broadcasts its own share (its viewers and typers of a
// ticket) every few seconds, and merges what it hears; a share not heard again expires. The hub
// (./hub.ts) owns the streams and hands presence its viewers as they open and close.

/** Someone on a ticket page: viewing it, maybe typing a reply. */
export interface Viewer {
  id: number;
  name: string;
  typing: boolean;
}

/** A stream showing a ticket page, as presence knows it: whose it is, and where its viewers go. */
export interface ViewerStream {
  spec: { user: { id: number } };
  sink: { presence(ticketId: number, viewers: Viewer[]): void };
}

interface Share {
  viewers: Viewer[];
  expires: number;
}

export interface PresenceOptions {
  /** Sends this process's share to every process (itself included). */
  broadcast: (payload: string) => Promise<unknown>;
  /** How long a typing ping counts. */
  typingMs?: number;
  /** How often each process repeats its share; a share is dropped after three missed. */
  presenceEveryMs?: number;
  onError: (what: string, error: unknown) => void;
}

export interface Presence {
  /** A staff stream opened on the ticket's page. */
  join(ticketId: number, stream: ViewerStream, user: { id: number; name: string }): void;
  /** That stream closed. */
  leave(ticketId: number, stream: ViewerStream): void;
  /** The user is typing a reply on the ticket (a throttled ping from the reply box). */
  typing(ticketId: number, user: { id: number; name: string }): void;
  /** A share some process broadcast. */
  heard(payload: string): void;
  /** Who is on the ticket's page now, across processes. */
  viewers(ticketId: number): Viewer[];
  stop(): void;
}

export function startPresence(opts: PresenceOptions): Presence {
  const pid = randomUUID().slice(0, 8);
  const typingMs = opts.typingMs ?? 6000;
  const presenceEveryMs = opts.presenceEveryMs ?? 4000;
  const shareTtl = presenceEveryMs * 3;
  const local = new Map<number, Map<ViewerStream, { id: number; name: string }>>(); // ticket → this process's viewing streams
  const typers = new Map<number, Map<number, { name: string; until: number }>>(); // ticket → user → typing until
  const shares = new Map<number, Map<string, Share>>(); // ticket → process → its latest share
  const shown = new Map<number, string>(); // ticket → the merged viewers last delivered (JSON)

  function ownShare(ticketId: number): Viewer[] {
    const now = Date.now();
    const v = new Map<number, Viewer>();
    for (const u of local.get(ticketId)?.values() ?? []) v.set(u.id, { id: u.id, name: u.name, typing: false });
    for (const [id, t] of typers.get(ticketId) ?? []) {
      if (t.until <= now) continue;
      v.set(id, { id, name: t.name, typing: true });
    }
    return [...v.values()].slice(0, 50);
  }

  function publish(ticketId: number): void {
    const v = ownShare(ticketId);
    const payload = JSON.stringify({
      p: pid,
      t: ticketId,
      v: v.map((x) => [x.id, x.name.slice(0, 60), x.typing ? 1 : 0]),
    });
    opts.broadcast(payload).catch((e) => opts.onError('presence broadcast failed', e));
  }

  function merged(ticketId: number): Viewer[] {
    const now = Date.now();
    const v = new Map<number, Viewer>();
    for (const share of shares.get(ticketId)?.values() ?? []) {
      if (share.expires <= now) continue;
      for (const x of share.viewers) {
        const had = v.get(x.id);
        v.set(x.id, { ...x, typing: x.typing || (had?.typing ?? false) });
      }
    }
    return [...v.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
  }

  function showPresence(ticketId: number, force = false): void {
    const viewers = merged(ticketId);
    const key = JSON.stringify(viewers);
    if (!force && shown.get(ticketId) === key) return;
    if (viewers.length === 0) shown.delete(ticketId);
    else shown.set(ticketId, key);
    for (const s of local.get(ticketId)?.keys() ?? []) {
      try {
        s.sink.presence(
          ticketId,
          viewers.filter((x) => x.id !== s.spec.user.id),
        );
      } catch (e) {
        opts.onError('live update write failed', e);
      }
    }
  }

  // Repeat this process's shares; drop what expired (a process gone, a tab closed, typing stopped).
  const repeat = setInterval(() => {
    for (const t of new Set([...local.keys(), ...typers.keys()])) publish(t);
  }, presenceEveryMs);
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [t, users] of typers) {
      let stopped = false;
      for (const [u, x] of users)
        if (x.until <= now) {
          users.delete(u);
          stopped = true;
        }
      if (users.size === 0) typers.delete(t);
      if (stopped) publish(t);
    }
    for (const [t, byProcess] of shares) {
      let gone = false;
      for (const [p, share] of byProcess)
        if (share.expires <= now) {
          byProcess.delete(p);
          gone = true;
        }
      if (byProcess.size === 0) shares.delete(t);
      if (gone) showPresence(t);
    }
  }, 1000);
  for (const t of [repeat, sweep]) t.unref();

  return {
    join(ticketId, stream, user) {
      let m = local.get(ticketId);
      if (!m) local.set(ticketId, (m = new Map()));
      m.set(stream, user);
      publish(ticketId);
      showPresence(ticketId, true);
    },
    leave(ticketId, stream) {
      const m = local.get(ticketId);
      if (!m?.delete(stream)) return;
      if (m.size === 0) local.delete(ticketId);
      // The tab closed: its reader stops typing there too, unless another of their tabs shows the ticket.
      const userId = stream.spec.user.id;
      if (![...m.values()].some((u) => u.id === userId)) typers.get(ticketId)?.delete(userId);
      publish(ticketId);
    },
    typing(ticketId, user) {
      let users = typers.get(ticketId);
      if (!users) typers.set(ticketId, (users = new Map()));
      const was = users.get(user.id);
      users.set(user.id, { name: user.name, until: Date.now() + typingMs });
      if (!was || was.until <= Date.now()) publish(ticketId);
    },
    heard(payload) {
      let m: { p: string; t: number; v: [number, string, number][] };
      try {
        m = JSON.parse(payload);
      } catch {
        return;
      }
      if (typeof m?.p !== 'string' || !Number.isInteger(m.t) || !Array.isArray(m.v)) return;
      let byProcess = shares.get(m.t);
      if (!byProcess) shares.set(m.t, (byProcess = new Map()));
      if (m.v.length === 0) byProcess.delete(m.p);
      else
        byProcess.set(m.p, {
          viewers: m.v.map(([id, name, typing]) => ({ id, name, typing: typing === 1 })),
          expires: Date.now() + shareTtl,
        });
      if (byProcess.size === 0) shares.delete(m.t);
      showPresence(m.t);
    },
    viewers: (ticketId) => merged(ticketId),
    stop() {
      for (const t of [repeat, sweep]) clearInterval(t);
    },
  };
}
