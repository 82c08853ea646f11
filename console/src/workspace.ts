// What the signed-in console holds: the projects and organizations the key reaches, and the project
// a screen shows. Types only, below app.tsx, layout.tsx and the screens that all read them.
import type { Organization, Project } from './api/types.ts';

export interface Workspace {
  projects: Project[];
  organizations: Organization[];
}

export interface ProjectContext {
  project: Project;
  organization: Organization | undefined;
  /** The route's segments after `p/<project>/<screen>`. */
  rest: string[];
}
