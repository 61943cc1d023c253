import type { ErrorDetail } from '../../domain/errors.js';
import type { Person } from '../../domain/lookups.js';
import type { UserJson } from '../../domain/users.js';
import type { NotAddedJson } from '../../domain/mailCc.js';

// People on a ticket (SPEC C2): the person field with suggestions (new-ticket dialog, "add"
// form), the suggestion list GET /users?q= answers htmx with, and the wording of who is mailed.

export interface PersonFieldProps {
  id: string;
  name: string;
  label: string;
  value?: string;
  /** Several people, comma-separated (Requester, Cc); otherwise one (the "add" form). */
  multiple?: boolean;
  hint?: string;
  errors?: ErrorDetail[];
  placeholder?: string;
}

/**
 * A text field that suggests people as one types (htmx GET /users?q=… into a listbox below it;
 * static/app.js turns the last comma-separated part into `q` and puts a picked address in its
 * place). Without JavaScript it is a plain text field taking addresses.
 */
export function PersonField({
  id,
  name,
  label,
  value = '',
  multiple,
  hint,
  errors = [],
  placeholder,
}: PersonFieldProps) {
  const listId = `${id}-options`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = errors.length > 0 ? `${id}-error` : undefined;
  return (
    <div class="person-field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        value={value}
        type="text"
        autocomplete="off"
        spellcheck={false}
        maxlength={multiple ? 16_000 : 320}
        placeholder={placeholder}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded="false"
        aria-controls={listId}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
        aria-invalid={errors.length > 0 ? 'true' : undefined}
        data-people-search={multiple ? 'multiple' : 'single'}
        hx-get="/users"
        hx-trigger="input changed delay:200ms"
        hx-target={`#${listId}`}
        hx-swap="innerHTML"
        hx-params="none"
        hx-sync="this:replace"
        hx-push-url="false"
      />
      <ul id={listId} class="person-options" role="listbox" aria-label={`People matching ${label}`} hidden></ul>
      {hint && (
        <small class="hint" id={hintId}>
          {hint}
        </small>
      )}
      {errorId && (
        <span class="field-error" id={errorId} role="alert">
          {errors.map((e, i) => (
            <>
              {i > 0 && <br />}
              {e.message}
            </>
          ))}
        </span>
      )}
    </div>
  );
}

const ROLE_WORD: Record<string, string> = { admin: 'administrator', agent: 'agent', requester: 'customer' };

/** The suggestions for one typed text: each an option carrying the address it puts in the field. */
export function PeopleOptions({ users, q }: { users: UserJson[]; q: string }) {
  if (users.length === 0) {
    const address = q.trim();
    return /^[^\s@<>,]+@[^\s@<>,]+\.[^\s@<>,]+$/.test(address) ? (
      <li role="option" class="person-option person-new" data-value={address.toLowerCase()} aria-selected="false">
        <span class="person-name">New person</span> <span class="person-email">{address.toLowerCase()}</span>
      </li>
    ) : (
      <li role="option" class="person-none" aria-disabled="true" aria-selected="false">
        No one found. Type a whole address to add someone new.
      </li>
    );
  }
  return (
    <>
      {users.map((u) => (
        <li role="option" class="person-option" data-value={u.email} aria-selected="false">
          <span class="person-name">{u.name || u.email}</span> <span class="person-email">{u.email}</span>{' '}
          <span class="person-role">{ROLE_WORD[u.role] ?? u.role}</span>
        </li>
      ))}
    </>
  );
}

export const personLabel = (u: Pick<Person, 'name' | 'email'>) => u.name || u.email;

