// What a bootstrap answers, on the wire: `herd bootstrap --json` prints it and `POST /api/setup/`
// returns it, so both say exactly the same thing.
import { Type, type Static } from 'typebox';
import type { BootstrapResult } from './bootstrap.service.ts';

export const FirstAccount = Type.Object(
  {
    organization_id: Type.String({ format: 'uuid', description: 'The organization the user owns (level 15).' }),
    project_id: Type.Integer({ description: "The project's id." }),
    project_api_key: Type.String({ description: "The project's token (`phc_…`): what capture and the SDKs take." }),
    user: Type.Object(
      {
        id: Type.Integer({ description: "The user's id." }),
        uuid: Type.String({ format: 'uuid', description: "The user's uuid." }),
        email: Type.String({ description: "The user's e-mail address." }),
      },
      { description: 'The user created (or reused, by the command).' },
    ),
    personal_api_key: Type.String({
      description: 'A personal API key (`phx_…`) with every scope (`*`): shown this once, store it now.',
    }),
  },
  {
    title: 'FirstAccount',
    description: 'A user, an organization they own, a project and an all-scopes personal API key.',
  },
);
export type FirstAccountWire = Static<typeof FirstAccount>;

export function firstAccountWire(result: BootstrapResult): FirstAccountWire {
  return {
    organization_id: result.organization.id,
    project_id: result.project.id,
    project_api_key: result.project.api_token,
    user: { id: result.user.id, uuid: result.user.uuid, email: result.user.email },
    personal_api_key: result.keyValue,
  };
}
