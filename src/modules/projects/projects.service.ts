// Projects: the caller's list within its key's limits, and creation by an organization admin.
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { validationError } from '../../errors.ts';
import type { PageRequest } from '../../wire/page.ts';
import { iso } from '../../wire/serializers.ts';
import { authorizeOrganization, type Actor } from '../access/access.service.ts';
import { findOrganization } from '../organizations/organizations.repository.ts';
import { insertProject, listProjectsOfUser } from './projects.repository.ts';
import type { ProjectWire } from './projects.schemas.ts';

export function serializeProject(project: TeamRow): ProjectWire {
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organization_id,
    name: project.name,
    api_token: project.api_token,
    created_at: iso(project.created_at),
  };
}

/** The projects of every organization the actor belongs to, within its key's restrictions, oldest first. */
export async function listProjectsPage(
  deps: Deps,
  actor: Actor,
  input: { page: PageRequest },
): Promise<{ count: number; results: ProjectWire[] }> {
  const restrictions = { organizations: actor.key.scoped_organizations, teams: actor.key.scoped_teams };
  const { count, rows } = await listProjectsOfUser(deps.db, actor.user.id, input.page, restrictions);
  return { count, results: rows.map(serializeProject) };
}

/** A project in the given organization (default: the actor's @current one); needs admin there. */
export async function createProject(
  deps: Deps,
  actor: Actor,
  input: { name: string; organizationId?: string },
): Promise<ProjectWire> {
  const name = input.name.trim();
  if (!name) throw validationError('This field may not be blank.', 'name', 'blank');
  if (input.organizationId && !(await findOrganization(deps.db, input.organizationId.toLowerCase()))) {
    throw validationError('Organization does not exist.', 'organization_id');
  }
  const organization = input.organizationId?.toLowerCase() ?? '@current';
  const access = await authorizeOrganization(deps, actor, { organization, scopes: ['project:write'], admin: true });
  return serializeProject(
    await insertProject(deps.db, { organizationId: access.organization.id, name }, deps.clock.now()),
  );
}
