import { email, emit, optional, withDeps, UsageError, type Command } from '../cli.ts';

export const bootstrapCommand: Command = {
  name: 'bootstrap',
  usage: 'herd bootstrap --email E [--first-name F] [--organization-name N] [--project-name P] [--json]',
  summary:
    'Creates the user (or reuses it), an organization the user owns (level 15), a project, and a personal API key with scopes ["*"].',
  flags: [
    ['--email E', "the user's e-mail address (an existing user is reused)"],
    ['--first-name F', "the new user's first name"],
    ['--organization-name N', 'the organization (default "Default Organization"; at most 64 characters)'],
    ['--project-name P', 'the project (default "Default Project"; at most 200 characters)'],
  ],
  jsonResult:
    '{"organization_id", "project_id", "project_api_key", "user": {"id", "uuid", "email"}, "personal_api_key"}',
  instead:
    'for the first account of an empty install, open the link the running server printed (/#/setup?token=…); else use the running server\'s API with a personal API key: POST /api/organizations/ {"name"}, POST /api/projects/ {"name", "organization_id"}, POST /api/personal_api_keys/ {"label", "scopes"}',
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
      organizationName: optional(values, 'organization-name'),
      projectName: optional(values, 'project-name'),
    };
    if (input.organizationName && input.organizationName.length > 64)
      throw new UsageError('--organization-name may have at most 64 characters');
    if (input.projectName && input.projectName.length > 200)
      throw new UsageError('--project-name may have at most 200 characters');
    const { bootstrap } = await import('../../modules/bootstrap/bootstrap.service.ts');
    const { firstAccountWire } = await import('../../modules/bootstrap/bootstrap.schemas.ts');
    const result = await withDeps(context.config, (deps) => bootstrap(deps, input));
    emit(context, firstAccountWire(result), [
      `user             ${result.user.email} (${result.user.uuid})`,
      `organization     ${result.organization.name} (${result.organization.id})`,
      `project          ${result.project.name} (id ${result.project.id})`,
      `project token    ${result.project.api_token}`,
      `personal API key ${result.keyValue}   (shown once; store it now)`,
    ]);
  },
};