/** "Ann Lee, Bob and 3 more": at most `max` names. */
export function namesList(people: Pick<Person, 'name' | 'email'>[], max = 5): string {
  const names = people.map(personLabel);
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

/**
 * What the "Public reply" choice says: who the default scrips mail a reply to — requesters (To)
 * and Cc (the ticket's and its queue's), without the writer and disabled people (SPEC C2).
 */
export function publicReplyWords(to: Person[], cc: Person[]): string {
  if (to.length === 0 && cc.length === 0)
    return '(nobody will be mailed: the ticket has no requester or Cc besides you)';
  const parts = [to.length > 0 ? namesList(to) : '', cc.length > 0 ? `Cc ${namesList(cc)}` : ''].filter(Boolean);
  return `(mailed to ${parts.join(', ')})`;
}

export interface PeopleBoxProps {
  ticketId: number;
  requesters: Person[];
  cc: Person[];
  adminCc: Person[];
  /** The queue's Cc and AdminCc: watchers of every ticket in it, changed on the queue only. */
  queueCc: Person[];
  queueAdminCc: Person[];
  /** SPEC D0: people mail named whom the Cc bounds left out, each with "Add as Cc". */
  notAdded?: NotAddedJson[];
  /** SPEC D0: no staff member has written publicly yet, so customers' messages reach staff only. */
  relayHeld?: boolean;
  oob?: boolean;
}

type Role = 'requester' | 'cc' | 'admin_cc';
const ROLE_TITLE: Record<Role, string> = { requester: 'Requesters', cc: 'Cc', admin_cc: 'AdminCc' };
const ROLE_AS: Record<Role, string> = { requester: 'requester', cc: 'Cc', admin_cc: 'AdminCc' };

function PersonRow({
  ticketId,
  role,
  person,
  viaQueue,
}: {
  ticketId: number;
  role: Role;
  person: Person;
  viaQueue?: boolean;
}) {
  const url = `/tickets/${ticketId}/watchers/${role}/${person.id}`;
  return (
    <li class={person.disabled ? 'person disabled' : 'person'}>
      <span class="person-who">
        <span class="person-name">{personLabel(person)}</span>
        {person.name && <span class="person-email">{person.email}</span>}
        {person.disabled && <span class="person-note">disabled, gets no mail</span>}
        {viaQueue && <span class="person-note">via queue</span>}
      </span>
      {!viaQueue && (
        <form
          method="post"
          action={url}
          hx-post={url}
          hx-target="#people"
          hx-swap="outerHTML"
          data-error-target="#people-error"
        >
          <input type="hidden" name="_method" value="DELETE" />
          <button type="submit" class="link-button" aria-label={`Remove ${personLabel(person)} as ${ROLE_AS[role]}`}>
            Remove
          </button>
        </form>
      )}
    </li>
  );
}

function RoleList({
  ticketId,
  role,
  own,
  viaQueue = [],
}: {
  ticketId: number;
  role: Role;
  own: Person[];
  viaQueue?: Person[];
}) {
  const fromQueue = viaQueue.filter((q) => !own.some((o) => o.id === q.id));
  const headingId = `people-${role}`;
  return (
    <div class="people-role">
      <h3 id={headingId}>{ROLE_TITLE[role]}</h3>
      {own.length + fromQueue.length === 0 ? (
        <p class="muted small">None</p>
      ) : (
        <ul aria-labelledby={headingId}>
          {own.map((u) => (
            <PersonRow ticketId={ticketId} role={role} person={u} />
          ))}
          {fromQueue.map((u) => (
            <PersonRow ticketId={ticketId} role={role} person={u} viaQueue />
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * SPEC D0: the people mail named whom the Cc bounds did not add, with the reason, one action away
 * from being Cc (the "add someone" route, by address).
 */
function NotAdded({ ticketId, people }: { ticketId: number; people: NotAddedJson[] }) {
  const add = `/tickets/${ticketId}/watchers`;
  return (
    <div class="people-role not-added">
      <h3 id="people-not-added">Not added from mail</h3>
      <ul aria-labelledby="people-not-added">
        {people.map((n) => (
          <li class="person">
            <span class="person-who">
              <span class="person-name">{n.name || n.email}</span>
              {n.name && <span class="person-email">{n.email}</span>}
              <span class="person-note">{n.reason}</span>
            </span>
            <form
              method="post"
              action={add}
              hx-post={add}
              hx-target="#people"
              hx-swap="outerHTML"
              data-error-target="#people-error"
            >
              <input type="hidden" name="role" value="cc" />
              <input
                type="hidden"
                name="email"
                value={n.name ? `"${n.name.replace(/["\\<>]/g, '')}" <${n.email}>` : n.email}
              />
              <button type="submit" class="link-button" aria-label={`Add as Cc: ${n.name || n.email}`}>
                Add as Cc
              </button>
            </form>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Who is on the ticket, each removable, and a form to add someone (staff only). */
export function PeopleBox(p: PeopleBoxProps) {
  const add = `/tickets/${p.ticketId}/watchers`;
  return (
    <section id="people" class="people" aria-labelledby="people-title" hx-swap-oob={p.oob ? 'true' : undefined}>
      <h2 id="people-title">People</h2>
      <RoleList ticketId={p.ticketId} role="requester" own={p.requesters} />
      <RoleList ticketId={p.ticketId} role="cc" own={p.cc} viaQueue={p.queueCc} />
      <RoleList ticketId={p.ticketId} role="admin_cc" own={p.adminCc} viaQueue={p.queueAdminCc} />
      {(p.notAdded ?? []).length > 0 && <NotAdded ticketId={p.ticketId} people={p.notAdded!} />}
      {p.relayHeld && (
        <p class="muted small relay-held">
          Until someone on staff replies publicly, what a customer writes on this ticket reaches staff only, not the
          other customers.
        </p>
      )}
      <form
        class="people-add"
        method="post"
        action={add}
        hx-post={add}
        hx-target="#people"
        hx-swap="outerHTML"
        data-error-target="#people-error"
      >
        <h3>Add someone</h3>
        <label for="people-add-role">Role</label>
        <select id="people-add-role" name="role">
          <option value="cc">Cc (gets public replies)</option>
          <option value="requester">Requester</option>
          <option value="admin_cc">AdminCc (staff: replies and internal notes)</option>
        </select>
        <PersonField id="people-add-email" name="email" label="Person" placeholder="Name or e-mail address" />
        <button type="submit">Add</button>
      </form>
      <div id="people-error" class="field-error people-error" role="alert" aria-live="polite"></div>
    </section>
  );
}
