// The activity log: who changed what, for roles (scope "Role") and persons (scope "Person").
import type { Db } from '../../db/database.ts';
import type { JsonObject, TeamRow } from '../../db/schema.ts';
import { monotonicUuidV7 } from '../../ingestion/uuid.ts';

export interface ActivityChange {
  type: string;
  action: string;
  field: string | null;
  before: unknown;
  after: unknown;
}

export interface NewActivity {
  organizationId: string;
  teamId: number | null;
  scope: string;
  itemId: string;
  activity: string;
  userId: number | null;
  detail: { changes: ActivityChange[] | null; name: string | null } & JsonObject;
}

/** An entry about a person of the project (scope "Person"), named by the person's uuid. */
export function personActivity(
  project: Pick<TeamRow, 'organization_id' | 'id'>,
  person: { id: number; uuid: string },
  activity: string,
  changes: ActivityChange[] | null,
  userId: number | null,
): NewActivity {
  return {
    organizationId: project.organization_id,
    teamId: project.id,
    scope: 'Person',
    itemId: String(person.id),
    activity,
    userId,
    detail: { changes, name: person.uuid },
  };
}

/** Writes one entry; pass the transaction of the change so both land or neither does. */
export async function recordActivity(db: Db, entry: NewActivity, now: Date): Promise<void> {
  await recordActivities(db, [entry], now);
}

export async function recordActivities(db: Db, entries: NewActivity[], now: Date): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('activity_log')
    .values(
      entries.map((entry) => ({
        organization_id: entry.organizationId,
        // Time-ordered ids: lists order by (created_at, id), so entries of one instant keep their order.
        id: monotonicUuidV7(),
        team_id: entry.teamId,
        scope: entry.scope,
        item_id: entry.itemId,
        activity: entry.activity,
        user_id: entry.userId,
        detail: JSON.stringify(entry.detail),
        created_at: now,
      })),
    )
    .execute();
}
