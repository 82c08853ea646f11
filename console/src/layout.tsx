// The signed-in frame: the project switcher, the navigation, sign out, and the screen of the route.
import { useEffect, useRef } from 'preact/hooks';
import { href, navigate, projectHref, type Route } from './router.ts';
import { signOut } from './session.ts';
import { Screen } from './screens/screen.tsx';
import type { Project } from './api/types.ts';
import type { Workspace } from './workspace.ts';

const SECTIONS: Array<[segment: string, label: string]> = [
  ['persons', 'Persons'],
  ['activity', 'Activity'],
  ['deletions', 'Deletion queue'],
  ['cohorts', 'Cohorts'],
  ['insights', 'Insights'],
  ['sql', 'SQL'],
  ['roles', 'Roles'],
  ['members', 'Members'],
  ['keys', 'API keys'],
  ['settings', 'Settings'],
];

function ProjectSwitcher({ workspace, project, section }: { workspace: Workspace; project: Project; section: string }) {
  const organizationIds = [...new Set(workspace.projects.map((item) => item.organization))];
  const nameOf = (id: string) =>
    workspace.organizations.find((organization) => organization.id === id)?.name ?? `Organization ${id}`;
  return (
    <div class="switcher">
      <label for="project-switcher">Project</label>
      <select
        id="project-switcher"
        value={String(project.id)}
        onChange={(event) => navigate('p', event.currentTarget.value, section)}
      >
        {organizationIds.map((organizationId) => (
          <optgroup key={organizationId} label={nameOf(organizationId)}>
            {workspace.projects
              .filter((item) => item.organization === organizationId)
              .map((item) => (
                <option key={item.id} value={String(item.id)}>
                  {item.name}
                </option>
              ))}
          </optgroup>
        ))}
      </select>
    </div>
  );
}

export function Layout({ workspace, route }: { workspace: Workspace; route: Route }) {
  const [first, projectId, section = 'persons', ...rest] = route.segments;
  const project = first === 'p' ? workspace.projects.find((item) => String(item.id) === projectId) : undefined;
  const fallback = workspace.projects[0];
  useEffect(() => {
    if (!project && fallback) location.replace(projectHref(fallback.id, 'persons'));
  }, [project, fallback]);

  const main = useRef<HTMLElement>(null);
  const routeKey = route.segments.join('/');
  useEffect(() => {
    // A new screen: move focus to its heading, so keyboard and screen-reader users start there.
    const heading = main.current?.querySelector<HTMLElement>('h1');
    if (heading && document.activeElement !== heading && !main.current?.contains(document.activeElement))
      heading.focus();
  }, [routeKey]);

  if (!project) {
    return (
      <main>
        <h1>herd console</h1>
        <p>
          {fallback
            ? 'Opening your first project…'
            : 'This key sees no project. Create one with the API (POST /api/projects/).'}
        </p>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </main>
    );
  }
  const organization = workspace.organizations.find((item) => item.id === project.organization);
  return (
    <div class="frame">
      <header class="top">
        <a class="brand" href={href('p', project.id, 'persons')}>
          herd
        </a>
        <ProjectSwitcher workspace={workspace} project={project} section={section} />
        <button type="button" class="sign-out" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <nav class="sections" aria-label="Sections">
        <ul>
          {SECTIONS.map(([segment, label]) => (
            <li key={segment}>
              <a href={projectHref(project.id, segment)} aria-current={segment === section ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main ref={main} class="screen">
        <Screen section={section} context={{ project, organization, rest }} />
      </main>
    </div>
  );
}
