// The organization's members: list, add by email with a level, change a level, remove (after a
// confirmation).
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { OrganizationMember, Page } from '../api/types.ts';
import { ConfirmButton } from '../components/confirm-dialog.tsx';
import { ErrorMessage, formError, Loading } from '../components/feedback.tsx';
import { FieldError, fieldInputProps } from '../components/field-error.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { plural, Time } from '../components/values.tsx';
import type { ProjectContext } from '../workspace.ts';
import { MEMBER_LEVELS, userName } from './role-levels.ts';

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
    // noValidate: the API says what is wrong, beside the field, as everywhere in the console.
    <form class="panel" onSubmit={add} aria-labelledby="add-member-heading" noValidate>
      <h2 id="add-member-heading">Add a member</h2>
      <div class="field">
        <label for="member-email">Email</label>
        <input
          id="member-email"
          type="email"
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
          {...fieldInputProps(action.error, 'member-email', 'email')}
        />
        <FieldError error={action.error} id="member-email" attrs={['email']} />
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
      <ErrorMessage error={formError(action.error, 'email')} fields={{ first_name: 'First name', level: 'Level' }} />
      <button type="submit" disabled={action.busy}>
        Add member
      </button>
    </form>
  );
}

/** A member's level as a select: a change is saved at once, its error shown beside it. */
function MemberLevel({ member, base, onChanged }: { member: OrganizationMember; base: string; onChanged: () => void }) {
  const action = useAction();
  const [saved, setSaved] = useState<number | null>(null);
  const id = `member-level-${member.id}`;
  const change = (level: number) =>
    action.run(async () => {
      setSaved(null);
      await api(`${base}${member.user.uuid}/`, { method: 'PATCH', body: { level } });
      setSaved(level);
      onChanged();
    });
  return (
    <div class="level-field">
      <select
        id={id}
        aria-label={`Level of ${member.user.email}`}
        value={String(member.level)}
        disabled={action.busy}
        onChange={(event) => void change(Number(event.currentTarget.value))}
        {...fieldInputProps(action.error, id)}
      >
        {MEMBER_LEVELS.map(([value, label]) => (
          <option key={value} value={String(value)}>
            {label}
          </option>
        ))}
      </select>
      {saved !== null && saved === member.level ? (
        <span class="saved" role="status">
          Saved
        </span>
      ) : null}
      {/* Every refusal of a level change (your own, an owner's) is about this select. */}
      <FieldError error={action.error} id={id} />
    </div>
  );
}

function RemoveMember({
  member,
  base,
  onRemoved,
}: {
  member: OrganizationMember;
  base: string;
  onRemoved: () => void;
}) {
  return (
    <ConfirmButton
      label={`Remove ${member.user.email} from the organization`}
      text="Remove"
      buttonClass="secondary"
      title={`Remove ${member.user.email} from the organization?`}
      confirm="Remove member"
      keep="Keep member"
      onConfirm={async () => {
        await api(`${base}${member.user.uuid}/`, { method: 'DELETE' });
        onRemoved();
      }}
    >
      <p>
        {userName(member.user)} loses access to every project of the organization and leaves its roles. Their personal
        API keys stop reaching it. Adding them again starts afresh.
      </p>
    </ConfirmButton>
  );
}

export function MembersScreen({ context }: { context: ProjectContext }) {
  const base = `/api/organizations/${context.project.organization}/members/`;
  const [offset, setOffset] = useState(0);
  const members = useLoad(
    () => api<Page<OrganizationMember>>(base, { query: { limit: PAGE_SIZE, offset } }),
    [base, offset],
  );
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
                  <td>
                    <MemberLevel member={member} base={base} onChanged={members.reload} />
                  </td>
                  <td>
                    <Time iso={member.joined_at} />
                  </td>
                  <td>
                    <RemoveMember member={member} base={base} onRemoved={members.reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Members" count={members.data.count} offset={offset} onOffset={setOffset} />
        </>
      ) : members.loading ? (
        <Loading what="members" />
      ) : null}
      <AddMember base={base} onAdded={members.reload} />
    </>
  );
}
