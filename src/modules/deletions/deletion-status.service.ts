// The deletion tasks of a project as deletion_status lists them: newest first, filterable.
import type { Db } from '../../db/database.ts';
import type { PageRequest } from '../../http/pagination.ts';
import type { DeletionStatus, DeletionTaskWire } from './deletions.schemas.ts';

export interface DeletionStatusFilter {
  status?: DeletionStatus;
  personUuid?: string;
}

export async function listDeletionStatus(
  db: Db,
  teamId: number,
  filter: DeletionStatusFilter,
  page: PageRequest,
): Promise<{ count: number; results: DeletionTaskWire[] }> {
  let query = db.selectFrom('deletion_tasks').where('deletion_tasks.team_id', '=', teamId);
  if (filter.status === 'pending') query = query.where('deletion_tasks.delete_verified_at', 'is', null);
  if (filter.status === 'completed') query = query.where('deletion_tasks.delete_verified_at', 'is not', null);
  if (filter.personUuid) query = query.where('deletion_tasks.person_uuid', '=', filter.personUuid.toLowerCase());

  const [counted, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    query
      .leftJoin('users', 'users.id', 'deletion_tasks.created_by_id')
      .select([
        'deletion_tasks.id',
        'deletion_tasks.person_id',
        'deletion_tasks.person_uuid',
        'deletion_tasks.distinct_ids',
        'deletion_tasks.created_at',
        'deletion_tasks.delete_verified_at',
        'deletion_tasks.events_deleted',
        'users.first_name',
        'users.email',
      ])
      .orderBy('deletion_tasks.created_at', 'desc')
      .orderBy('deletion_tasks.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);

  return {
    count: Number(counted.count),
    results: rows.map((row) => ({
      id: row.id,
      person_id: row.person_id,
      person_uuid: row.person_uuid,
      distinct_ids: row.distinct_ids,
      status: row.delete_verified_at ? 'completed' : 'pending',
      created_at: row.created_at.toISOString(),
      delete_verified_at: row.delete_verified_at ? row.delete_verified_at.toISOString() : null,
      events_deleted: row.events_deleted,
      created_by: row.email === null ? null : { first_name: row.first_name ?? '', email: row.email },
    })),
  };
}
