// The first run of an empty install: the link the server printed (`#/setup?token=…`) opens this
// screen, which creates the first account, shows its personal API key once and signs in with it.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { FirstAccount, SetupStatus } from '../api/types.ts';
import { ErrorMessage, formError, Loading } from '../components/feedback.tsx';
import { FieldError, fieldInputProps } from '../components/field-error.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { projectHref, routeParameter } from '../router.ts';
import { signIn } from '../session.ts';

const FIELDS = ['email', 'first_name', 'organization_name', 'project_name'] as const;
type Field = (typeof FIELDS)[number];

const LABELS: Record<Field, string> = {
  email: 'E-mail',
  first_name: 'Name',
  organization_name: 'Organization name',
  project_name: 'Project name',
};

const PLACEHOLDERS: Partial<Record<Field, string>> = {
  organization_name: 'Default Organization',
  project_name: 'Default Project',
};

function ShowKey({ account }: { account: FirstAccount }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () => {
    const clipboard = window.navigator.clipboard as Clipboard | undefined;
    // Outside a secure context (plain http on another host) there is no clipboard: select it instead.
    if (!clipboard) {
      document.getElementById('new-account-key')?.focus();
      setCopied('Selected: copy it with your keyboard.');
      return;
    }
    clipboard.writeText(account.personal_api_key).then(
      () => setCopied('Copied.'),
      () => setCopied('Could not copy: select the key and copy it with your keyboard.'),
    );
  };
  const open = (event: Event) => {
    event.preventDefault();
    // Replaced, not pushed: Back does not return to the spent setup link.
    location.replace(projectHref(account.project_id, 'persons'));
    signIn(account.personal_api_key);
  };
  return (
    <form class="panel" onSubmit={open} aria-labelledby="new-account-heading">
      <h2 id="new-account-heading">Your personal API key</h2>
      <p>
        The account of {account.user.email} is ready. This key signs you in here and to the API with every scope.{' '}
        <strong>Store it now: it will not be shown again.</strong>
      </p>
      <div class="field-inline">
        <input
          id="new-account-key"
          class="key-value"
          readOnly
          aria-label="Your personal API key"
          value={account.personal_api_key}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          Copy key
        </button>
      </div>
      {copied ? (
        <p class="muted" role="status">
          {copied}
        </p>
      ) : null}
      <button type="submit">Continue to the console</button>
    </form>
  );
}

export function SetupScreen() {
  const token = routeParameter('token');
  const status = useLoad(() => api<SetupStatus>('/api/setup/', { key: '' }), []);
  const [values, setValues] = useState<Record<Field, string>>({
    email: '',
    first_name: '',
    organization_name: '',
    project_name: '',
  });
  const [account, setAccount] = useState<FirstAccount | null>(null);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      // A field left empty is left out: the server's default applies.
      const body: Record<string, string> = { token: token ?? '' };
      for (const field of FIELDS) if (values[field].trim() !== '') body[field] = values[field].trim();
      setAccount(await api<FirstAccount>('/api/setup/', { method: 'POST', key: '', body }));
    });
  };

  let content;
  if (account) content = <ShowKey account={account} />;
  else if (status.loading) content = <Loading what="the setup" />;
  else if (status.error) content = <ErrorMessage error={status.error} />;
  else if (!status.data?.open)
    content = (
      <p>
        Setup is closed: an account exists already. <a href="#/">Sign in</a> with its personal API key.
      </p>
    );
  else if (!token)
    content = (
      <p>
        This link has no setup token. Open the whole link <code>herd serve</code> printed when it started.
      </p>
    );
  else
    content = (
      <form onSubmit={submit}>
        {FIELDS.map((field) => (
          <div class="field" key={field}>
            <label for={`setup-${field}`}>{LABELS[field]}</label>
            <input
              id={`setup-${field}`}
              type="text"
              inputMode={field === 'email' ? 'email' : undefined}
              autocomplete={field === 'email' ? 'email' : field === 'first_name' ? 'given-name' : 'off'}
              required={field === 'email'}
              placeholder={PLACEHOLDERS[field]}
              value={values[field]}
              {...fieldInputProps(action.error, `setup-${field}`, field)}
              onInput={(event) => setValues({ ...values, [field]: event.currentTarget.value })}
            />
            <FieldError error={action.error} id={`setup-${field}`} attrs={[field]} />
          </div>
        ))}
        <ErrorMessage error={formError(action.error, ...FIELDS)} fields={LABELS} />
        <button type="submit" disabled={action.busy}>
          Create the account
        </button>
      </form>
    );

  return (
    <main class="sign-in">
      <h1>Create the first account</h1>
      {content}
    </main>
  );
}
