// One person: properties, distinct ids and split, export and event deletion (privacy requests),
// delete (with its events, queued), the properties timeline, events, cohorts and activity.
import { useState } from 'preact/hooks';
import { api, downloadFile } from '../api/client.ts';
import type { DeletionTask, Page, Person } from '../api/types.ts';
import { ActivityList } from '../components/activity-list.tsx';
import { DeletionTable } from '../components/deletion-list.tsx';
import { ConfirmButton } from '../components/confirm-dialog.tsx';
import { BackTo, DetailMessage, ErrorMessage, Loading, Notice } from '../components/feedback.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { Time } from '../components/values.tsx';
import type { ProjectContext } from '../workspace.ts';
import { PersonEvents } from './person-events.tsx';
import { PersonProperties } from './person-properties.tsx';
import { PersonCohorts, PropertiesTimeline } from './person-history.tsx';

/** The ids, and Split — a secondary act, asked in a dialog that chooses the id the person keeps. */
function DistinctIds({ person, base, onSplit }: { person: Person; base: string; onSplit: () => void }) {
  const [keep, setKeep] = useState(person.distinct_ids[0] ?? '');
  const [done, setDone] = useState(false);
  const split = async () => {
    await api(`${base}split/`, { method: 'POST', body: { main_distinct_id: keep } });
    setDone(true);
    onSplit();
  };
  return (
    <section aria-labelledby="ids-heading">
      <h2 id="ids-heading">Distinct IDs</h2>
      <ul class="ids">
        {person.distinct_ids.map((id) => (
          <li key={id}>{id}</li>
        ))}
      </ul>
      {done ? <Notice>Split: every other distinct id is now a person of its own.</Notice> : null}
      {person.distinct_ids.length > 1 ? (
        <ConfirmButton
          label="Split this person…"
          buttonClass="secondary"
          title="Split this person?"
          confirm="Split person"
          onConfirm={split}
        >
          <p>
            The person keeps one distinct id and its properties; each other id becomes a new person of its own, without
            properties, and the events sent with it go with it. The console cannot undo a split.
          </p>
          <div class="field">
            <label for="split-keep">Distinct ID to keep</label>
            <select id="split-keep" value={keep} onChange={(event) => setKeep(event.currentTarget.value)}>
              {person.distinct_ids.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          </div>
        </ConfirmButton>
      ) : null}
    </section>
  );
}

/** Privacy requests about this person: export everything, delete the events but keep the person. */
function PersonPrivacy({ person, base }: { person: Person; base: string }) {
  const exporting = useAction();
  const deleting = useAction();
  const [confirming, setConfirming] = useState(false);
  const [queued, setQueued] = useState<DeletionTask | null>(null);
  const exportData = () =>
    exporting.run(() => downloadFile(`${base}export/`, { accept: 'application/json' }, `person-${person.uuid}.json`));
  const deleteEvents = () =>
    deleting.run(async () => {
      setQueued(await api<DeletionTask>(`${base}delete_events/`, { method: 'POST' }));
      setConfirming(false);
    });
  return (
    <section aria-labelledby="privacy-heading">
      <h2 id="privacy-heading">Privacy</h2>
      <div class="actions">
        <button type="button" disabled={exporting.busy} onClick={exportData}>
          Export data
        </button>
        {confirming ? null : (
          <button type="button" class="destructive" onClick={() => setConfirming(true)}>
            Delete events
          </button>
        )}
      </div>
      <ErrorMessage error={exporting.error} />
      {confirming ? (
        <div role="group" aria-label="Confirm deleting events">
          <p>
            Every event of this person’s distinct ids stored until now is deleted by the next deletion batch. The
            person, its properties and distinct ids stay; later events still join it.
          </p>
          <div class="actions">
            <button type="button" class="destructive" disabled={deleting.busy} onClick={deleteEvents}>
              Delete events, keep person
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep events
            </button>
          </div>
          <ErrorMessage error={deleting.error} />
        </div>
      ) : null}
      {queued ? (
        <>
          <Notice>Deleting this person’s events is queued.</Notice>
          <DeletionTable tasks={[queued]} caption="Queued deletion of its events" />
        </>
      ) : null}
    </section>
  );
}

function DeletePerson({
  person,
  base,
  projectId,
  onDeleted,
}: {
  person: Person;
  base: string;
  projectId: number;
  onDeleted: (task: DeletionTask | null) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [withEvents, setWithEvents] = useState(false);
  const action = useAction();
  const remove = () =>
    action.run(async () => {
      await api(base, { method: 'DELETE', query: { delete_events: withEvents } });
      let task: DeletionTask | null = null;
      if (withEvents) {
        const queue = await api<Page<DeletionTask>>(`/api/projects/${projectId}/persons/deletion_status/`, {
          query: { person_uuid: person.uuid },
        });
        task = queue.results[0] ?? null;
      }
      onDeleted(task);
    });
  return (
    <section aria-labelledby="delete-heading" class="danger">
      <h2 id="delete-heading">Delete this person</h2>
      {confirming ? (
        <div role="group" aria-label="Confirm deletion">
          <p>
            The person and its distinct ids are removed. Its events stay unless you also delete them (a queued job does
            that).
          </p>
          <label class="check">
            <input
              type="checkbox"
              checked={withEvents}
              onChange={(event) => setWithEvents(event.currentTarget.checked)}
            />{' '}
            Also delete its events
          </label>
          <div class="actions">
            <button type="button" class="destructive" disabled={action.busy} onClick={remove}>
              Delete person permanently
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
          <ErrorMessage error={action.error} />
        </div>
      ) : (
        <button type="button" class="destructive" onClick={() => setConfirming(true)}>
          Delete person
        </button>
      )}
    </section>
  );
}

export function PersonScreen({ context, personId }: { context: ProjectContext; personId: string }) {
  const projectId = context.project.id;
  const base = `/api/projects/${projectId}/persons/${encodeURIComponent(personId)}/`;
  const loaded = useLoad(() => api<Person>(base), [base]);
  const [updated, setUpdated] = useState<Person | null>(null);
  const [deleted, setDeleted] = useState<{ task: DeletionTask | null } | null>(null);
  // Bumped by every change, so the timeline and the activity show it.
  const [version, setVersion] = useState(0);
  const changed = (next: Person | null) => {
    setUpdated(next);
    setVersion((value) => value + 1);
  };
  const person = updated ?? loaded.data;

  if (deleted) {
    return (
      <DetailMessage title="Person deleted" projectId={projectId} list="persons">
        <Notice>The person was deleted.{deleted.task ? ' Deleting its events is queued:' : ''}</Notice>
        {deleted.task ? <DeletionTable tasks={[deleted.task]} caption="Queued deletion of its events" /> : null}
      </DetailMessage>
    );
  }
  if (loaded.error) {
    return (
      <DetailMessage title="Person" projectId={projectId} list="persons">
        {loaded.error.status === 404 ? (
          <p>There is no person {personId} in this project: it was deleted, or the link is wrong.</p>
        ) : (
          <ErrorMessage error={loaded.error} />
        )}
      </DetailMessage>
    );
  }
  if (!person) return <Loading what="the person" />;
  return (
    <>
      <BackTo projectId={projectId} list="persons" />
      <h1 tabIndex={-1}>{person.name}</h1>
      <dl class="facts">
        <dt>UUID</dt>
        <dd class="ids">{person.uuid}</dd>
        <dt>ID</dt>
        <dd>{person.id}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={person.created_at} />
        </dd>
      </dl>
      <PersonProperties person={person} base={base} onChanged={changed} />
      <DistinctIds
        person={person}
        base={base}
        onSplit={() => {
          changed(null);
          loaded.reload();
        }}
      />
      <PersonEvents projectId={projectId} personId={person.id} />
      <PropertiesTimeline key={version} base={base} />
      <PersonCohorts projectId={projectId} personId={person.id} />
      <section aria-labelledby="activity-heading">
        <h2 id="activity-heading">Activity</h2>
        <ActivityList
          key={version}
          path={`${base}activity/`}
          projectId={projectId}
          showPerson={false}
          caption="Changes to this person"
        />
      </section>
      <PersonPrivacy person={person} base={base} />
      <DeletePerson person={person} base={base} projectId={projectId} onDeleted={(task) => setDeleted({ task })} />
    </>
  );
}
