// Decision 098: how many requests this process is answering right now, for the SQLite store to
// decide where a list runs. A reader thread (decision 031) keeps the HTTP thread free when other
// requests wait for it; when a list's request is the only one, the hop to the thread and back
// (0.3–0.5 ms at 100k tickets) is all it adds. Counted by the app's first middleware: a request
// counts until its handler has its Response (a live stream counts while it is opened, not while
// it stays open).

let inFlight = 0;

/** Counts one request as started; the function returned counts it as ended (once, however often called). */
export function requestStarted(): () => void {
  inFlight += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    inFlight -= 1;
  };
}

/** The requests this process is answering now (every app in it). */
export const requestsInFlight = (): number => inFlight;
