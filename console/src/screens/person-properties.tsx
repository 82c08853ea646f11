// A person's properties in a compact table: searched by key or value, empty ones (null, "", [] and
// {}) hidden unless asked for, one Edit a row — the editor saves through PATCH (a $set event) and
// deletes through delete_property (a $delete_person_property event), after a confirmation.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import type { Person } from '../api/types.ts';
import { ConfirmButton } from '../components/confirm-dialog.tsx';
import { ErrorMessage, formError } from '../components/feedback.tsx';
import { FieldError, fieldInputProps } from '../components/field-error.tsx';
import { useAction } from '../components/use-load.ts';
import { valueText, ValueText } from '../components/values.tsx';

/** The typed text as a value: JSON when asked for (numbers, booleans, objects), else the string. */
function parseValue(text: string, asJson: boolean): unknown {
  if (!asJson) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, { detail: 'This value is not valid JSON.', attr: 'value' });
  }
}

/** Nothing to read: posthog-js sends many of these (`$initial_utm_source: null`, …). */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

const propertiesText = (count: number) => `${count} ${count === 1 ? 'property' : 'properties'}`;

interface Props {
  person: Person;
  base: string;
  onChanged: (person: Person) => void;
}

function PropertyRow({ name, value, base, onChanged }: { name: string; value: unknown } & Omit<Props, 'person'>) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  const [asJson, setAsJson] = useState(false);
  const action = useAction();
  const inputId = `property-${encodeURIComponent(name)}`;
  const startEditing = () => {
    setText(valueText(value));
    setAsJson(typeof value !== 'string');
    action.clear();
    setEditing(true);
  };
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      onChanged(
        await api<Person>(base, { method: 'PATCH', body: { properties: { [name]: parseValue(text, asJson) } } }),
      );
      setEditing(false);
    });
  };
  const remove = async () =>
    onChanged(await api<Person>(`${base}delete_property/`, { method: 'POST', body: { $unset: name } }));
  return (
    <tr>
      <th scope="row" class="key">
        {name}
      </th>
      <td class="property-value">
        {editing ? (
          <form class="inline-form" onSubmit={save} aria-label={`Editing ${name}`}>
            <input
              id={inputId}
              aria-label={`New value of ${name}`}
              value={text}
              onInput={(event) => setText(event.currentTarget.value)}
              {...fieldInputProps(action.error, inputId, 'value', 'properties')}
            />
            <label class="check">
              <input type="checkbox" checked={asJson} onChange={(event) => setAsJson(event.currentTarget.checked)} /> as
              JSON
            </label>
            <button type="submit" aria-label={`Save ${name}`} disabled={action.busy}>
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
            <ConfirmButton
              label={`Delete ${name}`}
              text="Delete"
              buttonClass="secondary"
              title={`Delete the property ${name}?`}
              confirm="Delete property"
              keep="Keep property"
              onConfirm={remove}
            >
              <p>
                The person loses {name} (now <ValueText value={value} />
                ). Its past events keep the value they were sent with; a later event may set it again.
              </p>
            </ConfirmButton>
            <FieldError error={action.error} id={inputId} attrs={['value', 'properties']} />
            <ErrorMessage error={formError(action.error, 'value', 'properties')} />
          </form>
        ) : (
          <ValueText value={value} />
        )}
      </td>
      <td class="row-actions">
        {editing ? null : (
          <button type="button" class="secondary" aria-label={`Edit ${name}`} onClick={startEditing}>
            Edit
          </button>
        )}
      </td>
    </tr>
  );
}

function AddProperty({ base, onChanged }: Omit<Props, 'person'>) {
  const [key, setKey] = useState('');
  const [text, setText] = useState('');
  const [asJson, setAsJson] = useState(false);
  const action = useAction();
  const add = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      if (key.trim() === '') throw new ApiError(400, { detail: 'A property needs a key.', attr: 'key' });
      onChanged(
        await api<Person>(base, { method: 'PATCH', body: { properties: { [key]: parseValue(text, asJson) } } }),
      );
      setKey('');
      setText('');
    });
  };
  return (
    <form class="inline-form add-property" onSubmit={add} aria-label="Add a property">
      <span class="field-stack">
        <input
          id="new-property-key"
          aria-label="New property key"
          placeholder="key"
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          {...fieldInputProps(action.error, 'new-property-key', 'key')}
        />
        <FieldError error={action.error} id="new-property-key" attrs={['key']} />
      </span>
      <span class="field-stack">
        <input
          id="new-property-value"
          aria-label="New property value"
          placeholder="value"
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          {...fieldInputProps(action.error, 'new-property-value', 'value', 'properties')}
        />
        <FieldError error={action.error} id="new-property-value" attrs={['value', 'properties']} />
      </span>
      <label class="check">
        <input type="checkbox" checked={asJson} onChange={(event) => setAsJson(event.currentTarget.checked)} /> Value is
        JSON
      </label>
      <button type="submit" disabled={action.busy}>
        Add property
      </button>
      <ErrorMessage error={formError(action.error, 'key', 'value', 'properties')} />
    </form>
  );
}

export function PersonProperties({ person, base, onChanged }: Props) {
  const [search, setSearch] = useState('');
  const [hideEmpty, setHideEmpty] = useState(true);
  const names = Object.keys(person.properties).sort();
  const needle = search.trim().toLowerCase();
  const empty = names.filter((name) => isEmptyValue(person.properties[name]));
  const shown = names.filter(
    (name) =>
      !(hideEmpty && isEmptyValue(person.properties[name])) &&
      (needle === '' ||
        name.toLowerCase().includes(needle) ||
        valueText(person.properties[name]).toLowerCase().includes(needle)),
  );
  const hidden = hideEmpty ? empty.length : 0;
  return (
    <section aria-labelledby="properties-heading">
      <h2 id="properties-heading">Properties</h2>
      {names.length === 0 ? (
        <p class="muted">No properties.</p>
      ) : (
        <>
          <div class="toolbar" role="search" aria-label="Properties">
            <label for="property-search">Search properties</label>
            <input
              id="property-search"
              type="search"
              placeholder="key or value"
              value={search}
              onInput={(event) => setSearch(event.currentTarget.value)}
            />
            <label class="check">
              <input
                type="checkbox"
                checked={hideEmpty}
                onChange={(event) => setHideEmpty(event.currentTarget.checked)}
              />{' '}
              Hide empty values
            </label>
          </div>
          <p class="muted" role="status">
            {shown.length === names.length
              ? propertiesText(names.length)
              : `${shown.length} of ${propertiesText(names.length)} shown`}
            {hidden > 0 ? ` · ${hidden} empty hidden` : ''}
          </p>
          {shown.length === 0 ? (
            <p class="muted">
              {needle === '' ? 'Every property is empty.' : `No property matches “${search.trim()}”.`}
            </p>
          ) : (
            <table class="properties compact">
              <caption class="visually-hidden">Properties of this person</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Value</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((name) => (
                  <PropertyRow
                    key={name}
                    name={name}
                    value={person.properties[name]}
                    base={base}
                    onChanged={onChanged}
                  />
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      <AddProperty base={base} onChanged={onChanged} />
    </section>
  );
}
