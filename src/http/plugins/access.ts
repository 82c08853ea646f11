// Declarative authorization: a route states `config.access` and an onRequest hook authenticates
// the key, resolves the organization or project named in the path, checks scopes, restrictions,
// membership and level in the platform's order, then applies the key's rate limits.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Deps } from '../../deps.ts';
import { throttled } from '../../errors.ts';
import { AccessCache } from '../../modules/access/access-cache.ts';
import {
  authorizeRequest,
  type Actor,
  type OrganizationAccess,
  type ProjectAccess,
} from '../../modules/access/access.service.ts';

export interface AccessRule {
  scopes: string[];
  /** The path parameter naming the organization (an id or "@current"). */
  organization?: string;
  /** The path parameter naming the project (an id or "@current"). */
  project?: string;
  /** Writes (anything but GET/HEAD) need organization admin or owner. */
  adminWrites?: boolean;
  /** Heavier query endpoints have tighter limits. */
  tier?: 'default' | 'analytics';
}

interface RequestAccess {
  actor: Actor;
  organization?: OrganizationAccess;
  project?: ProjectAccess;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: AccessRule;
  }
  interface FastifyRequest {
    access: RequestAccess | null;
  }
}

export function actorOf(request: FastifyRequest): Actor {
  if (!request.access) throw new Error('route has no access rule');
  return request.access.actor;
}

export function organizationAccessOf(request: FastifyRequest): OrganizationAccess {
  const access = request.access?.organization ?? request.access?.project;
  if (!access) throw new Error('route has no organization access rule');
  return access;
}

export function projectAccessOf(request: FastifyRequest): ProjectAccess {
  const access = request.access?.project;
  if (!access) throw new Error('route has no project access rule');
  return access;
}

/** Requests per key: a minute's burst and an hour's total, per tier (the analytics tier on top of the default). */
export const RATE_LIMITS = {
  default: { burst: 480, sustained: 4800 },
  analytics: { burst: 240, sustained: 1200 },
};

// `isAllowed` only means "on the allow list"; `isExceeded` is the verdict.
type Limiter = (request: FastifyRequest) => Promise<{ isExceeded: boolean; ttlInSeconds?: number }>;

/** A bucket of `max` requests per `timeWindow` and key; only once registerAccess registered the plugin (RATE_LIMIT on). */
export function createLimiter(
  app: FastifyInstance,
  max: number,
  timeWindow: string,
  keyGenerator: (request: FastifyRequest) => string,
): Limiter {
  return app.createRateLimit({ max, timeWindow, keyGenerator }) as unknown as Limiter;
}

/** Counts the request in each bucket; 429 `throttled` with Retry-After once one is over. */
export async function applyLimits(limiters: Limiter[], request: FastifyRequest): Promise<void> {
  for (const limiter of limiters) {
    const result = await limiter(request);
    if (result.isExceeded) throw throttled(Math.max(1, Math.ceil(result.ttlInSeconds ?? 1)));
  }
}

export async function registerAccess(app: FastifyInstance, deps: Deps) {
  app.decorateRequest('access', null);
  const cache = deps.changes ? await AccessCache.open(deps.changes) : null;
  if (cache) app.addHook('onClose', async () => cache.close());

  let limiters: Record<'default' | 'analytics', Limiter[]> | null = null;
  if (deps.config.rateLimit) {
    await app.register(rateLimit, { global: false });
    const keyOf = (request: FastifyRequest) => request.access?.actor.key.id ?? request.ip;
    const create = (max: number, timeWindow: string) => createLimiter(app, max, timeWindow, keyOf);
    const ordinary = [create(RATE_LIMITS.default.burst, '1 minute'), create(RATE_LIMITS.default.sustained, '1 hour')];
    // As the platform's heavier endpoints: their own buckets on top of the ordinary ones.
    limiters = {
      default: ordinary,
      analytics: [
        ...ordinary,
        create(RATE_LIMITS.analytics.burst, '1 minute'),
        create(RATE_LIMITS.analytics.sustained, '1 hour'),
      ],
    };
  }

  // onRequest: a bad key or a missing permission answers before the body is even parsed
  // (so before a 400 for malformed JSON or a 413), as the platform orders its outcomes.
  const authorize = async (request: FastifyRequest, rule: AccessRule) => {
    const params = (request.params ?? {}) as Record<string, string>;
    const admin = Boolean(rule.adminWrites) && request.method !== 'GET' && request.method !== 'HEAD';
    const target = rule.project
      ? { project: params[rule.project] ?? '' }
      : rule.organization
        ? { organization: params[rule.organization] ?? '' }
        : {};
    request.access = await authorizeRequest(
      deps,
      { authorization: request.headers.authorization, ...target, scopes: rule.scopes, admin },
      cache,
    );

    if (limiters) await applyLimits(limiters[rule.tier ?? 'default'], request);
  };
  // A callback hook: a route without a rule (health, metrics, the SDK's files) costs no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const rule = request.routeOptions.config.access;
    if (!rule) return done();
    authorize(request, rule).then(() => done(), done);
  });
}
