import { isUuid } from '../../wire/ids.ts';
import { email, emit, optional, required, withDeps, UsageError, type Command } from '../cli.ts';

export const usersAddCommand: Command = {
  name: 'users add',
  usage: 'herd users add --organization-id O --email E [--level 1|8|15] [--first-name F] [--last-name L] [--json]',
  summary: 'Creates the user if needed and makes it a member of the organization.',
  flags: [
    ['--organization-id O', "the organization's id (a UUID)"],
    ['--email E', "the user's e-mail address"],
    ['--level 1|8|15', '1 member (default), 8 admin, 15 owner'],
    ['--first-name F', "a new user's first name"],
    ['--last-name L', "a new user's last name"],
  ],
  jsonResult: '{"user": {"id", "uuid", "email"}, "membership_id", "level"}',
  instead:
    'use the running server\'s API with an admin\'s personal API key: POST /api/organizations/<organization_id>/members/ {"email", "level"}',
  options: {
    'organization-id': { type: 'string' },
    email: { type: 'string' },
    level: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
  },
  async run(values, context) {
    const organizationId = required(values, 'organization-id').toLowerCase();
    if (!isUuid(organizationId))
      throw new UsageError(`--organization-id must be a UUID, got ${JSON.stringify(organizationId)}`);
    const [{ MEMBERSHIP_LEVELS }, { addMember }, { findOrganization }] = await Promise.all([
      import('../../modules/members/members.schemas.ts'),
      import('../../modules/members/members.service.ts'),
      import('../../modules/organizations/organizations.repository.ts'),
    ]);
    const levelText = optional(values, 'level') ?? '1';
    // Only the plain numerals: Number() would also take "8.0", "0x8" or "1e0".
    const level = MEMBERSHIP_LEVELS.find((choice) => String(choice) === levelText);
    if (level === undefined) throw new UsageError(`--level must be 1, 8 or 15, got ${JSON.stringify(levelText)}`);
    const input = {
      organizationId,
      email: email(values),
      firstName: optional(values, 'first-name'),
      lastName: optional(values, 'last-name'),
      level,
    };
    const member = await withDeps(context.config, async (deps) => {
      if (!(await findOrganization(deps.db, organizationId))) throw new UsageError(`no organization ${organizationId}`);
      return addMember(deps, input);
    });
    emit(
      context,
      {
        user: { id: member.user.id, uuid: member.user.uuid, email: member.user.email },
        membership_id: member.id,
        level: member.level,
      },
      [`${member.user.email} (${member.user.uuid}) is now a member of ${organizationId} at level ${member.level}`],
    );
  },
};
