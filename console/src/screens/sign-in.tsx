// Sign in with a personal API key: checked against the API before it is kept for the tab.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import type { SetupStatus } from '../api/types.ts';
import { ErrorMessage, Notice } from '../components/feedback.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { signIn } from '../session.ts';

const PROJECT_TOKEN =
  'This is a project token (phc_…): the public key a website or app sends events with. It cannot sign in. ' +
  'Sign in with a personal API key, which starts with phx_.';

export function SignIn({ reason }: { reason: string | null }) {
  const [key, setKey] = useState('');
  const action = useAction();
  // An empty install has no key to sign in with: say where its setup link is.
  const setup = useLoad(() => api<SetupStatus>('/api/setup/', { key: '' }), []);
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const value = key.trim();
      // The key the SDK snippet shows is the one people reach for: say what it is instead of "invalid".
      if (value.startsWith('phc_')) throw new ApiError(400, { detail: PROJECT_TOKEN });
      await api('/api/projects/', { key: value, query: { limit: 1 } });
      signIn(value);
    });
  };
  return (
    <main class="sign-in">
      <h1>herd console</h1>
      {reason ? <Notice>You were signed out: {reason}</Notice> : null}
      {setup.data?.open ? (
        <section class="panel" aria-labelledby="no-account-heading">
          <h2 id="no-account-heading">No account yet</h2>
          <p>
            This install has no account. When it started, <code>herd serve</code> (or <code>npm start</code>) printed a
            setup link on its standard output and in its log: <code>herd: no account yet — open …/#/setup?token=…</code>
            . Open that link to create the first account. A restart prints a new one.
          </p>
        </section>
      ) : null}
      <form onSubmit={submit}>
        <label for="personal-api-key">Personal API key</label>
        <input
          id="personal-api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          aria-invalid={action.error ? 'true' : undefined}
          aria-describedby={action.error ? 'sign-in-error' : 'sign-in-help'}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <p id="sign-in-help" class="muted">
          A key starting with phx_ (from <code>npx herd bootstrap</code> or <code>npx herd keys create</code>). It stays
          in this tab only.
        </p>
        <ErrorMessage error={action.error} id="sign-in-error" />
        <button type="submit" disabled={action.busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
