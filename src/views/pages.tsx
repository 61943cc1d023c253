export function LoginPage({ error, email, next }: { error?: string; email?: string; next?: string }) {
  return (
    <section class="login">
      <h1>Sign in</h1>
      <form method="post" action="/login" hx-boost="false">
        {next && <input type="hidden" name="next" value={next} />}
        <label>
          Email <input type="email" name="email" value={email ?? ''} autocomplete="username" required autofocus />
        </label>
        <label>
          Password <input type="password" name="password" autocomplete="current-password" required />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
      <p>
        <a href="/password-reset">Forgot password?</a>
      </p>
    </section>
  );
}

export interface ErrorViewProps {
  status: number;
  code: string;
  message: string;
  details?: { path: string; message: string }[];
}

export function ErrorView({ status, code, message, details }: ErrorViewProps) {
  return (
    <section class="error-page" role="alert">
      <h1>
        {status} · {code.replaceAll('_', ' ')}
      </h1>
      {/* SPEC D6: each refused field said once: the list, when the message is only what it says. */}
      {!(details?.length && details.map((d) => d.message).join('; ') === message) && <p>{message}</p>}
      {details && details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li data-field={d.path} data-message={d.message}>
              {d.message}
            </li>
          ))}
        </ul>
      )}
      {status === 403 || status === 404 ? (
        <p>
          <a href="/tickets">Back to tickets</a>
        </p>
      ) : null}
    </section>
  );
}

/** The compact form of an error, for htmx to show next to the form that caused it. */
export function InlineError({ message, details }: Omit<ErrorViewProps, 'status' | 'code'>) {
  if (details && details.length > 0) {
    return (
      <div class="inline-error">
        {details.length === 1 ? (
          <p data-field={details[0].path} data-message={details[0].message}>
            {details[0].message}
          </p>
        ) : (
          <ul>
            {details.map((d) => (
              <li data-field={d.path} data-message={d.message}>
                {d.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  return <p class="inline-error">{message}</p>;
}
