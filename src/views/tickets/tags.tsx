// SPEC D3 tags on the ticket page (decision 074): each tag a chip linking to the list of tickets
// with it, with its own remove button (a plain form: POST with _method=DELETE, then back to the
// page; htmx swaps the box in place), and a form to add one whose suggestions (a <datalist>) are
// the tags in use, loaded from GET /tags when the field is first focused.

/** A tag in a URL path or query: percent-encoded (a tag may hold `/` and `:`). */
export const tagPath = (tag: string) => encodeURIComponent(tag);
/** The ticket list of the tickets with this tag. */
export const tagListUrl = (tag: string) => `/tickets?tag=${encodeURIComponent(tag)}`;

/** The suggestions of a tag field: GET /tags answers an htmx request targeting a datalist with these. */
export function TagOptions({ tags }: { tags: { name: string; count: number }[] }) {
  return (
    <>
      {tags.map((t) => (
        <option value={t.name}>{`${t.name} (${t.count})`}</option>
      ))}
    </>
  );
}

/**
 * A text field for a tag with the tags in use as suggestions (its datalist `listId`, filled on
 * first focus). Without JavaScript a plain field: any new tag can be typed.
 */
export function TagInput({
  id,
  name,
  listId,
  label,
  autofocus,
  required,
}: {
  id: string;
  name: string;
  listId: string;
  label: string;
  autofocus?: boolean;
  required?: boolean;
}) {
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="text"
        list={listId}
        autocomplete="off"
        spellcheck={false}
        maxlength={40}
        required={required}
        autofocus={autofocus}
        hx-get="/tags"
        hx-trigger="focus once"
        hx-target={`#${listId}`}
        hx-swap="innerHTML"
        hx-params="none"
        hx-push-url="false"
      />
      <datalist id={listId}></datalist>
    </>
  );
}

/** The Tags box of the ticket page (staff): the tags, each removable, and the add form. */
export function TagsBox({
  ticketId,
  tags,
  oob,
  focusAdd,
}: {
  ticketId: number;
  tags: string[];
  oob?: boolean;
  /** After an htmx change: the add field takes the focus again (the box was swapped). */
  focusAdd?: boolean;
}) {
  const base = `/tickets/${ticketId}/tags`;
  const swap = { 'hx-target': '#tags', 'hx-swap': 'outerHTML', 'data-error-target': '#tags-error' };
  return (
    <section id="tags" class="tags-box" aria-labelledby="tags-title" hx-swap-oob={oob ? 'true' : undefined}>
      <h2 id="tags-title">Tags</h2>
      {tags.length === 0 ? (
        <p class="muted small">No tags</p>
      ) : (
        <ul class="tag-chips" aria-labelledby="tags-title">
          {tags.map((tag) => (
            <li class="tag-chip">
              <a href={tagListUrl(tag)} class="tag-name" title={`Tickets tagged ${tag}`}>
                {tag}
              </a>
              <form method="post" action={`${base}/${tagPath(tag)}`} hx-post={`${base}/${tagPath(tag)}`} {...swap}>
                <input type="hidden" name="_method" value="DELETE" />
                <button type="submit" class="chip-remove" aria-label={`Remove tag ${tag}`} title={`Remove tag ${tag}`}>
                  ×
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <form class="tags-add" method="post" action={base} hx-post={base} {...swap}>
        <TagInput id="tag-add" name="tag" listId="tag-options" label="Add a tag" autofocus={focusAdd} required />
        <button type="submit">Add</button>
      </form>
      <div id="tags-error" class="field-error tags-error" role="alert" aria-live="polite"></div>
    </section>
  );
}
