// Every resource's routes, registered in one place. Add a module here to expose it.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { healthRoutes } from './health.routes.ts';
import { organizationRoutes } from './organizations.routes.ts';

export type App = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export type RouteModule = (app: App, deps: Deps) => void | Promise<void>;

export const routeModules: RouteModule[] = [healthRoutes, organizationRoutes];
