// The signed-in user's personal API keys: list, create with chosen scopes (the value shown once),
// revoke.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Page, PersonalApiKey } from '../api/types.ts';
import { ConfirmButton } from '../components/confirm-dialog.tsx';
import { ErrorMessage, fieldError, formError, Loading } from '../components/feedback.tsx';
import { FieldError, fieldInputProps } from '../components/field-error.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { Time } from '../components/values.tsx';
import { readKey, signOut } from '../session.ts';

const RESOURCES = [
  'person',
  'cohort',
  'activity_log',
  'insight',
  'event',
  'organization',
  'organization_member',
  'project',
  'personal_api_key',
];
const SCOPES = ['*', ...RESOURCES.flatMap((resource) => [`${resource}:read`, `${resource}:write`])];

function CreateKey({ onCreated }: { onCreated: () => void }) {
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [created, setCreated] = useState<PersonalApiKey | null>(null);
  const action = useAction();
  const toggle = (scope: string, on: boolean) =>
    setScopes(on ? [...scopes, scope] : scopes.filter((item) => item !== scope));
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setCreated(await api<PersonalApiKey>('/api/personal_api_keys/', { method: 'POST', body: { label, scopes } }));
      setLabel('');
      setScopes([]);
      onCreated();
    });
  };
  return (
    <form class="panel" onSubmit={create} aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">New key</h2>
      {created ? (
        <div class="notice" role="status">
          <p>Key {created.label} created. Copy its value now: it is not shown again.</p>
          <input
            readOnly
            aria-label="New key value"
            value={created.value ?? ''}
            onFocus={(event) => event.currentTarget.select()}
          />
        </div>
      ) : null}
      <div class="field">
        <label for="key-label">Label</label>
        <input
          id="key-label"
          value={label}
          onInput={(event) => setLabel(event.currentTarget.value)}
          {...fieldInputProps(action.error, 'key-label', 'label')}
        />
        <FieldError error={action.error} id="key-label" attrs={['label']} />
      </div>
      <fieldset aria-describedby={fieldError(action.error, 'scopes') ? 'key-scopes-error' : undefined}>
        <legend>Scopes</legend>
        <div class="scopes">
          {SCOPES.map((scope) => (
            <label key={scope} class="check">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(event) => toggle(scope, event.currentTarget.checked)}
              />{' '}
              {scope === '*' ? 'All access (*)' : scope}
            </label>
          ))}
        </div>
        <FieldError error={action.error} id="key-scopes" attrs={['scopes']} />
      </fieldset>
      <ErrorMessage error={formError(action.error, 'label', 'scopes')} fields={{ label: 'Label', scopes: 'Scopes' }} />
      <button type="submit" disabled={action.busy}>
        Create key
      </button>
    </form>
  );
}

/** Whether a masked key (`phx_...abcd`) is the one this tab signed in with. */
function isSessionKey(mask: string): boolean {
  const key = readKey() ?? '';
  const [head, tail] = mask.split('...');
  return key.startsWith(head) && key.endsWith(tail ?? '');
}

/** Revoke, after a confirmation; revoking the key this tab signed in with says that it signs you out. */
function RevokeKey({ apiKey, onRevoked }: { apiKey: PersonalApiKey; onRevoked: () => void }) {
  const own = isSessionKey(apiKey.mask_value);
  return (
    <ConfirmButton
      label={`Revoke ${apiKey.label}`}
      title={own ? `Revoke ${apiKey.label}, the key you are signed in with?` : `Revoke ${apiKey.label}?`}
      confirm={own ? 'Revoke and sign out' : 'Revoke key'}
      keep="Keep key"
      onConfirm={async () => {
        await api(`/api/personal_api_keys/${encodeURIComponent(apiKey.id)}/`, { method: 'DELETE' });
        if (own) signOut('the key of this session was revoked.');
        else onRevoked();
      }}
    >
      {own ? (
        <p>
          <strong>This is the key this tab is signed in with: revoking it signs you out at once.</strong> Sign in again
          with another key. Scripts using it get 401 from now on.
        </p>
      ) : (
        <p>Scripts and tabs using {apiKey.mask_value} get 401 from now on. This cannot be undone.</p>
      )}
    </ConfirmButton>
  );
}

export function ApiKeysScreen() {
  const keys = useLoad(() => api<Page<PersonalApiKey>>('/api/personal_api_keys/', { query: { limit: 100 } }), []);
  return (
    <>
      <h1 tabIndex={-1}>API keys</h1>
      <p class="muted">Your personal API keys (at most 10).</p>
      <ErrorMessage error={keys.error} />
      {keys.data ? (
        <table>
          <caption>Your keys</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.results.map((key) => (
              <tr key={key.id}>
                <th scope="row">{key.label}</th>
                <td class="ids">{key.mask_value}</td>
                <td>{key.scopes.join(', ')}</td>
                <td>
                  <Time iso={key.created_at} />
                </td>
                <td>
                  <Time iso={key.last_used_at} />
                </td>
                <td>
                  <RevokeKey apiKey={key} onRevoked={keys.reload} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : keys.loading ? (
        <Loading what="keys" />
      ) : null}
      <CreateKey onCreated={keys.reload} />
    </>
  );
}
