// The one entry point that stores events and processes persons: used by capture and by the
// persons API (PATCH, update_property, delete_property emit $set / $delete_person_property).
import type { Db } from '../db/database.ts';
import type { TeamRow } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { recordActivities } from '../modules/activity/activity.repository.ts';
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

export interface Actor {
  userId: number | null;
}

// Races that a fresh attempt resolves: unique violation, serialization failure, deadlock.
const RETRYABLE_CODES = new Set(['23505', '40001', '40P01']);
const MAX_ATTEMPTS = 8;

function isRetryable(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
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
    const result = normalizeEvent(event, { now: context.now, sentAt: context.sentAt, attrPrefix: context.attrPrefix(index), ip: context.ip });
    if (result) prepared.push(result);
  });
  return prepared;
}

async function processBatch(deps: Deps, db: Db, team: TeamRow, events: PreparedEvent[], actor: Actor): Promise<void> {
  const distinctIds = new Set<string>();
  for (const event of events) {
    distinctIds.add(event.distinctId);
    if (event.merge?.source) distinctIds.add(event.merge.source);
  }
  const given = events.filter((event) => event.uuidGiven).map((event) => event.uuid);
  const loaded = await loadBatch(db, team.id, given, [...distinctIds]);
  // An event already stored, or repeated in the batch, is an SDK retry: it changes nothing again.
  const seen = new Set<string>();
  const fresh = events.filter((event) => {
    if (loaded.stored.has(storedKey(event.uuid, event.distinctId)) || seen.has(event.uuid)) return false;
    seen.add(event.uuid);
    return true;
  });
  if (fresh.length === 0) return;
  const batch = openPersonBatch(team.id, loaded.persons, loaded.distinctIds);
  const resolved: ResolvedEvent[] = fresh.map((event) => resolvePerson(batch, event));
  const merges = await writeBatch(db, batch, resolved);
  await recordActivities(
    db,
    merges.map((merge) => ({
      organizationId: team.organization_id,
      teamId: team.id,
      scope: 'Person',
      itemId: String(merge.survivor.id),
      activity: 'merged',
      userId: actor.userId,
      detail: {
        changes: [{ type: 'Person', action: 'merged', field: null, before: null, after: { distinct_ids: merge.distinctIds } }],
        name: merge.survivor.uuid,
      },
    })),
    deps.clock.now(),
  );
  for (const { event, warnings } of resolved) {
    for (const warning of warnings) deps.log.debug({ warning, event: event.event, uuid: event.uuid }, 'ingestion warning');
  }
}

/** Stores prepared events in one transaction (retried on races), or in `db` if it is one already. */
export async function storeEvents(deps: Deps, db: Db, team: TeamRow, events: PreparedEvent[], actor: Actor = { userId: null }): Promise<void> {
  if (events.length === 0) return;
  if (db.isTransaction) return processBatch(deps, db, team, events, actor);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => processBatch(deps, trx, team, events, actor));
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
      deps.log.debug({ attempt, code: (error as { code?: string }).code }, 'ingestion retry');
      await pause(Math.random() * 10 * attempt);
    }
  }
}

/** Stores the events and processes persons, in order, in ONE transaction (uses `db` if it is already a transaction). */
export async function ingestEvents(deps: Deps, db: Db, team: TeamRow, events: CaptureEvent[], actor?: { userId: number | null }): Promise<void> {
  // Callers pass values from their own request bodies: clean them as capture cleans its bodies.
  const clean = events.map((event) => sanitizeJsonValue(event) as CaptureEvent);
  const prepared = prepareEvents(clean, { now: deps.clock.now(), sentAt: null, attrPrefix: (index) => String(index) });
  await storeEvents(deps, db, team, prepared, actor ?? { userId: null });
}
