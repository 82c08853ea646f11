// One role: rename it, set its feature-flag access level, delete it; add organization members to
// it and remove them.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { OrganizationMember, Page, Role, RoleMembership } from '../api/types.ts';
import { ConfirmButton } from '../components/confirm-dialog.tsx';
import { BackTo, DetailMessage, ErrorMessage, Loading, Notice } from '../components/feedback.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { plural, Time } from '../components/values.tsx';
import type { ProjectContext } from '../workspace.ts';
import { navigate } from '../router.ts';
import { RoleFields } from './role-fields.tsx';
import { userName } from './role-levels.ts';

function EditRole({ role, base, onSaved }: { role: Role; base: string; onSaved: (role: Role) => void }) {
  const [name, setName] = useState(role.name);
  const [level, setLevel] = useState(role.feature_flags_access_level);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const save = (event: Event) => {
    event.preventDefault();
    setSaved(false);
    void action.run(async () => {
      onSaved(await api<Role>(base, { method: 'PATCH', body: { name, feature_flags_access_level: level } }));
      setSaved(true);
    });
  };
  return (
    <form class="panel" onSubmit={save} aria-labelledby="edit-role-heading">
      <h2 id="edit-role-heading">Settings</h2>
      <RoleFields idPrefix="role" name={name} level={level} onName={setName} onLevel={setLevel} error={action.error} />
      {saved ? <Notice>Role saved.</Notice> : null}
      <button type="submit" disabled={action.busy}>
        Save role
      </button>
    </form>
  );
}

function RoleMembers({ base, organizationId }: { base: string; organizationId: string }) {
  const membershipsPath = `${base}role_memberships/`;
  const [offset, setOffset] = useState(0);
  const memberships = useLoad(
    () => api<Page<RoleMembership>>(membershipsPath, { query: { limit: PAGE_SIZE, offset } }),
    [membershipsPath, offset],
  );
  const members = useLoad(
    () => api<Page<OrganizationMember>>(`/api/organizations/${organizationId}/members/`, { query: { limit: 1000 } }),
    [organizationId],
  );
  const [userUuid, setUserUuid] = useState('');
  const add = useAction();
  const inRole = new Set(memberships.data?.results.map((membership) => membership.user.uuid));
  const candidates = members.data?.results.filter((member) => !inRole.has(member.user.uuid)) ?? [];
  const submit = (event: Event) => {
    event.preventDefault();
    void add.run(async () => {
      await api(membershipsPath, { method: 'POST', body: { user_uuid: userUuid } });
      setUserUuid('');
      memberships.reload();
    });
  };
  return (
    <section aria-labelledby="role-members-heading">
      <h2 id="role-members-heading">Members</h2>
      <ErrorMessage error={memberships.error} />
      {memberships.data ? (
        memberships.data.count === 0 ? (
          <p class="muted">Nobody has this role yet.</p>
        ) : (
          <>
            <table>
              <caption>{plural(memberships.data.count, 'member')} of this role</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Since</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {memberships.data.results.map((membership) => (
                  <tr key={membership.id}>
                    <td>{userName(membership.user)}</td>
                    <td>{membership.user.email}</td>
                    <td>
                      <Time iso={membership.joined_at} />
                    </td>
                    <td>
                      <ConfirmButton
                        label={`Remove ${membership.user.email}`}
                        text="Remove"
                        buttonClass="secondary"
                        title={`Remove ${membership.user.email} from this role?`}
                        confirm="Remove from role"
                        keep="Keep in role"
                        onConfirm={async () => {
                          await api(`${membershipsPath}${membership.id}/`, { method: 'DELETE' });
                          memberships.reload();
                        }}
                      >
                        <p>
                          {userName(membership.user)} stays a member of the organization but no longer has what this
                          role grants.
                        </p>
                      </ConfirmButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager label="Role members" count={memberships.data.count} offset={offset} onOffset={setOffset} />
          </>
        )
      ) : null}
      <form class="inline-form" onSubmit={submit} aria-label="Add a member to this role">
        <label for="role-add-member">Organization member</label>
        <select id="role-add-member" value={userUuid} onChange={(event) => setUserUuid(event.currentTarget.value)}>
          <option value="">Choose a member…</option>
          {candidates.map((member) => (
            <option key={member.user.uuid} value={member.user.uuid}>
              {userName(member.user)} ({member.user.email})
            </option>
          ))}
        </select>
        <button type="submit" disabled={add.busy}>
          Add member
        </button>
        <ErrorMessage error={add.error ?? members.error} />
      </form>
    </section>
  );
}

export function RoleScreen({ context, roleId }: { context: ProjectContext; roleId: string }) {
  const projectId = context.project.id;
  const organizationId = context.project.organization;
  const base = `/api/organizations/${organizationId}/roles/${encodeURIComponent(roleId)}/`;
  const loaded = useLoad(() => api<Role>(base), [base]);
  const [saved, setSaved] = useState<Role | null>(null);
  const role = saved ?? loaded.data;
  if (loaded.error) {
    return (
      <DetailMessage title="Role" projectId={projectId} list="roles">
        <ErrorMessage error={loaded.error} />
      </DetailMessage>
    );
  }
  if (!role) return <Loading what="the role" />;
  const remove = async () => {
    await api(base, { method: 'DELETE' });
    navigate('p', projectId, 'roles');
  };
  return (
    <>
      <BackTo projectId={projectId} list="roles" />
      <h1 tabIndex={-1}>Role: {role.name}</h1>
      <p class="muted">
        Created <Time iso={role.created_at} />
        {role.created_by ? ` by ${role.created_by.email}` : ''}
      </p>
      <EditRole role={role} base={base} onSaved={setSaved} />
      <RoleMembers base={base} organizationId={organizationId} />
      <section aria-labelledby="delete-role-heading" class="danger">
        <h2 id="delete-role-heading">Delete this role</h2>
        <ConfirmButton
          label="Delete role"
          title={`Delete the role ${role.name}?`}
          confirm="Delete role permanently"
          onConfirm={remove}
        >
          <p>
            Its {plural(role.members.length, 'member')} lose what it grants; they stay members of the organization. This
            cannot be undone.
          </p>
        </ConfirmButton>
      </section>
    </>
  );
}
