// The first run of an empty install: whether setup is open, and the first account created with the
// token of the link the server printed. Neither takes a personal API key: there is none yet.
import type { FastifyRequest } from 'fastify';
import { FirstAccount } from '../../modules/bootstrap/bootstrap.schemas.ts';
import { SetupBody, SetupStatus } from '../../modules/setup/setup.schemas.ts';
import { admitSetup, createFirstAccount, isSetupOpen } from '../../modules/setup/setup.service.ts';
import { ErrorBody } from '../../wire/schemas.ts';
import { applyLimits, createLimiter } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

/** Attempts per client address, right token or wrong: a stranger guessing tokens gets 429 soon. */
export const SETUP_ATTEMPTS = { perMinute: 10, perHour: 60 };

export const setupRoutes: RouteModule = (app, deps) => {
  const tag = 'setup';
  const byAddress = (request: FastifyRequest) => request.ip;
  const limiters = deps.config.rateLimit
    ? [
        createLimiter(app, 'setup-minute', SETUP_ATTEMPTS.perMinute, '1 minute', byAddress),
        createLimiter(app, 'setup-hour', SETUP_ATTEMPTS.perHour, '1 hour', byAddress),
      ]
    : [];

  app.get(
    '/api/setup/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Whether setup is open',
          description:
            'Whether the first account can still be created with `POST /api/setup/`: true while the database holds no user and this server printed a setup link. Reveals nothing else.',
          returns: 'Whether setup is open',
        }),
        security: [],
        response: { 200: SetupStatus },
      },
    },
    async () => ({ open: await isSetupOpen(deps) }),
  );

  app.post(
    '/api/setup/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Create the first account',
          description: `On a database without any user, \`herd serve\` prints a link \`…/#/setup?token=…\` (on standard output and in the log): its token, valid until the first account exists, admits this request. It creates what \`herd bootstrap\` creates and answers what \`herd bootstrap --json\` prints: a user, an organization they own, a project and a personal API key with every scope, shown this once. Of several requests at once exactly one creates the account; the others get 404. **Rate limit:** ${SETUP_ATTEMPTS.perMinute} attempts a minute and ${SETUP_ATTEMPTS.perHour} an hour per client address.`,
          returns: 'The account, with its personal API key',
          errors: {
            400: 'a field that is not valid (`attr` names it), once the token is right',
            403: 'no token, or not the one this server printed',
            404: 'setup is closed: a user exists already (whatever the token)',
          },
        }),
        security: [],
        body: SetupBody,
        response: { 201: FirstAccount, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
      },
      // Before the body's validation: a closed setup answers 404 and a wrong token 403, whatever the fields.
      preValidation: async (request) => {
        await applyLimits(limiters, request);
        await admitSetup(deps, (request.body as { token?: unknown } | null)?.token);
      },
    },
    async (request, reply) => {
      const body = request.body;
      const account = await createFirstAccount(deps, {
        email: body.email,
        firstName: body.first_name,
        organizationName: body.organization_name,
        projectName: body.project_name,
      });
      return reply.code(201).send(account);
    },
  );
};
