// A person's properties: edit a value, add one, delete one, through the API's $set and $unset paths
// (PATCH captures a $set event; delete_property a $delete_person_property event).
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import type { Person } from '../api/types.ts';
import { ErrorMessage } from '../components/feedback.tsx';
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
  const remove = () =>
    action.run(async () =>
      onChanged(await api<Person>(`${base}delete_property/`, { method: 'POST', body: { $unset: name } })),
    );
  return (
    <tr>
      <th scope="row" class="key">
        {name}
      </th>
      <td>
        {editing ? (
          <form class="inline-form" onSubmit={save}>
            <input
              aria-label={`New value of ${name}`}
              value={text}
              onInput={(event) => setText(event.currentTarget.value)}
            />
            <label class="check">
              <input type="checkbox" checked={asJson} onChange={(event) => setAsJson(event.currentTarget.checked)} /> as
              JSON
            </label>
            <button type="submit" disabled={action.busy}>
              Save {name}
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <ValueText value={value} />
        )}
        <ErrorMessage error={action.error} />
      </td>
      <td class="row-actions">
        {editing ? null : (
          <>
            <button type="button" onClick={startEditing}>
              Edit {name}
            </button>
            <button type="button" disabled={action.busy} onClick={remove}>
              Delete {name}
            </button>
          </>
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
    <form class="inline-form" onSubmit={add} aria-label="Add a property">
      <input
        aria-label="New property key"
        placeholder="key"
        value={key}
        onInput={(event) => setKey(event.currentTarget.value)}
      />
      <input
        aria-label="New property value"
        placeholder="value"
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <label class="check">
        <input type="checkbox" checked={asJson} onChange={(event) => setAsJson(event.currentTarget.checked)} /> Value is
        JSON
      </label>
      <button type="submit" disabled={action.busy}>
        Add property
      </button>
      <ErrorMessage error={action.error} />
    </form>
  );
}

export function PersonProperties({ person, base, onChanged }: Props) {
  const names = Object.keys(person.properties).sort();
  return (
    <section aria-labelledby="properties-heading">
      <h2 id="properties-heading">Properties</h2>
      {names.length === 0 ? <p class="muted">No properties.</p> : null}
      <table class="properties">
        <caption class="visually-hidden">Properties of this person</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Value</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {names.map((name) => (
            <PropertyRow key={name} name={name} value={person.properties[name]} base={base} onChanged={onChanged} />
          ))}
        </tbody>
      </table>
      <AddProperty base={base} onChanged={onChanged} />
    </section>
  );
}
