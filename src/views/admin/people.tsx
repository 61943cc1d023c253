import type { Lookups } from '../../domain/lookups.js';
import type { TeamJson } from '../../domain/teams.js';
import type { UserJson, UserPage as UserListPage } from '../../domain/users.js';
import { When } from '../format.js';
import { AdminForm, AdminFrame, Wide, Check, Choice, ListPager, Text } from './common.js';

const ROLE_OPTIONS: [string, string][] = [
  ['agent', 'Agent'],
  ['admin', 'Administrator'],
  ['requester', 'Requester'],
];

export function UsersPage({
  page,
  query,
}: {
  page: UserListPage;
  query: Record<string, string | number | boolean | undefined>;
}) {
  const { users } = page;
  const flat = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v === undefined ? undefined : String(v)]));
  return (
    <AdminFrame current="/users" title="Users">
      <form class="people-search" method="get" action="/users" role="search">
        <label>
          Search people{' '}
          <input type="search" name="q" value={String(query.q ?? '')} maxlength={200} placeholder="Name or address" />
        </label>
        {query.limit !== undefined && <input type="hidden" name="limit" value={String(query.limit)} />}
        <button type="submit">Search</button>
        {query.q !== undefined && <a href="/users">Show everyone</a>}
      </form>
      <div class="admin-grid">
        <div>
          <Wide label="Users">
            <table class="plain">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Email</th>
                  <th>Role</th>
                  <th>State</th>
                </tr>
              </thead>
              <tbody>
                {users.map((u) => (
                  <tr class={u.disabled ? 'muted' : ''}>
                    <td>
                      <a href={`/users/${u.id}`}>{u.name || '(no name)'}</a>
                    </td>
                    <td>{u.email}</td>
                    <td>{u.role}</td>
                    <td>
                      {u.disabled ? 'Disabled' : 'Active'}
                      {u.blocked && <span class="badge badge-blocked"> blocked</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Wide>
          {users.length === 0 && <p class="muted">No one matches.</p>}
          <ListPager path="/users" query={flat} total={page.total} limit={page.limit} offset={page.offset} />
        </div>
        <div class="card">
          <h2>New user</h2>
          <AdminForm action="/users" id="new-user">
            <Text name="name" label="Name" />
            <Text name="email" label="Email" type="email" required />
            <Choice name="role" label="Role" value="agent" options={ROLE_OPTIONS} />
            <Text
              name="password"
              label="Password"
              type="password"
              hint="At least 12 characters. Leave empty for a user who cannot sign in."
            />
            <button type="submit" class="primary">
              Create user
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}

export function UserPage({ user: u, lookups: l }: { user: UserJson; lookups: Lookups }) {
  const teams = l.teams.filter((t) => t.members.includes(u.id));
  return (
    <AdminFrame current="/users" title={u.name || u.email}>
      <div class="admin-grid">
        <div class="card">
          {u.blocked && (
            <div class="blocked-banner" role="status">
              <p>
                <span class="badge badge-blocked">Blocked</span> Marked as a spammer: mail from {u.email} is refused
                (nothing is sent back).
              </p>
              <AdminForm action={`/users/${u.id}/unblock`} id="unblock-user">
                <button type="submit">Unblock</button>
              </AdminForm>
            </div>
          )}
          <AdminForm action={`/users/${u.id}`} method="PATCH" id="edit-user">
            <Text name="name" label="Name" value={u.name} />
            <Text name="email" label="Email" type="email" value={u.email} required />
            <Choice name="role" label="Role" value={u.role} options={ROLE_OPTIONS} />
            <Check name="disabled" label="Disabled (cannot sign in, gets no mail)" checked={u.disabled} />
            <button type="submit" class="primary">
              Save
            </button>
          </AdminForm>
          <AdminForm action={`/users/${u.id}`} method="PATCH" id="user-password">
            <Text
              name="password"
              label="New password"
              type="password"
              hint="At least 12 characters; signs the user out everywhere."
            />
            <button type="submit">Set password</button>
          </AdminForm>
        </div>
        <div class="card">
          <h2>Teams</h2>
          {teams.length ? (
            <ul>
              {teams.map((t) => (
                <li>
                  <a href={`/teams/${t.id}`}>{t.name}</a>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">In no team.</p>
          )}
          <p class="muted small">
            Created <When iso={u.created_at} /> · updated <When iso={u.updated_at} />
          </p>
          <AdminForm
            action={`/users/${u.id}/portal-links/revoke`}
            id="revoke-portal-links"
            confirm={`Revoke every portal link mailed to ${u.email} so far? Their next mail from us brings a new one.`}
          >
            <button type="submit">Revoke portal links</button>
            <small class="hint">
              The links in mail we sent this person stop working (say, a message was forwarded to someone it was not
              meant for).
            </small>
          </AdminForm>
          {!u.disabled && (
            <AdminForm
              action={`/users/${u.id}`}
              method="DELETE"
              id="delete-user"
              confirm={`Disable ${u.email} and remove them from all teams?`}
            >
              <button type="submit" class="danger">
                Disable user
              </button>
            </AdminForm>
          )}
        </div>
      </div>
    </AdminFrame>
  );
}

export function TeamsPage({ teams, lookups: l }: { teams: TeamJson[]; lookups: Lookups }) {
  return (
    <AdminFrame current="/teams" title="Teams">
      <div class="admin-grid">
        <Wide label="Teams">
          <table class="plain">
            <thead>
              <tr>
                <th>Team</th>
                <th>Description</th>
                <th>Members</th>
              </tr>
            </thead>
            <tbody>
              {teams.length === 0 && (
                <tr>
                  <td colspan={3} class="empty">
                    No teams yet.
                  </td>
                </tr>
              )}
              {teams.map((t) => (
                <tr>
                  <td>
                    <a href={`/teams/${t.id}`}>{t.name}</a>
                  </td>
                  <td>{t.description}</td>
                  <td>{t.members.map((id) => l.users.find((u) => u.id === id)?.name ?? `#${id}`).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
        <div class="card">
          <h2>New team</h2>
          <AdminForm action="/teams" id="new-team">
            <Text name="name" label="Name" required />
            <Text name="description" label="Description" />
            <button type="submit" class="primary">
              Create team
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}

export function TeamPage({ team: t, lookups: l }: { team: TeamJson; lookups: Lookups }) {
  const candidates = l.users.filter((u) => !u.disabled && !t.members.includes(u.id));
  return (
    <AdminFrame current="/teams" title={`Team ${t.name}`}>
      <div class="admin-grid">
        <div class="card">
          <h2>Members</h2>
          <Wide label="Members">
            <table class="plain">
              <tbody>
                {t.members.length === 0 && (
                  <tr>
                    <td class="empty">No members yet.</td>
                  </tr>
                )}
                {t.members.map((id) => {
                  const u = l.users.find((x) => x.id === id);
                  return (
                    <tr>
                      <td>{u ? `${u.name || u.email} (${u.email})` : `User #${id}`}</td>
                      <td>
                        <AdminForm action={`/teams/${t.id}/members/${id}`} method="DELETE" id={`remove-member-${id}`}>
                          <button type="submit">Remove</button>
                        </AdminForm>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Wide>
          <AdminForm action={`/teams/${t.id}/members`} id="add-member">
            <Choice
              name="user_id"
              label="Add a member"
              options={candidates.map((u): [string, string] => [String(u.id), `${u.name || u.email} (${u.email})`])}
            />
            <button type="submit">Add to team</button>
          </AdminForm>
        </div>
        <div class="card">
          <AdminForm action={`/teams/${t.id}`} method="PATCH" id="edit-team">
            <Text name="name" label="Name" value={t.name} required />
            <Text name="description" label="Description" value={t.description} />
            <button type="submit" class="primary">
              Save
            </button>
          </AdminForm>
          <AdminForm
            action={`/teams/${t.id}`}
            method="DELETE"
            id="delete-team"
            confirm={`Delete team ${t.name}? Queues, tickets and dashboards keep working without a team.`}
          >
            <button type="submit" class="danger">
              Delete team
            </button>
          </AdminForm>
        </div>
      </div>
    </AdminFrame>
  );
}
