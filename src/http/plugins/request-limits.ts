// Bounded work per request. Every request runs under a query budget: each of its statements gets
// STATEMENT_TIMEOUT_MS (ANALYTICS_STATEMENT_TIMEOUT_MS for analytical views and CSV exports), and
// one over it answers 504 `query_timeout`. A route declares `config.heavy` when its work grows
// with the project's data (property-filter scans, analytical views, exports): such requests take a
// slot per key, per project and per process before their handler runs, hold it until the response
// is over, and wait in a short queue or get 429 `concurrency_limited` — so a key's flood of scans
// leaves the rest of the pool to everyone else.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isQueryCanceled, withQueryBudget, type QueryBudget } from '../../db/query-budget.ts';
import type { Deps } from '../../deps.ts';
import { concurrencyLimited, queryTimeout, type AppError } from '../../errors.ts';
import { HeavyRefusal, HeavySlots, type HeavyLimit } from './heavy-slots.ts';
import type { SharedLimits } from './shared-limits.ts';

/** `scan`: heavy, under the ordinary time limit; `analytics`: heavy, under the analytical one. */
export type HeavyKind = 'scan' | 'analytics';
export type HeavyRule = HeavyKind | ((request: FastifyRequest) => HeavyKind | null);

declare module 'fastify' {
  interface FastifyContextConfig {
    heavy?: HeavyRule;
  }
  interface FastifyRequest {
    queryBudget: QueryBudget | null;
  }
  interface FastifyInstance {
    /** The process's heavy-request slots (what is running and waiting). */
    heavySlots: HeavySlots;
  }
}

const WHAT = 'heavy requests (property-filter scans, analytical views, CSV exports)';

function refusalDetail(limit: HeavyLimit, max: number): string {
  const holder =
    limit === 'key' ? 'This personal API key has' : limit === 'project' ? 'This project has' : 'The server has';
  return `${holder} ${max} ${WHAT} in flight already, the most allowed at once. Retry when one has finished.`;
}

/** The requests given the analytical limit (their 504 says how to ask for less). */
const analyticalRequests = new WeakSet<FastifyRequest>();

/** The envelope for a statement PostgreSQL cancelled at the request's time limit; null for any other error. */
export function statementTimeoutError(request: FastifyRequest, error: FastifyError): AppError | null {
  const limitMs = request.queryBudget?.statementTimeoutMs ?? 0;
  if (limitMs === 0 || !isQueryCanceled(error)) return null;
  request.log.warn({ statementTimeoutMs: limitMs }, 'statement cancelled at its time limit');
  return queryTimeout(limitMs, analyticalRequests.has(request));
}

export function registerRequestLimits(app: FastifyInstance, deps: Deps, shared: SharedLimits | null = null) {
  const limits = deps.config.statementTimeoutMs;
  const slots = new HeavySlots(deps.config.heavyRequests);
  app.decorateRequest('queryBudget', null);
  app.decorate('heavySlots', slots);

  // Registered before the access hook, so its lookups run under the budget too.
  app.addHook('onRequest', (request, _reply, done) => {
    request.queryBudget = { statementTimeoutMs: limits.default };
    withQueryBudget(request.queryBudget, done);
  });
  // A body is read in the socket's own async context; enter the request's budget again after it.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.queryBudget) withQueryBudget(request.queryBudget, done);
    else done();
  });

  const takeSlot = async (request: FastifyRequest, reply: FastifyReply, kind: HeavyKind) => {
    if (kind === 'analytics' && request.queryBudget) {
      request.queryBudget.statementTimeoutMs = limits.analytics;
      analyticalRequests.add(request);
    }
    const project = request.access?.project?.project.id;
    const key = request.access?.actor.key.id;
    if (project === undefined || key === undefined) throw new Error('a heavy route needs a project access rule');

    const gone = new AbortController();
    const onClose = () => gone.abort(new Error('client closed the request while it waited for a heavy slot'));
    const closed = () => reply.raw.closed || reply.raw.destroyed;
    if (closed()) onClose();
    reply.raw.once('close', onClose);
    try {
      const owner = { key: String(key), project: String(project) };
      const since = Date.now();
      const slot = await slots.acquire(owner, gone.signal);
      // Held until the response is over: a CSV export still reads the database while it streams.
      reply.raw.once('close', slot.release);
      if (closed()) slot.release();
      if (shared) {
        // This process's slot first, then the deployment's: the process bound holds however the database answers.
        const { perKey, perProject, queueWaitMs } = deps.config.heavyRequests;
        const wait = Math.max(0, queueWaitMs - (Date.now() - since));
        const held = await shared.slots.acquire(owner, { perKey, perProject }, wait, gone.signal).catch((error) => {
          slot.release();
          throw error;
        });
        if ('blocked' in held) {
          slot.release();
          const max = held.blocked === 'key' ? perKey : perProject;
          throw new HeavyRefusal(held.blocked, max);
        }
        reply.raw.once('close', held.release);
        if (closed()) held.release();
      }
      const waitedMs = Date.now() - since;
      if (slot.waitedMs > 0 || waitedMs > 50)
        reply.header('server-timing', `queue;dur=${Math.max(slot.waitedMs, waitedMs)}`);
    } catch (error) {
      if (error instanceof HeavyRefusal) throw concurrencyLimited(refusalDetail(error.limit, error.max));
      throw error;
    } finally {
      reply.raw.removeListener('close', onClose);
    }
  };
  // A callback hook: an ordinary request costs no promise here.
  app.addHook('preHandler', (request, reply, done) => {
    const rule = request.routeOptions.config.heavy;
    const kind = typeof rule === 'function' ? rule(request) : rule;
    if (!kind) return done();
    takeSlot(request, reply, kind).then(() => done(), done);
  });
}
