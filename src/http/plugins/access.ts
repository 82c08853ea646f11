// Declarative authorization: a route states `config.access` and an onRequest hook authenticates
// the key, resolves the organization or project named in the path, checks scopes, restrictions,
// membership and level in the platform's order, then applies the key's rate limits.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { DEFAULT_RATE_LIMITS } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import { throttled } from '../../errors.ts';
import { AccessCache } from '../../modules/access/access-cache.ts';
import {
  authorizeRequest,
  type Actor,
  type OrganizationAccess,
  type ProjectAccess,
} from '../../modules/access/access.service.ts';
import { sharedRateLimitStore, type SharedLimits } from './shared-limits.ts';

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

/** Requests per key by default (RATE_LIMIT_PER_MINUTE and the like may change them), as the docs state them. */
export const RATE_LIMITS = DEFAULT_RATE_LIMITS;

// `isAllowed` only means "on the allow list"; `isExceeded` is the verdict.
type Limiter = (request: FastifyRequest) => Promise<{ isExceeded: boolean; ttlInSeconds?: number }>;

/**
 * A bucket of `max` requests per `timeWindow` and key, counted under `budget` (its name in a shared
 * store, LIMITS_STORE=database); only once registerAccess registered the plugin (RATE_LIMIT on).
 */
export function createLimiter(
  app: FastifyInstance,
  budget: string,
  max: number,
  timeWindow: string,
  keyGenerator: (request: FastifyRequest) => string,
): Limiter {
  const options = { max, timeWindow, keyGenerator, budget } as Parameters<typeof app.createRateLimit>[0];
  return app.createRateLimit(options) as unknown as Limiter;
}

/** Counts the request in each bucket; 429 `throttled` with Retry-After once one is over. */
export async function applyLimits(limiters: Limiter[], request: FastifyRequest): Promise<void> {
  for (const limiter of limiters) {
    const result = await limiter(request);
    if (result.isExceeded) throw throttled(Math.max(1, Math.ceil(result.ttlInSeconds ?? 1)));
  }
}

export async function registerAccess(app: FastifyInstance, deps: Deps, shared: SharedLimits | null = null) {
  app.decorateRequest('access', null);
  const cache = deps.changes ? await AccessCache.open(deps.changes) : null;
  if (cache) app.addHook('onClose', async () => cache.close());

  let limiters: Record<'default' | 'analytics', Limiter[]> | null = null;
  if (deps.config.rateLimit) {
    // With a shared store every process counts in the database (shared-limits.ts); else in memory.
    await app.register(rateLimit, {
      global: false,
      ...(shared ? { store: sharedRateLimitStore(shared.budgets) } : {}),
    });
    const keyOf = (request: FastifyRequest) => {
      const key = request.access?.actor.key.id;
      return key === undefined ? `ip:${request.ip}` : `key:${key}`;
    };
    const create = (budget: string, max: number, timeWindow: string) =>
      createLimiter(app, budget, max, timeWindow, keyOf);
    const budgets = deps.config.rateLimits;
    const ordinary = [
      create('minute', budgets.default.burst, '1 minute'),
      create('hour', budgets.default.sustained, '1 hour'),
    ];
    // As the platform's heavier endpoints: their own buckets on top of the ordinary ones.
    limiters = {
      default: ordinary,
      analytics: [
        ...ordinary,
        create('analytics-minute', budgets.analytics.burst, '1 minute'),
        create('analytics-hour', budgets.analytics.sustained, '1 hour'),
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
