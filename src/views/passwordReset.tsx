// Forgot password (SPEC D6, docs/decisions/056): asking for a link, choosing the new password,
// and the page a link that cannot be used shows. Plain forms (no htmx): they work without script.

/** A field's one message, next to it, named by the field's aria-describedby. */
function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p class="field-error" id={id}>
      {message}
    </p>
  ) : null;
}

export function ForgotPasswordPage({ sent, email, error }: { sent?: string; email?: string; error?: string }) {
  return (
    <section class="login password-reset">
      <h1>Forgot your password?</h1>
      {sent ? (
        <p class="notice" role="status">
          {sent}
        </p>
      ) : (
        <p>Give the address you sign in with: we mail you a link to choose a new password.</p>
      )}
      <form method="post" action="/password-reset" hx-boost="false">
        <label>
          Email{' '}
          <input
            type="email"
            name="email"
            value={email ?? ''}
            autocomplete="username"
            required
            autofocus={!sent}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'email-error' : undefined}
          />
        </label>
        <FieldError id="email-error" message={error} />
        <button type="submit">{sent ? 'Send another link' : 'Mail me a link'}</button>
      </form>
      <p>
        <a href="/login">Back to sign in</a>
      </p>
    </section>
  );
}

export interface ResetPasswordErrors {
  password?: string;
  password_confirm?: string;
}

export function ResetPasswordPage({
  token,
  email,
  errors = {},
}: {
  token: string;
  email: string;
  errors?: ResetPasswordErrors;
}) {
  return (
    <section class="login password-reset">
      <h1>Choose a new password</h1>
      <p>
        For <strong>{email}</strong>. Other devices signed in to this account are signed out.
      </p>
      <form method="post" action={`/password-reset/${token}`} hx-boost="false">
        {/* For password managers: which account the new password belongs to. */}
        <input type="hidden" name="username" value={email} autocomplete="username" />
        <label>
          New password{' '}
          <input
            type="password"
            name="password"
            autocomplete="new-password"
            minlength={12}
            maxlength={1024}
            required
            autofocus
            aria-invalid={errors.password ? 'true' : undefined}
            aria-describedby={errors.password ? 'password-error' : 'password-hint'}
          />
        </label>
        {/* One message under the field: the rule, or what was wrong with what was typed. */}
        {errors.password ? (
          <FieldError id="password-error" message={errors.password} />
        ) : (
          <p class="hint" id="password-hint">
            At least 12 characters.
          </p>
        )}
        <label>
          Repeat it{' '}
          <input
            type="password"
            name="password_confirm"
            autocomplete="new-password"
            maxlength={1024}
            required
            aria-invalid={errors.password_confirm ? 'true' : undefined}
            aria-describedby={errors.password_confirm ? 'confirm-error' : undefined}
          />
        </label>
        <FieldError id="confirm-error" message={errors.password_confirm} />
        <button type="submit">Set password and sign in</button>
      </form>
    </section>
  );
}

export function ResetLinkRefusedPage({ headline, message }: { headline: string; message: string }) {
  return (
    <section class="login password-reset" role="alert">
      <h1>{headline}</h1>
      <p>{message}</p>
      <p>
        <a href="/password-reset">Ask for a new link</a> · <a href="/login">Sign in</a>
      </p>
    </section>
  );
}
