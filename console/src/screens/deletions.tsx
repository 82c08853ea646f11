// The deletion queue: the project's queued event deletions, pending and done.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { DeletionTask, Page } from '../api/types.ts';
import { DeletionTable } from '../components/deletion-list.tsx';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useLoad } from '../components/use-load.ts';
import { plural } from '../components/values.tsx';
import type { ProjectContext } from '../workspace.ts';

export function DeletionsScreen({ context }: { context: ProjectContext }) {
  const projectId = context.project.id;
  const [status, setStatus] = useState('all');
  const [offset, setOffset] = useState(0);
  const tasks = useLoad(
    () =>
      api<Page<DeletionTask>>(`/api/projects/${projectId}/persons/deletion_status/`, {
        query: { status, limit: PAGE_SIZE, offset },
      }),
    [projectId, status, offset],
  );
  return (
    <>
      <h1 tabIndex={-1}>Deletion queue</h1>
      <p class="muted">
        Events of deleted persons are removed by a weekly job (Sundays 05:00 UTC unless configured otherwise).
      </p>
      <div class="field-inline">
        <label for="deletion-status">Status</label>
        <select
          id="deletion-status"
          value={status}
          onChange={(event) => {
            setStatus(event.currentTarget.value);
            setOffset(0);
          }}
        >
          <option value="all">Pending and done</option>
          <option value="pending">Pending</option>
          <option value="completed">Done</option>
        </select>
      </div>
      <ErrorMessage error={tasks.error} />
      {tasks.data ? (
        tasks.data.count === 0 ? (
          <p class="muted">No queued deletions.</p>
        ) : (
          <>
            <p role="status">{plural(tasks.data.count, 'queued deletion')}</p>
            <DeletionTable tasks={tasks.data.results} caption="Event deletions, newest first" />
            <Pager label="Deletions" count={tasks.data.count} offset={offset} onOffset={setOffset} />
          </>
        )
      ) : tasks.loading ? (
        <Loading what="the deletion queue" />
      ) : null}
    </>
  );
}
