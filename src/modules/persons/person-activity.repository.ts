// The activity log of a project's persons (scope "Person"): listed newest first, and the entries
// of merges.
import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';
import type { PersonMerge } from '../../ingestion/ingest.ts';
import type { PageRequest } from '../../wire/page.ts';
import { personActivity, recordActivities } from '../activity/activity.repository.ts';

export interface PersonActivityEntry {
  id: string;
  user: { first_name: string; email: string } | null;
  activity: string;
  scope: string;
  item_id: string;
  detail: { changes: unknown; name: unknown };
  created_at: string;
}

// The person activities the API lists; the log's other Person entries (the deletion batch's
// bookkeeping) are changes to events, not to persons.
const PERSON_ACTIVITIES = ['updated', 'delete_property', 'split_person', 'deleted', 'merged'];

export async function listPersonActivity(
  db: Db,
  scope: { organizationId: string; teamId: number; itemId?: string },
  page: PageRequest,
): Promise<{ count: number; results: PersonActivityEntry[] }> {
  let base = db
    .selectFrom('activity_log as a')
    .where('a.organization_id', '=', scope.organizationId)
    .where('a.team_id', '=', scope.teamId)
    .where('a.scope', '=', 'Person')
    .where('a.activity', 'in', PERSON_ACTIVITIES);
  if (scope.itemId !== undefined) base = base.where('a.item_id', '=', scope.itemId);
  const [total, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .leftJoin('users as u', 'u.id', 'a.user_id')
      .select([
        'a.id',
        'a.activity',
        'a.scope',
        'a.item_id',
        'a.detail',
        'a.created_at',
        'a.user_id',
        'u.first_name',
        'u.email',
      ])
      .orderBy('a.created_at', 'desc')
      .orderBy('a.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return {
    count: Number(total.n),
    results: rows.map((row) => {
      const detail = (row.detail ?? {}) as Record<string, unknown>;
      return {
        id: row.id,
        user:
          row.user_id !== null && row.email !== null ? { first_name: row.first_name ?? '', email: row.email } : null,
        activity: row.activity,
        scope: row.scope,
        item_id: row.item_id,
        detail: { changes: detail.changes ?? null, name: detail.name ?? null },
        created_at: row.created_at.toISOString(),
      };
    }),
  };
}

/** One `merged` entry for each merge, on the person the others were merged into. */
export async function recordPersonMerges(
  db: Db,
  project: TeamRow,
  merges: PersonMerge[],
  userId: number | null,
  now: Date,
): Promise<void> {
  await recordActivities(
    db,
    merges.map((merge) => {
      const change = {
        type: 'Person',
        action: 'merged',
        field: null,
        before: null,
        after: { distinct_ids: merge.distinctIds },
      };
      return personActivity(project, merge.person, 'merged', [change], userId);
    }),
    now,
  );
}
