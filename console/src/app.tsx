// Signed out: the sign-in screen. Signed in: the projects of the key's organizations, then the
// screen the route names. Either way `#/setup` is the first run's setup screen.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api/client.ts';
import type { Organization, Page, Project } from './api/types.ts';
import type { Workspace } from './workspace.ts';
import { ErrorMessage, Loading } from './components/feedback.tsx';
import { useLoad } from './components/use-load.ts';
import { Layout } from './layout.tsx';
import { useRoute } from './router.ts';
import { onSessionChange, readKey, signOut } from './session.ts';
import { SetupScreen } from './screens/setup.tsx';
import { SignIn } from './screens/sign-in.tsx';

async function loadWorkspace(): Promise<Workspace> {
  const projects = await api<Page<Project>>('/api/projects/', { query: { limit: 1000 } });
  // Organization names are a nicety: a key without organization:read still works on its projects.
  const organizations = await api<Page<Organization>>('/api/organizations/', { query: { limit: 1000 } }).then(
    (page) => page.results,
    () => [],
  );
  return { projects: projects.results, organizations };
}

function SignedIn() {
  const route = useRoute();
  const workspace = useLoad(loadWorkspace, []);
  if (workspace.error) {
    return (
      <main class="signed-in-error">
        <h1>herd console</h1>
        <ErrorMessage error={workspace.error} />
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </main>
    );
  }
  if (!workspace.data) return <Loading what="your projects" />;
  return <Layout workspace={workspace.data} route={route} />;
}

export function App() {
  const route = useRoute();
  const [key, setKey] = useState(readKey);
  const [reason, setReason] = useState<string | null>(null);
  useEffect(
    () =>
      onSessionChange((why) => {
        setKey(readKey());
        setReason(why);
      }),
    [],
  );
  // The link an empty install prints: shown signed in or not (it says when setup is closed).
  if (route.segments[0] === 'setup') return <SetupScreen />;
  return key ? <SignedIn key={key} /> : <SignIn reason={reason} />;
}
