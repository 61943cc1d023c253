export function LoginPage({ error, email, next }: { error?: string; email?: string; next?: string }) {
  return (
    <section class="login">
      <h1>Sign in</h1>
      <form method="post" action="/login" hx-boost="false">
        {next && <input type="hidden" name="next" value={next} />}
        <label>Email <input type="email" name="email" value={email ?? ''} autocomplete="username" required autofocus /></label>
        <label>Password <input type="password" name="password" autocomplete="current-password" required /></label>
        {error && <p class="error" role="alert">{error}</p>}
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}

export interface ErrorViewProps { status: number; code: string; message: string; details?: { path: string; message: string }[] }

export function ErrorView({ status, code, message, details }: ErrorViewProps) {
  return (
    <section class="error-page" role="alert">
      <h1>{status} · {code.replaceAll('_', ' ')}</h1>
      <p>{message}</p>
      {details && details.length > 0 && (
        <ul>{details.map((d) => <li><code>{d.path}</code>: {d.message}</li>)}</ul>
      )}
      {status === 403 || status === 404 ? <p><a href="/tickets">Back to tickets</a></p> : null}
    </section>
  );
}
