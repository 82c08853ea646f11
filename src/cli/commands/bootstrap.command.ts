import { bootstrap } from '../../modules/bootstrap/bootstrap.service.ts';
import { email, emit, optional, withDeps, UsageError, type Command } from '../cli.ts';

export const bootstrapCommand: Command = {
  name: 'bootstrap',
  usage: 'herd bootstrap --email E [--first-name F] [--organization-name N] [--project-name P] [--json]',
  options: {
    email: { type: 'string' },
    'first-name': { type: 'string' },
    'organization-name': { type: 'string' },
    'project-name': { type: 'string' },
  },
  async run(values, context) {
    const input = {
      email: email(values),
      firstName: optional(values, 'first-name'),
      organizationName: optional(values, 'organization-name') ?? 'Default Organization',
      projectName: optional(values, 'project-name') ?? 'Default Project',
    };
    if (input.organizationName.length > 64) throw new UsageError('--organization-name may have at most 64 characters');
    if (input.projectName.length > 200) throw new UsageError('--project-name may have at most 200 characters');
    const result = await withDeps(context.config, (deps) => bootstrap(deps, input));
    emit(
      context,
      {
        organization_id: result.organization.id,
        project_id: result.project.id,
        project_api_key: result.project.api_token,
        user: { id: result.user.id, uuid: result.user.uuid, email: result.user.email },
        personal_api_key: result.keyValue,
      },
      [
        `user             ${result.user.email} (${result.user.uuid})`,
        `organization     ${result.organization.name} (${result.organization.id})`,
        `project          ${result.project.name} (id ${result.project.id})`,
        `project token    ${result.project.api_token}`,
        `personal API key ${result.keyValue}   (shown once; store it now)`,
      ],
    );
  },
};
