// The shape of a resource's routes: a function that registers them on the app. Its own file, so
// route files need not import the index that imports them all.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from '../deps.ts';

export type App = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export type RouteModule = (app: App, deps: Deps) => void | Promise<void>;
