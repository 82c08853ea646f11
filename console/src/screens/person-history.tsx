// A person's past: the properties timeline (its properties as of each change) and its cohorts.
import { api } from '../api/client.ts';
import type { TimelinePoint } from '../api/types.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { useLoad } from '../components/use-load.ts';
import { plural, Time, valueText } from '../components/values.tsx';
import { projectHref } from '../router.ts';

interface Timeline {
  points: TimelinePoint[];
}

interface PersonCohort {
  id: number;
  name: string;
  count: number;
  is_static: boolean;
}

export function PropertiesTimeline({ base }: { base: string }) {
  const timeline = useLoad(() => api<Timeline>(`${base}properties_timeline/`), [base]);
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Properties timeline</h2>
      <ErrorMessage error={timeline.error} />
      {!timeline.data ? (
        timeline.loading ? (
          <Loading what="the timeline" />
        ) : null
      ) : timeline.data.points.length === 0 ? (
        <p class="muted">No events of this person yet.</p>
      ) : (
        <ol class="timeline">
          {timeline.data.points.map((point, index) => (
            <li key={index}>
              <p>
                <Time iso={point.timestamp} /> · {plural(point.relevant_event_count, 'event')}
              </p>
              <details>
                <summary>Properties as of then</summary>
                <dl class="facts">
                  {Object.keys(point.properties)
                    .sort()
                    .flatMap((key) => [
                      <dt key={`k${key}`}>{key}</dt>,
                      <dd key={`v${key}`}>{valueText(point.properties[key])}</dd>,
                    ])}
                </dl>
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function PersonCohorts({ projectId, personId }: { projectId: number; personId: number }) {
  const cohorts = useLoad(
    () =>
      api<{ results: PersonCohort[] }>(`/api/projects/${projectId}/persons/cohorts/`, {
        query: { person_id: personId },
      }),
    [projectId, personId],
  );
  return (
    <section aria-labelledby="person-cohorts-heading">
      <h2 id="person-cohorts-heading">Cohorts</h2>
      <ErrorMessage error={cohorts.error} />
      {cohorts.data ? (
        cohorts.data.results.length === 0 ? (
          <p class="muted">In no cohort.</p>
        ) : (
          <ul>
            {cohorts.data.results.map((cohort) => (
              <li key={cohort.id}>
                <a href={projectHref(projectId, 'cohorts', cohort.id)}>{cohort.name}</a> (
                {cohort.is_static ? 'static' : 'dynamic'}, {plural(cohort.count, 'person')})
              </li>
            ))}
          </ul>
        )
      ) : null}
    </section>
  );
}
