import type { CsatLinkView, Rating } from '../domain/csat.js';

// SPEC D4 (decision 082): the page a rating link opens, in the portal's plain layout. Opening it
// records nothing; only its form's POST does. Works without JavaScript, by keyboard, at 360 px.

export const RATING_LABEL: Record<Rating, string> = { good: 'Good', okay: 'Okay', bad: 'Bad' };
/** Best first, as the domain's RATINGS (a view imports no domain code at run time). */
const CHOICES = Object.keys(RATING_LABEL) as Rating[];
const RATING_HINT: Record<Rating, string> = {
  good: 'We solved it well',
  okay: 'It was solved, but it could have gone better',
  bad: 'We did not help you well',
};

export function CsatPage({
  view,
  action,
  selected,
  thanks,
}: {
  view: CsatLinkView;
  /** Where the form posts: the link itself (the token is the credential). */
  action: string;
  selected: Rating | undefined;
  thanks: boolean;
}) {
  const current = view.rating;
  return (
    <section class="csat" aria-labelledby="csat-title">
      <h1 id="csat-title">How did we do?</h1>
      <p class="muted">
        Request #{view.ticket.id}: {view.ticket.subject}
      </p>
      {thanks && current && (
        <p class="notice" role="status">
          Thank you: your rating “{RATING_LABEL[current.rating]}” was recorded. You can change it below.
        </p>
      )}
      {!thanks && current && (
        <p class="muted">
          You rated this “{RATING_LABEL[current.rating]}”. Sending the form again replaces that rating.
        </p>
      )}
      <form method="post" action={action} class="csat-form">
        <fieldset>
          <legend>Your rating</legend>
          {CHOICES.map((r) => (
            <label class="csat-choice">
              <input type="radio" name="rating" value={r} checked={selected === r} required />
              <span>
                <strong>{RATING_LABEL[r]}</strong> <span class="muted">{RATING_HINT[r]}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <label>
          Comment (optional)
          <textarea id="csat-comment" name="comment" rows={4} maxlength={4000}>
            {current?.comment ?? ''}
          </textarea>
        </label>
        <button type="submit" class="primary">
          Send rating
        </button>
      </form>
    </section>
  );
}
