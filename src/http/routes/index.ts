// Every resource's routes, registered in one place. Add a module here to expose it.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { deletionStatusRoutes } from './deletion-status.routes.ts';
import { healthRoutes } from './health.routes.ts';
import { insightRoutes } from './insights.routes.ts';
import { memberRoutes } from './members.routes.ts';
import { organizationRoutes } from './organizations.routes.ts';
import { personAnalyticsRoutes } from './person-analytics.routes.ts';
import { captureRoutes } from './capture.routes.ts';
import { personalApiKeyRoutes } from './personal-api-keys.routes.ts';
import { projectRoutes } from './projects.routes.ts';
import { roleRoutes } from './roles.routes.ts';
import { cohortRoutes } from './cohorts.routes.ts';
import { personRoutes } from './persons.routes.ts';
import { personActionRoutes } from './persons-actions.routes.ts';
import { personViewRoutes } from './persons-views.routes.ts';

export type App = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export type RouteModule = (app: App, deps: Deps) => void | Promise<void>;

export const routeModules: RouteModule[] = [healthRoutes, organizationRoutes, memberRoutes, projectRoutes, personalApiKeyRoutes, roleRoutes, deletionStatusRoutes, captureRoutes, personAnalyticsRoutes, insightRoutes, personRoutes, personActionRoutes, personViewRoutes, cohortRoutes];
