// SPEC D3 tags in the ticket list (decision 074): the bulk bar's "add tags" and "remove tags"
// fields, and the list filter's "with all of these tags" / "with any of these tags" fields.
// Each takes tags separated by commas, with the tags in use as suggestions (a datalist loaded
// from GET /tags when a field is first focused).

/** A comma-separated tags field with the tags in use as suggestions. */
function TagsField({
  id,
  name,
  label,
  listId,
  value,
  placeholder,
}: {
  id: string;
  name: string;
  label: string;
  listId: string;
  value?: string;
  placeholder?: string;
}) {
  return (
    <label for={id}>
      {label}{' '}
      <input
        id={id}
        name={name}
        type="text"
        value={value ?? ''}
        list={listId}
        autocomplete="off"
        spellcheck={false}
        maxlength={900}
        placeholder={placeholder}
        hx-get="/tags"
        hx-trigger="focus once"
        hx-target={`#${listId}`}
        hx-swap="innerHTML"
        hx-params="none"
        hx-push-url="false"
      />
    </label>
  );
}

/** The bulk bar's tag changes (`changes.add_tags`, `changes.remove_tags`: comma-separated). */
export function BulkTags() {
  return (
    <>
      <TagsField
        id="bulk-add-tags"
        name="changes.add_tags"
        label="Add tags"
        listId="bulk-tag-options"
        placeholder="No change"
      />
      <TagsField
        id="bulk-remove-tags"
        name="changes.remove_tags"
        label="Remove tags"
        listId="bulk-tag-options"
        placeholder="No change"
      />
      <datalist id="bulk-tag-options"></datalist>
    </>
  );
}

/** The list filter's tag fields: `tag` (every one of them) and `tag_any` (at least one). */
export function TagFilterFields({ tag, tagAny }: { tag?: string[]; tagAny?: string[] }) {
  return (
    <>
      <TagsField
        id="filter-tag"
        name="tag"
        label="Tags (all of)"
        listId="filter-tag-options"
        value={tag?.join(', ')}
        placeholder="e.g. vip, billing"
      />
      <TagsField
        id="filter-tag-any"
        name="tag_any"
        label="Tags (any of)"
        listId="filter-tag-options"
        value={tagAny?.join(', ')}
      />
      <datalist id="filter-tag-options"></datalist>
    </>
  );
}
