// The deletion tasks of a project as deletion_status lists them: newest first, filterable.
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import type { PageRequest } from '../../wire/page.ts';
import { listDeletionTasks, type DeletionStatusFilter } from './deletions.repository.ts';
import type { DeletionTaskWire } from './deletions.schemas.ts';

export async function listDeletionStatus(
  deps: Deps,
  input: { project: TeamRow; filter: DeletionStatusFilter; page: PageRequest },
): Promise<{ count: number; results: DeletionTaskWire[] }> {
  return listDeletionTasks(deps.db, input.project.id, input.filter, input.page);
}
