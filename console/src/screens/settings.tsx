// The project's settings: how long its events are kept (the deletion batch deletes older ones).
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Project } from '../api/types.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { ErrorMessage, fieldError, Loading, Notice } from '../components/feedback.tsx';
import { FieldError } from '../components/field-error.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import type { ProjectContext } from '../workspace.ts';

function RetentionForm({ project, onSaved }: { project: Project; onSaved: (project: Project) => void }) {
  const [days, setDays] = useState(project.data_retention_days === null ? '' : String(project.data_retention_days));
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState<number | null>(null);
  const action = useAction();
  const store = async (value: number | null) => {
    const updated = await api<Project>(`/api/projects/${project.id}/`, {
      method: 'PATCH',
      body: { data_retention_days: value },
    });
    onSaved(updated);
    setSaved(true);
  };
  const save = (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const text = days.trim();
    const value = text === '' ? null : Number(text);
    const current = project.data_retention_days;
    // A shorter period deletes events at the next batch: asked first. A bad value goes to the API, which says why.
    if (value !== null && Number.isInteger(value) && value > 0 && (current === null || value < current)) {
      setConfirming(value);
      return;
    }
    void action.run(() => store(value));
  };
  const error = fieldError(action.error, 'data_retention_days');
  return (
    // noValidate: the API says what is wrong, next to the field, as everywhere in the console.
    <form onSubmit={save} aria-label="Data retention" noValidate>
      <p>
        {project.data_retention_days === null
          ? 'Events are kept forever.'
          : `Events older than ${project.data_retention_days} days are deleted by the deletion batch (Sundays 05:00 UTC unless configured otherwise).`}
      </p>
      <div class="field">
        <label for="retention-days">Keep events for (days)</label>
        <input
          id="retention-days"
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          value={days}
          aria-describedby={error ? 'retention-days-error retention-help' : 'retention-help'}
          aria-invalid={error ? 'true' : undefined}
          onInput={(event) => setDays(event.currentTarget.value)}
        />
        <p id="retention-help" class="muted">
          Leave empty to keep events forever.
        </p>
        <FieldError error={action.error} id="retention-days" attrs={['data_retention_days']} />
      </div>
      <button type="submit" disabled={action.busy}>
        Save retention
      </button>
      {error ? null : <ErrorMessage error={action.error} />}
      {saved ? <Notice>Retention saved.</Notice> : null}
      {confirming !== null ? (
        <ConfirmDialog
          title={`Keep events for ${confirming} days only?`}
          confirm="Shorten retention"
          keep="Keep the current period"
          onConfirm={() => store(confirming)}
          onClose={() => setConfirming(null)}
        >
          <p>
            The next deletion batch deletes every event older than {confirming} days
            {project.data_retention_days === null ? '' : ` (now ${project.data_retention_days})`}. Deleted events cannot
            be brought back.
          </p>
        </ConfirmDialog>
      ) : null}
    </form>
  );
}

export function SettingsScreen({ context }: { context: ProjectContext }) {
  const projectId = context.project.id;
  const loaded = useLoad(() => api<Project>(`/api/projects/${projectId}/`), [projectId]);
  const [current, setCurrent] = useState<Project | null>(null);
  const project = current ?? loaded.data;
  return (
    <>
      <h1 tabIndex={-1}>Project settings</h1>
      <ErrorMessage error={loaded.error} />
      {project ? (
        <section aria-labelledby="retention-heading">
          <h2 id="retention-heading">Data retention</h2>
          <RetentionForm project={project} onSaved={setCurrent} />
        </section>
      ) : loaded.loading ? (
        <Loading what="the project" />
      ) : null}
    </>
  );
}
