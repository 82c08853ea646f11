// Queued event deletions: what was asked, by whom, and whether the weekly job has run it.
import type { DeletionTask } from '../api/types.ts';
import { Time } from './values.tsx';

export function DeletionTable({ tasks, caption }: { tasks: DeletionTask[]; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Person</th>
          <th scope="col">Distinct IDs</th>
          <th scope="col">Requested</th>
          <th scope="col">By</th>
          <th scope="col">Status</th>
          <th scope="col">Done</th>
          <th scope="col">Events deleted</th>
        </tr>
      </thead>
      <tbody>
        {tasks.map((task) => (
          <tr key={task.id}>
            <td class="ids">{task.person_uuid}</td>
            <td class="ids">{task.distinct_ids.join(', ')}</td>
            <td>
              <Time iso={task.created_at} />
            </td>
            <td>{task.created_by?.email ?? ''}</td>
            <td>{task.status === 'pending' ? 'Pending' : 'Done'}</td>
            <td>
              <Time iso={task.delete_verified_at} />
            </td>
            <td>{task.status === 'pending' ? '' : String(task.events_deleted)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
