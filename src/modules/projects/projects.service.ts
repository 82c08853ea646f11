// Projects: the caller's list within its key's limits, and creation by an organization admin.
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { validationError } from '../../errors.ts';
import type { PageRequest } from '../../wire/page.ts';
import { iso } from '../../wire/serializers.ts';
import { authorizeOrganization, type Actor } from '../access/access.service.ts';
import { findOrganization } from '../organizations/organizations.repository.ts';
import { recordActivity, type ActivityChange } from '../activity/activity.repository.ts';
import { insertProject, listProjectsOfUser, updateProjectRow } from './projects.repository.ts';
import { retentionDaysOf, type ProjectWire, type UpdateProjectBodyWire } from './projects.schemas.ts';

export function serializeProject(project: TeamRow): ProjectWire {
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organization_id,
    name: project.name,
    api_token: project.api_token,
    created_at: iso(project.created_at),
    data_retention_days: project.data_retention_days,
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

/** Changes a project's name or retention period; each change is recorded in the activity log. */
export async function updateProject(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; body: UpdateProjectBodyWire },
): Promise<ProjectWire> {
  const { project, body } = input;
  const changes: ActivityChange[] = [];
  const set: { name?: string; data_retention_days?: number | null } = {};
  if (body.name !== undefined) {
    const name = body.name.trim();
    if (!name) throw validationError('This field may not be blank.', 'name', 'blank');
    if (name !== project.name) {
      set.name = name;
      changes.push({ type: 'Project', action: 'changed', field: 'name', before: project.name, after: name });
    }
  }
  const days = body.data_retention_days === undefined ? undefined : retentionDaysOf(body.data_retention_days);
  if (days !== undefined && days !== project.data_retention_days) {
    set.data_retention_days = days;
    changes.push({
      type: 'Project',
      action: 'changed',
      field: 'data_retention_days',
      before: project.data_retention_days,
      after: days,
    });
  }
  if (changes.length === 0) return serializeProject(project);
  const now = deps.clock.now();
  const updated = await deps.db.transaction().execute(async (trx) => {
    const row = await updateProjectRow(trx, project.id, set);
    await recordActivity(
      trx,
      {
        organizationId: project.organization_id,
        teamId: project.id,
        scope: 'Project',
        itemId: String(project.id),
        activity: 'updated',
        userId: actor.user.id,
        detail: { changes, name: row.name },
      },
      now,
    );
    return row;
  });
  return serializeProject(updated);
}
