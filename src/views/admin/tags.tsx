import { tagListUrl, tagPath } from '../tickets/tags.js';
import { AdminFrame, AdminForm, Wide } from './common.js';

// SPEC D3: the tags admin page (decision 074): every tag in use with its tickets, a rename per
// tag (an existing name merges the two), and a delete that asks first on a page of its own (no
// dialog: it works without JavaScript and from the keyboard).

export interface TagsAdminProps {
  tags: { name: string; count: number }[];
  q?: string;
  /** The tags list was cut at its cap: the filter finds the others. */
  capped?: boolean;
  /** What the last change did ("Renamed …"), shown once. */
  notice?: string;
}

export function TagsAdminPage(p: TagsAdminProps) {
  return (
    <AdminFrame current="/tags" title="Tags">
      <p class="muted">
        A tag exists while a ticket has it. Renaming to a name in use merges the two; each ticket changed gets its own
        history entries, which scrips and webhooks see.
      </p>
      <form method="get" action="/tags" class="tags-filter" role="search">
        <label for="tags-q">Tags starting with</label>
        <input id="tags-q" name="q" type="search" value={p.q ?? ''} maxlength={40} autocomplete="off" />
        <button type="submit">Filter</button>
      </form>
      {p.notice && (
        <p class="notice" role="status">
          {p.notice}
        </p>
      )}
      {p.tags.length === 0 ? (
        <p class="muted">{p.q ? `No tag starts with “${p.q}”.` : 'No ticket has a tag yet.'}</p>
      ) : (
        <Wide label="Tags">
          <table class="tags-table">
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col">Tickets</th>
                <th scope="col">Rename</th>
                <th scope="col">Delete</th>
              </tr>
            </thead>
            <tbody>
              {p.tags.map((t, i) => (
                <tr>
                  <th scope="row">
                    <a href={tagListUrl(t.name)}>{t.name}</a>
                  </th>
                  <td>{t.count}</td>
                  <td>
                    <AdminForm action={`/tags/${tagPath(t.name)}`} method="PATCH" id={`rename-tag-${i}`}>
                      <span class="inline-form">
                        <label for={`rename-tag-${i}-name`} class="visually-hidden">
                          New name for {t.name}
                        </label>
                        <input
                          id={`rename-tag-${i}-name`}
                          name="name"
                          value={t.name}
                          maxlength={40}
                          required
                          autocomplete="off"
                          spellcheck={false}
                        />
                        <button type="submit" aria-label={`Rename ${t.name}`}>
                          Rename
                        </button>
                      </span>
                    </AdminForm>
                  </td>
                  <td>
                    <form method="post" action={`/tags/${tagPath(t.name)}`}>
                      <input type="hidden" name="_method" value="DELETE" />
                      <button type="submit" class="danger" aria-label={`Delete ${t.name}…`}>
                        Delete…
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
      )}
      {p.capped && <p class="muted small">Only the first {p.tags.length} tags are listed: filter to find others.</p>}
    </AdminFrame>
  );
}

/** DELETE /tags/:tag from a page, before it is confirmed: what will happen, and the button that does it. */
export function DeleteTagQuestion({ tag, count }: { tag: string; count: number }) {
  return (
    <AdminFrame current="/tags" title={`Delete the tag “${tag}”?`}>
      <p>
        It will be removed from {count === 1 ? '1 ticket' : `${count} tickets`}, each with a history entry. This cannot
        be undone by one click: the tag would have to be added to each ticket again.
      </p>
      <form method="post" action={`/tags/${tagPath(tag)}`} class="confirm-actions">
        <input type="hidden" name="_method" value="DELETE" />
        <input type="hidden" name="confirm" value="true" />
        <button type="submit" class="danger" autofocus>
          Delete “{tag}” from {count === 1 ? '1 ticket' : `${count} tickets`}
        </button>{' '}
        <a href="/tags">Cancel</a>
      </form>
    </AdminFrame>
  );
}
