// Storing events and processing persons: used by capture and by the persons API (PATCH,
// update_property, delete_property emit $set / $delete_person_property). It answers what happened
// to persons (the merges), for its callers to record in the same transaction.
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import type { TeamRow } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { seenInBatch, type SeenDefinitions } from './definitions-seen.ts';
import { recordBatchDefinitions } from './definitions.ts';
import { loadBatch, storedKey } from './load-batch.step.ts';
import { normalizeEvent, type NormalizableEvent, type PreparedEvent } from './normalize-event.step.ts';
import { openPersonBatch } from './person-batch.ts';
import { resolvePerson, type ResolvedEvent } from './resolve-person.step.ts';
import { sanitizeJsonValue } from './sanitize-json.ts';
import { writeBatch } from './write-batch.step.ts';

export interface CaptureEvent {
  event: string;
  distinct_id: string;
  properties?: Record<string, unknown>;
  timestamp?: string | Date;
  uuid?: string;
  $set?: Record<string, unknown>;
  $set_once?: Record<string, unknown>;
  $unset?: string[];
}

/** Persons merged into `person`, with the distinct ids that moved to it in the order they were attached. */
export interface PersonMerge {
  person: { id: number; uuid: string };
  distinctIds: string[];
}

export interface IngestOutcome {
  merges: PersonMerge[];
  /** The definitions the stored events show, to record once the batch is written (definitions.ts). */
  seen: SeenDefinitions | null;
}

// Races that a fresh attempt resolves: unique violation, serialization failure, deadlock.
const RETRYABLE_CODES = new Set(['23505', '40001', '40P01']);
const MAX_ATTEMPTS = 8;

// Citus reports a unique violation met by a worker inside a multi-shard statement (the batch's one
// write statement with its CTEs) as an internal error, XX000, keeping PostgreSQL's message.
const CITUS_UNIQUE_VIOLATION = /^duplicate key value violates unique constraint /;

function isRetryable(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === 'XX000') return CITUS_UNIQUE_VIOLATION.test((error as Error).message);
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Prepares client events (errors name `<attrPrefix>.<index>.<field>`); PostHog-dropped events are left out. */
export function prepareEvents(
  events: NormalizableEvent[],
  context: { now: Date; sentAt: Date | null; attrPrefix: (index: number) => string; ip?: string },
): PreparedEvent[] {
  const prepared: PreparedEvent[] = [];
  events.forEach((event, index) => {
    const result = normalizeEvent(event, {
      now: context.now,
      sentAt: context.sentAt,
      attrPrefix: context.attrPrefix(index),
      ip: context.ip,
    });
    if (result) prepared.push(result);
  });
  return prepared;
}

/**
 * Applies prepared events in `trx`, which must be a transaction; answers the merges done.
 * `optimistic`: the events are taken as new without looking up which are stored already (SDK
 * retries, rare): one that is stored makes the events' insert a unique violation, and the attempt
 * that follows (inRetriedTransaction) looks them up and skips them.
 */
export async function processEvents(
  log: Logger,
  trx: Db,
  teamId: number,
  events: PreparedEvent[],
  options: { optimistic: boolean },
): Promise<IngestOutcome> {
  const distinctIds = new Set<string>();
  for (const event of events) {
    distinctIds.add(event.distinctId);
    if (event.merge?.source) distinctIds.add(event.merge.source);
  }
  const given = options.optimistic ? [] : events.filter((event) => event.uuidGiven);
  const personless = new Set(events.filter((event) => !event.processPerson).map((event) => event.distinctId));
  const loaded = await loadBatch(trx, teamId, given, [...distinctIds], [...personless]);
  // An event already stored, or repeated in the batch, is an SDK retry: it changes nothing again.
  const seen = new Set<string>();
  const fresh = events.filter((event) => {
    const key = storedKey(event.uuid, event.distinctId);
    if (loaded.stored.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (fresh.length === 0) return { merges: [], seen: null };
  const batch = openPersonBatch(teamId, loaded.persons, loaded.distinctIds);
  const resolved: ResolvedEvent[] = fresh.map((event) => resolvePerson(batch, event));
  const merges = await writeBatch(trx, batch, resolved);
  for (const { event, warnings } of resolved) {
    for (const warning of warnings) log.debug({ warning, event: event.event, uuid: event.uuid }, 'ingestion warning');
  }
  return {
    seen: seenInBatch(fresh),
    merges: merges.map((merge) => ({
      person: { id: merge.survivor.id as number, uuid: merge.survivor.uuid },
      distinctIds: merge.distinctIds,
    })),
  };
}

/**
 * Runs `work` in `db` when it is a transaction already, else in a new one, retried when it loses a
 * race. `firstTry`: this is a first attempt that another follows if it fails (never inside a
 * caller's transaction), so it may be optimistic.
 */
export async function inRetriedTransaction<T>(
  log: Logger,
  db: Db,
  work: (trx: Db, firstTry: boolean) => Promise<T>,
): Promise<T> {
  if (db.isTransaction) return work(db, false);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => work(trx, attempt === 1 && MAX_ATTEMPTS > 1));
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
      log.debug({ attempt, code: (error as { code?: string }).code }, 'ingestion retry');
      await pause(Math.random() * 10 * attempt);
    }
  }
}

/**
 * Stores the events and processes persons, in order, in ONE transaction (`db`'s when it is one
 * already); answers the merges done.
 */
export async function ingestEvents(deps: Deps, db: Db, team: TeamRow, events: CaptureEvent[]): Promise<IngestOutcome> {
  // Callers pass values from their own request bodies: clean them as capture cleans its bodies.
  const clean = events.map((event) => sanitizeJsonValue(event) as CaptureEvent);
  const prepared = prepareEvents(clean, { now: deps.clock.now(), sentAt: null, attrPrefix: (index) => String(index) });
  if (prepared.length === 0) return { merges: [], seen: null };
  const outcome = await inRetriedTransaction(deps.log, db, (trx, firstTry) =>
    processEvents(deps.log, trx, team.id, prepared, { optimistic: firstTry }),
  );
  await recordBatchDefinitions(deps, db, team.id, outcome.seen);
  return outcome;
}
