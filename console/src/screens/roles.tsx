// The organization's roles: list and create. A role's own screen renames, changes its access
// level, deletes it and manages its members.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Page, Role } from '../api/types.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { plural, Time } from '../components/values.tsx';
import type { ProjectContext } from '../workspace.ts';
import { navigate, projectHref } from '../router.ts';
import { RoleFields } from './role-fields.tsx';
import { accessLabel } from './role-levels.ts';

function CreateRole({ base, projectId }: { base: string; projectId: number }) {
  const [name, setName] = useState('');
  const [level, setLevel] = useState(37);
  const action = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const role = await api<Role>(base, { method: 'POST', body: { name, feature_flags_access_level: level } });
      navigate('p', projectId, 'roles', role.id);
    });
  };
  return (
    <form class="panel" onSubmit={create} aria-labelledby="new-role-heading">
      <h2 id="new-role-heading">New role</h2>
      <RoleFields
        idPrefix="new-role"
        name={name}
        level={level}
        onName={setName}
        onLevel={setLevel}
        error={action.error}
      />
      <button type="submit" disabled={action.busy}>
        Create role
      </button>
    </form>
  );
}

export function RolesScreen({ context }: { context: ProjectContext }) {
  const projectId = context.project.id;
  const base = `/api/organizations/${context.project.organization}/roles/`;
  const [offset, setOffset] = useState(0);
  const roles = useLoad(() => api<Page<Role>>(base, { query: { limit: PAGE_SIZE, offset } }), [base, offset]);
  return (
    <>
      <h1 tabIndex={-1}>Roles</h1>
      <p class="muted">Roles of {context.organization?.name ?? 'this organization'}.</p>
      <ErrorMessage error={roles.error} />
      {roles.data ? (
        roles.data.count === 0 ? (
          <p class="muted">No roles yet.</p>
        ) : (
          <>
            <table>
              <caption>{plural(roles.data.count, 'role')}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Feature flag access</th>
                  <th scope="col">Members</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {roles.data.results.map((role) => (
                  <tr key={role.id}>
                    <th scope="row">
                      <a href={projectHref(projectId, 'roles', role.id)}>{role.name}</a>
                    </th>
                    <td>{accessLabel(role.feature_flags_access_level)}</td>
                    <td>{role.members.length}</td>
                    <td>
                      <Time iso={role.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager label="Roles" count={roles.data.count} offset={offset} onOffset={setOffset} />
          </>
        )
      ) : roles.loading ? (
        <Loading what="roles" />
      ) : null}
      <CreateRole base={base} projectId={projectId} />
    </>
  );
}
