// The organization's members: list, add by email with a level, remove.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { OrganizationMember, Page } from '../api/types.ts';
import { ErrorMessage, fieldError, formError, Loading } from '../components/feedback.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { plural, Time } from '../components/values.tsx';
import type { ProjectContext } from '../workspace.ts';
import { MEMBER_LEVELS, memberLevelLabel, userName } from './role-levels.ts';

function AddMember({ base, onAdded }: { base: string; onAdded: () => void }) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [level, setLevel] = useState(1);
  const action = useAction();
  const add = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api(base, { method: 'POST', body: { email, first_name: firstName, level } });
      setEmail('');
      setFirstName('');
      onAdded();
    });
  };
  return (
    <form class="panel" onSubmit={add} aria-labelledby="add-member-heading">
      <h2 id="add-member-heading">Add a member</h2>
      <div class="field">
        <label for="member-email">Email</label>
        <input id="member-email" type="email" value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        <ErrorMessage error={fieldError(action.error, 'email')} />
      </div>
      <div class="field">
        <label for="member-first-name">First name</label>
        <input id="member-first-name" value={firstName} onInput={(event) => setFirstName(event.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="member-level">Level</label>
        <select
          id="member-level"
          value={String(level)}
          onChange={(event) => setLevel(Number(event.currentTarget.value))}
        >
          {MEMBER_LEVELS.map(([value, label]) => (
            <option key={value} value={String(value)}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <ErrorMessage error={formError(action.error, 'email')} />
      <button type="submit" disabled={action.busy}>
        Add member
      </button>
    </form>
  );
}

export function MembersScreen({ context }: { context: ProjectContext }) {
  const base = `/api/organizations/${context.project.organization}/members/`;
  const [offset, setOffset] = useState(0);
  const members = useLoad(
    () => api<Page<OrganizationMember>>(base, { query: { limit: PAGE_SIZE, offset } }),
    [base, offset],
  );
  const removal = useAction();
  return (
    <>
      <h1 tabIndex={-1}>Members</h1>
      <p class="muted">Members of {context.organization?.name ?? 'this organization'}.</p>
      <ErrorMessage error={members.error} />
      {members.data ? (
        <>
          <table>
            <caption>{plural(members.data.count, 'member')}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Level</th>
                <th scope="col">Joined</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {members.data.results.map((member) => (
                <tr key={member.id}>
                  <td>{userName(member.user)}</td>
                  <td>{member.user.email}</td>
                  <td>{memberLevelLabel(member.level)}</td>
                  <td>
                    <Time iso={member.joined_at} />
                  </td>
                  <td>
                    <button
                      type="button"
                      disabled={removal.busy}
                      onClick={() =>
                        removal.run(async () => {
                          await api(`${base}${member.user.uuid}/`, { method: 'DELETE' });
                          members.reload();
                        })
                      }
                    >
                      Remove {member.user.email} from the organization
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <ErrorMessage error={removal.error} />
          <Pager label="Members" count={members.data.count} offset={offset} onOffset={setOffset} />
        </>
      ) : members.loading ? (
        <Loading what="members" />
      ) : null}
      <AddMember base={base} onAdded={members.reload} />
    </>
  );
}
