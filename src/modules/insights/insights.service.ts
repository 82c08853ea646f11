// Saved insights: create, list, read, change and delete, each change logged in the activity log
// (scope "Insight") in the same transaction.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { InsightRow, JsonObject, TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { isUniqueViolation, notFound, validationError } from '../../errors.ts';
import type { PageRequest } from '../../wire/page.ts';
import { serializeUser } from '../../wire/serializers.ts';
import type { Actor } from '../access/access.service.ts';
import { recordActivity, type ActivityChange } from '../activity/activity.repository.ts';
import { findUsersByIds } from '../users/users.repository.ts';
import {
  deleteInsightRow,
  findInsight,
  insertInsight,
  listInsightRows,
  updateInsightRow,
} from './insights.repository.ts';
import { MAX_FILTERS_LENGTH, type InsightInput, type SavedInsightWire } from './insights.schemas.ts';

export const INSIGHT_SCOPE = 'Insight';

const SHORT_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Eight random letters and digits, as the platform's short ids. */
export function newShortId(): string {
  return Array.from({ length: 8 }, () => SHORT_ID_ALPHABET[crypto.randomInt(SHORT_ID_ALPHABET.length)]).join('');
}

function checkedFilters(value: unknown): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw validationError('Must be a JSON object.', 'filters');
  if (JSON.stringify(value).length > MAX_FILTERS_LENGTH)
    throw validationError(`Must be at most ${MAX_FILTERS_LENGTH} characters as JSON.`, 'filters');
  return value as JsonObject;
}

async function serializeInsights(db: Db, rows: InsightRow[]): Promise<SavedInsightWire[]> {
  const ids = new Set(rows.flatMap((row) => [row.created_by_id, row.last_modified_by_id]));
  ids.delete(null);
  const users = new Map((await findUsersByIds(db, [...ids] as number[])).map((user) => [user.id, serializeUser(user)]));
  const userOf = (id: number | null) => (id === null ? null : (users.get(id) ?? null));
  return rows.map((row) => ({
    id: row.id,
    short_id: row.short_id,
    name: row.name,
    description: row.description,
    filters: row.filters,
    created_at: row.created_at.toISOString(),
    created_by: userOf(row.created_by_id),
    last_modified_at: row.last_modified_at.toISOString(),
    last_modified_by: userOf(row.last_modified_by_id),
  }));
}

const serializeInsight = async (db: Db, row: InsightRow) => (await serializeInsights(db, [row]))[0];

function recordInsightActivity(
  db: Db,
  actor: Actor,
  project: TeamRow,
  insight: InsightRow,
  activity: string,
  changes: ActivityChange[] | null,
  now: Date,
): Promise<void> {
  return recordActivity(
    db,
    {
      organizationId: project.organization_id,
      teamId: project.id,
      scope: INSIGHT_SCOPE,
      itemId: String(insight.id),
      activity,
      userId: actor.user.id,
      detail: { changes, name: insight.name, short_id: insight.short_id },
    },
    now,
  );
}

export async function listInsights(
  deps: Deps,
  input: { project: TeamRow; search?: string; shortId?: string; page: PageRequest },
): Promise<{ count: number; results: SavedInsightWire[] }> {
  const { count, rows } = await listInsightRows(deps.db, input.project.id, input);
  return { count, results: await serializeInsights(deps.db, rows) };
}

export async function getInsight(deps: Deps, input: { project: TeamRow; id: number }): Promise<SavedInsightWire> {
  const row = await findInsight(deps.db, input.project.id, input.id);
  if (!row) throw notFound();
  return serializeInsight(deps.db, row);
}

export async function createInsight(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; name?: string; description?: string; filters?: unknown },
): Promise<SavedInsightWire> {
  const filters = input.filters === undefined ? {} : checkedFilters(input.filters);
  const now = deps.clock.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.db.transaction().execute(async (trx) => {
        const row = await insertInsight(trx, {
          teamId: input.project.id,
          shortId: newShortId(),
          name: input.name ?? '',
          description: input.description ?? '',
          filters,
          userId: actor.user.id,
          now,
        });
        await recordInsightActivity(trx, actor, input.project, row, 'created', null, now);
        return serializeInsight(trx, row);
      });
    } catch (error) {
      // Two insights drew the same short id (one in 62^8): draw again.
      if (!isUniqueViolation(error) || attempt >= 3) throw error;
    }
  }
}

function changesOf(before: InsightRow, change: { name?: string; description?: string; filters?: JsonObject }) {
  const changes: ActivityChange[] = [];
  for (const field of ['name', 'description', 'filters'] as const) {
    const after = change[field];
    if (after === undefined || JSON.stringify(after) === JSON.stringify(before[field])) continue;
    changes.push({ type: INSIGHT_SCOPE, action: 'changed', field, before: before[field], after });
  }
  return changes;
}

/** Changes the fields given; an unchanged insight writes nothing. `deleted: true` deletes it. */
export async function updateInsight(
  deps: Deps,
  actor: Actor,
  input: InsightInput & { project: TeamRow; id: number },
): Promise<SavedInsightWire> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    if (input.deleted === true) {
      const row = await deleteInsightRow(trx, input.project.id, input.id);
      if (!row) throw notFound();
      await recordInsightActivity(trx, actor, input.project, row, 'deleted', null, now);
      return serializeInsight(trx, row);
    }
    const before = await findInsight(trx, input.project.id, input.id);
    if (!before) throw notFound();
    // After the lookup: another project's insight is a 404 whatever the body.
    const filters = input.filters === undefined ? undefined : checkedFilters(input.filters);
    const changes = changesOf(before, { name: input.name, description: input.description, filters });
    if (changes.length === 0) return serializeInsight(trx, before);
    const row = await updateInsightRow(trx, input.project.id, input.id, {
      name: input.name,
      description: input.description,
      filters,
      userId: actor.user.id,
      now,
    });
    if (!row) throw notFound();
    await recordInsightActivity(trx, actor, input.project, row, 'updated', changes, now);
    return serializeInsight(trx, row);
  });
}

export function deleteInsight(deps: Deps, actor: Actor, input: { project: TeamRow; id: number }): Promise<void> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await deleteInsightRow(trx, input.project.id, input.id);
    if (!row) throw notFound();
    await recordInsightActivity(trx, actor, input.project, row, 'deleted', null, deps.clock.now());
  });
}
