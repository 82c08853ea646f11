// Activity across the project's persons.
import { ActivityList } from '../components/activity-list.tsx';
import type { ProjectContext } from '../workspace.ts';

export function ActivityScreen({ context }: { context: ProjectContext }) {
  const projectId = context.project.id;
  return (
    <>
      <h1 tabIndex={-1}>Activity</h1>
      <ActivityList
        path={`/api/projects/${projectId}/persons/activity/`}
        projectId={projectId}
        showPerson
        caption="Changes to persons, newest first"
      />
    </>
  );
}
