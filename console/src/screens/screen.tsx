// The screen of a section. Insights (and its chart library) and a cohort's page load only when
// opened, so the first screen stays small on a slow connection.
import { useEffect, useState } from 'preact/hooks';
import type { FunctionComponent } from 'preact';
import type { ProjectContext } from '../workspace.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { toApiError } from '../components/use-load.ts';
import type { ApiError } from '../api/client.ts';
import { ActivityScreen } from './activity.tsx';
import { ApiKeysScreen } from './api-keys.tsx';
import { CohortsScreen } from './cohorts.tsx';
import { DeletionsScreen } from './deletions.tsx';
import { MembersScreen } from './members.tsx';
import { PersonScreen } from './person.tsx';
import { PersonsScreen } from './persons.tsx';
import { RoleScreen } from './role.tsx';
import { RolesScreen } from './roles.tsx';
import { SettingsScreen } from './settings.tsx';
import { SqlScreen } from './sql.tsx';

type ScreenComponent = FunctionComponent<{ context: ProjectContext }>;

function LazyInsights({ context }: { context: ProjectContext }) {
  const [loaded, setLoaded] = useState<ScreenComponent | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    import('../insights/insights-screen.tsx').then(
      (module) => setLoaded(() => module.InsightsScreen),
      (caught: unknown) => setError(toApiError(caught)),
    );
  }, []);
  if (error) return <ErrorMessage error={error} />;
  if (!loaded) return <Loading what="insights" />;
  const Insights = loaded;
  return <Insights context={context} />;
}

type CohortComponent = FunctionComponent<{ context: ProjectContext; cohortId: string }>;

// A cohort's page is opened from the list, not on arrival: loaded then, so the first screen stays as small.
function LazyCohort({ context, cohortId }: { context: ProjectContext; cohortId: string }) {
  const [loaded, setLoaded] = useState<CohortComponent | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    import('./cohort.tsx').then(
      (module) => setLoaded(() => module.CohortScreen),
      (caught: unknown) => setError(toApiError(caught)),
    );
  }, []);
  if (error) return <ErrorMessage error={error} />;
  if (!loaded) return <Loading what="the cohort" />;
  const Cohort = loaded;
  return <Cohort context={context} cohortId={cohortId} />;
}

export function Screen({ section, context }: { section: string; context: ProjectContext }) {
  const [id] = context.rest;
  switch (section) {
    case 'persons':
      return id ? <PersonScreen key={id} context={context} personId={id} /> : <PersonsScreen context={context} />;
    case 'activity':
      return <ActivityScreen context={context} />;
    case 'deletions':
      return <DeletionsScreen context={context} />;
    case 'cohorts':
      return id ? <LazyCohort key={id} context={context} cohortId={id} /> : <CohortsScreen context={context} />;
    case 'insights':
      return <LazyInsights context={context} />;
    case 'sql':
      return <SqlScreen context={context} />;
    case 'roles':
      return id ? <RoleScreen key={id} context={context} roleId={id} /> : <RolesScreen context={context} />;
    case 'members':
      return <MembersScreen context={context} />;
    case 'keys':
      return <ApiKeysScreen />;
    case 'settings':
      return <SettingsScreen context={context} />;
    default:
      return (
        <>
          <h1 tabIndex={-1}>Not found</h1>
          <p>There is no such screen.</p>
        </>
      );
  }
}
