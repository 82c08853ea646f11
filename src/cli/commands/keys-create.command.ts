import { AppError } from '../../errors.ts';
import { email, emit, list, optional, required, withDeps, UsageError, type Command } from '../cli.ts';

export const keysCreateCommand: Command = {
  name: 'keys create',
  usage:
    'herd keys create --email E --scopes s1,s2 [--scoped-organizations O1,O2] [--scoped-teams P1,P2] [--label L] [--json]',
  summary: 'Creates a personal API key for the user; its value (phx_…) is shown only here.',
  flags: [
    ['--email E', "the key's user (an existing user)"],
    ['--scopes s1,s2', 'what the key may do: person:read, person:write, organization:read, … or *'],
    ['--scoped-organizations O1,O2', 'limit the key to these organizations (UUIDs the user is a member of)'],
    ['--scoped-teams P1,P2', 'limit the key to these projects (ids)'],
    ['--label L', 'a name for the key (default "herd CLI")'],
  ],
  jsonResult: '{"id", "value"}',
  instead:
    'use the running server\'s API with a personal API key of that user: POST /api/personal_api_keys/ {"label", "scopes"}',
  options: {
    email: { type: 'string' },
    scopes: { type: 'string' },
    'scoped-organizations': { type: 'string' },
    'scoped-teams': { type: 'string' },
    label: { type: 'string' },
  },
  async run(values, context) {
    const userEmail = email(values);
    const teamTexts = list(optional(values, 'scoped-teams'));
    const badTeam = teamTexts.find((text) => !/^[1-9]\d{0,9}$/.test(text) || Number(text) > 2147483647);
    if (badTeam !== undefined)
      throw new UsageError(`--scoped-teams must be project ids, got ${JSON.stringify(badTeam)}`);
    const [{ createPersonalApiKey, validateNewApiKey }, { findUserByEmail }] = await Promise.all([
      import('../../modules/api-keys/api-keys.service.ts'),
      import('../../modules/users/users.repository.ts'),
    ]);
    let input;
    try {
      input = validateNewApiKey({
        userId: 0,
        label: optional(values, 'label') ?? 'herd CLI',
        scopes: list(required(values, 'scopes')),
        scopedOrganizations: list(optional(values, 'scoped-organizations')),
        scopedTeams: teamTexts.map(Number),
      });
    } catch (error) {
      if (error instanceof AppError)
        throw new UsageError(`--${(error.attr ?? 'scopes').replace(/_/g, '-')}: ${error.detail}`);
      throw error;
    }
    const created = await withDeps(context.config, async (deps) => {
      const user = await findUserByEmail(deps.db, userEmail);
      if (!user) throw new UsageError(`no user with e-mail ${userEmail}`);
      return createPersonalApiKey(deps, null, { ...input, userId: user.id });
    });
    emit(context, { id: created.row.id, value: created.value }, [
      `key ${created.row.id}: ${created.value}   (shown once; store it now)`,
    ]);
  },
};
