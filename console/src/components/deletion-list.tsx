// Queued event deletions: what was asked, by whom, whether the batch has run it, and a Cancel
// (with a confirmation) while it is pending.
import { useState } from 'preact/hooks';
import type { DeletionStatus, DeletionTask, EventDeletion } from '../api/types.ts';
import { ErrorMessage } from './feedback.tsx';
import { useAction } from './use-load.ts';
import { Time } from './values.tsx';

const STATUS_LABELS: Record<DeletionStatus, string> = { pending: 'Pending', completed: 'Done', cancelled: 'Cancelled' };
const KIND_LABELS: Record<string, string> = {
  person: 'Deleted person’s events',
  person_events: 'Person’s events (person kept)',
  events: 'Events in a time range',
  scrub: 'Properties scrubbed',
  retention: 'Retention period',
};

export const kindLabel = (kind: string) => KIND_LABELS[kind] ?? kind;
export const statusLabel = (status: DeletionStatus) => STATUS_LABELS[status];

/** "Cancel", then a confirmation; `onCancel` performs it (and reloads the list). */
export function CancelTask({ id, onCancel }: { id: number; onCancel: (id: number) => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  if (!confirming) {
    return (
      <button type="button" aria-label={`Cancel deletion ${id}`} onClick={() => setConfirming(true)}>
        Cancel
      </button>
    );
  }
  return (
    <div role="group" aria-label={`Confirm cancelling deletion ${id}`} class="actions">
      <span>Cancel this deletion? It will never run.</span>
      <button type="button" class="destructive" disabled={action.busy} onClick={() => action.run(() => onCancel(id))}>
        Yes, cancel it
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Keep it
      </button>
      <ErrorMessage error={action.error} />
    </div>
  );
}

export function DeletionTable({
  tasks,
  caption,
  onCancel,
}: {
  tasks: DeletionTask[];
  caption: string;
  onCancel?: (id: number) => Promise<void>;
}) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col">Person</th>
          <th scope="col">Distinct IDs</th>
          <th scope="col">Requested</th>
          <th scope="col">By</th>
          <th scope="col">Status</th>
          <th scope="col">Done</th>
          <th scope="col">Events deleted</th>
          {onCancel ? <th scope="col">Actions</th> : null}
        </tr>
      </thead>
      <tbody>
        {tasks.map((task) => (
          <tr key={task.id}>
            <td>{kindLabel(task.kind)}</td>
            <td class="ids">{task.person_uuid}</td>
            <td class="ids">{task.distinct_ids.join(', ')}</td>
            <td>
              <Time iso={task.created_at} />
            </td>
            <td>{task.created_by?.email ?? ''}</td>
            <td>{statusLabel(task.status)}</td>
            <td>
              <Time iso={task.delete_verified_at} />
            </td>
            <td>{task.status === 'completed' ? String(task.events_deleted) : ''}</td>
            {onCancel ? (
              <td>{task.status === 'pending' ? <CancelTask id={task.id} onCancel={onCancel} /> : null}</td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function rangeText(task: EventDeletion): string {
  const parts = [`${task.after ?? 'the beginning'} – ${task.before}`];
  if (task.event) parts.push(`event ${task.event}`);
  if (task.properties) parts.push(`filters ${JSON.stringify(task.properties)}`);
  if (task.scrub_properties) parts.push(`keys ${task.scrub_properties.join(', ')}`);
  return parts.join('; ');
}

export function EventDeletionTable({
  tasks,
  caption,
  onCancel,
}: {
  tasks: EventDeletion[];
  caption: string;
  onCancel: (id: number) => Promise<void>;
}) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col">What</th>
          <th scope="col">Requested</th>
          <th scope="col">By</th>
          <th scope="col">Status</th>
          <th scope="col">Done</th>
          <th scope="col">Events</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {tasks.map((task) => (
          <tr key={task.id}>
            <td>{kindLabel(task.kind)}</td>
            <td class="ids">{rangeText(task)}</td>
            <td>
              <Time iso={task.created_at} />
            </td>
            <td>{task.created_by?.email ?? (task.kind === 'retention' ? 'Retention policy' : '')}</td>
            <td>{statusLabel(task.status)}</td>
            <td>
              <Time iso={task.completed_at} />
            </td>
            <td>
              {task.status === 'completed'
                ? task.kind === 'scrub'
                  ? `${task.events_scrubbed} scrubbed`
                  : `${task.events_deleted} deleted`
                : ''}
            </td>
            <td>{task.status === 'pending' ? <CancelTask id={task.id} onCancel={onCancel} /> : null}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
