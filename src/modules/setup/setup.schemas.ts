// Wire schemas of the first-run setup.
import { Type } from 'typebox';

export const SetupStatus = Type.Object(
  {
    open: Type.Boolean({
      description:
        'True while the database holds no user and this server has printed a setup link: the console then says where to find it.',
    }),
  },
  { title: 'SetupStatus', description: 'Whether the first account can still be created from the browser.' },
);

export const SetupBody = Type.Object({
  token: Type.String({
    maxLength: 200,
    description: 'The `token` of the link the server printed at start (`…/#/setup?token=…`).',
  }),
  email: Type.String({ format: 'email', maxLength: 254, description: "The first user's e-mail address." }),
  first_name: Type.Optional(Type.String({ maxLength: 150, description: "The first user's first name." })),
  organization_name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'The organization (default "Default Organization").' }),
  ),
  project_name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'The project (default "Default Project").' }),
  ),
});
