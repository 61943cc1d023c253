import type { Child } from 'hono/jsx';
import { ConnectionState } from './connection.js';

export interface LayoutUser {
  name: string;
  email: string;
  role: string;
}
export interface LayoutProps {
  title?: string;
  user: LayoutUser | null;
  children?: Child;
  /** The page is where a saved form landed (`?saved`, src/routes/*: every settings and admin edit form): say so. */
  saved?: boolean;
}

/** The one page shell. Every full page is this layout around the same component htmx swaps. */
export function Layout({ title, user, children, saved }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* Back/forward reloads from the server: a cached snapshot would show the filter form's original values. */}
        <meta
          name="htmx-config"
          content='{"includeIndicatorStyles":false,"historyCacheSize":0,"refreshOnHistoryMiss":true}'
        />
        <title>{title ? `${title} · hxdesk` : 'hxdesk'}</title>
        <link rel="stylesheet" href="/static/app.css" />
        {/* Not deferred: back/forward before htmx is ready still show the address's page (decision 100). */}
        <script src="/static/history-guard.js"></script>
        <script src="/static/htmx.min.js" defer></script>
        <script src="/static/htmx-sse.min.js" defer></script>
        <script src="/static/live.js" defer></script>
        <script src="/static/live-list.js" defer></script>
        <script src="/static/app.js" defer></script>
        <script src="/static/keys.js" defer></script>
        <script src="/static/bulk.js" defer></script>
        <script src="/static/safe-edits.js" defer></script>
        <script src="/static/reply-box.js" defer></script>
        <script src="/static/time-timer.js" defer></script>
        <script src="/static/times.js" defer></script>
        <script src="/static/stream-state.js" defer></script>
        <script src="/static/convo.js" defer></script>
      </head>
      <body hx-boost="true">
        {/* The first Tab stop of every page: past the top bar straight to the page itself. */}
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="topbar">
          <a class="brand" href="/tickets">
            hxdesk
          </a>
          {user && (
            <nav aria-label="Main">
              <a href="/tickets">Tickets</a>
              <a href="/dashboards">Dashboards</a>
              {(user.role === 'admin' || user.role === 'agent') && <a href="/reports">Reports</a>}
              {(user.role === 'admin' || user.role === 'agent') && <a href="/responses">Responses</a>}
              {(user.role === 'admin' || user.role === 'agent') && <a href="/time">My week</a>}
              {user.role === 'admin' && <a href="/users">Admin</a>}
            </nav>
          )}
          {user && (
            <form class="whoami" method="post" action="/logout">
              <span>{user.name || user.email}</span>
              <a href="/settings">Settings</a>
              <button type="submit">Sign out</button>
            </form>
          )}
        </header>
        <ConnectionState />
        <main id="main" tabindex={-1}>
          {saved && (
            <p class="notice saved-notice" role="status">
              Saved.
            </p>
          )}
          {children}
        </main>
      </body>
    </html>
  );
}
