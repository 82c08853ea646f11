// Pickers fed by the project's definitions: an event name, a property key, a property value. Each is
// a combobox (ARIA 1.2 pattern) whose options are asked of the API for the typed text; free text is
// still a value, and an event name the project never stored says so beside the field.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Page } from '../api/types.ts';

export type PropertyKind = 'event' | 'person';

interface PickerOption {
  value: string;
  /** Shown after the value, in words (a property's type). */
  note?: string;
}

interface ComboboxProps {
  id: string;
  /** The accessible name; a visible label is the caller's (`<label for={id}>`) when `labelled` is set. */
  label: string;
  labelled?: boolean;
  value: string;
  placeholder?: string;
  onChange: (value: string) => void;
  /** The options for the typed text (the API searches). */
  options: (text: string) => Promise<PickerOption[]>;
  describedBy?: string;
}

const OPTIONS_SHOWN = 20;

export function Combobox({ id, label, labelled, value, placeholder, onChange, options, describedBy }: ComboboxProps) {
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<PickerOption[]>([]);
  const [active, setActive] = useState(-1);
  const ticket = useRef(0);
  const listId = `${id}-options`;

  useEffect(() => {
    if (!open) return;
    const mine = ++ticket.current;
    // Typing waits a moment before it asks, so a word is one request rather than one a letter.
    const timer = setTimeout(() => {
      options(value.trim()).then(
        (found) => {
          if (mine !== ticket.current) return;
          setItems(found.slice(0, OPTIONS_SHOWN));
          setActive(-1);
        },
        () => mine === ticket.current && setItems([]),
      );
    }, 120);
    return () => clearTimeout(timer);
  }, [open, value]);

  const pick = (option: PickerOption) => {
    onChange(option.value);
    setOpen(false);
  };
  const keyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) return setOpen(true);
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (items.length === 0 ? -1 : (current + step + items.length) % items.length));
    } else if (event.key === 'Enter' && open && active >= 0 && items[active]) {
      event.preventDefault();
      pick(items[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
    }
  };
  const expanded = open && items.length > 0;
  return (
    <div class="combobox">
      <input
        id={id}
        role="combobox"
        aria-label={labelled ? undefined : label}
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && active >= 0 ? `${listId}-${active}` : undefined}
        aria-describedby={describedBy}
        autocomplete="off"
        spellcheck={false}
        value={value}
        placeholder={placeholder}
        onInput={(event) => {
          onChange(event.currentTarget.value);
          setOpen(true);
        }}
        onFocus={(event) => {
          // A value set from outside without an input event (autofill, a test driver clearing the
          // field) is taken first: opening re-renders, and the render would put the old one back.
          if (event.currentTarget.value !== value) onChange(event.currentTarget.value);
          setOpen(true);
        }}
        onBlur={() => setOpen(false)}
        onKeyDown={keyDown}
      />
      <ul id={listId} role="listbox" aria-label={`${label} options`} hidden={!expanded}>
        {expanded
          ? items.map((item, index) => (
              <li
                key={item.value}
                id={`${listId}-${index}`}
                role="option"
                // Named by its value alone: the note is a visual hint (the key's type).
                aria-label={item.value}
                aria-selected={index === active}
                class={index === active ? 'active' : undefined}
                // Chosen on mouse down, before the input's blur closes the list.
                onMouseDown={(event) => {
                  event.preventDefault();
                  pick(item);
                }}
              >
                {item.value}
                {item.note ? <span class="muted option-note"> {item.note}</span> : null}
              </li>
            ))
          : null}
      </ul>
    </div>
  );
}

const searchEvents = (projectId: number, text: string) =>
  api<Page<{ name: string }>>(`/api/projects/${projectId}/event_definitions/`, {
    query: { search: text, limit: OPTIONS_SHOWN },
  }).then((page) => page.results.map((definition) => ({ value: definition.name })));

// Whether a name was ever stored, per project and name: asked once a page load.
const seenNames = new Map<string, Promise<boolean | null>>();

/** Whether the project ever stored an event of this name; null when the key may not read definitions. */
export function eventSeen(projectId: number, name: string): Promise<boolean | null> {
  const key = `${projectId}\0${name}`;
  let known = seenNames.get(key);
  if (!known) {
    known = api<Page<{ name: string }>>(`/api/projects/${projectId}/event_definitions/`, {
      query: { search: name, limit: 1000 },
    }).then(
      (page) => page.results.some((definition) => definition.name === name),
      () => null,
    );
    seenNames.set(key, known);
    // An answer that failed may work later (a new key): only answers are kept.
    void known.then((seen) => seen === null && seenNames.delete(key));
  }
  return known;
}

/** An event name from the project's definitions (free text allowed), with "never seen" when it is unknown. */
export function EventPicker({
  projectId,
  id,
  label,
  value,
  onChange,
}: {
  projectId: number;
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const [seen, setSeen] = useState<boolean | null>(null);
  useEffect(() => {
    const name = value.trim();
    setSeen(null);
    if (name === '') return;
    let current = true;
    const timer = setTimeout(() => void eventSeen(projectId, name).then((known) => current && setSeen(known)), 300);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [projectId, value]);
  return (
    <div class="field picker">
      <label for={id}>{label}</label>
      <Combobox
        id={id}
        label={label}
        labelled
        value={value}
        placeholder="event name"
        onChange={onChange}
        options={(text) => searchEvents(projectId, text)}
        describedBy={seen === false ? `${id}-unseen` : undefined}
      />
      {seen === false ? (
        <p class="unseen" id={`${id}-unseen`}>
          Never seen in this project
        </p>
      ) : null}
    </div>
  );
}

const TYPE_WORDS: Record<string, string> = { Numeric: 'number', DateTime: 'date', Boolean: 'true/false' };

/** What both property pickers take: the field, events' or persons' properties, and the series' events. */
interface PropertyPickerProps {
  projectId: number;
  id: string;
  label: string;
  kind: PropertyKind;
  /** Events whose properties are offered (all the project's when absent or empty). */
  eventNames?: string[];
  value: string;
  onChange: (value: string) => void;
}

/** A property key of events or persons (only those seen on `eventNames` when given). */
export function PropertyKeyPicker({ projectId, id, label, kind, eventNames, value, onChange }: PropertyPickerProps) {
  const options = (text: string) =>
    api<Page<{ name: string; property_type: string | null }>>(`/api/projects/${projectId}/property_definitions/`, {
      query: {
        type: kind,
        search: text,
        limit: OPTIONS_SHOWN,
        event_names: kind === 'event' && eventNames && eventNames.length > 0 ? JSON.stringify(eventNames) : undefined,
      },
    }).then((page) =>
      page.results.map((definition) => ({
        value: definition.name,
        note: definition.property_type ? TYPE_WORDS[definition.property_type] : undefined,
      })),
    );
  return (
    <Combobox id={id} label={label} value={value} placeholder="property key" onChange={onChange} options={options} />
  );
}

/** A value seen for a property key: event values from `events/values/`, person values from `persons/values/`. */
export function PropertyValuePicker({
  projectId,
  id,
  label,
  kind,
  propertyKey,
  eventNames,
  value,
  onChange,
}: PropertyPickerProps & { propertyKey: string }) {
  const options = async (text: string): Promise<PickerOption[]> => {
    const key = propertyKey.trim();
    if (key === '') return [];
    if (kind === 'person') {
      const found = await api<Array<{ name: unknown }>>(`/api/projects/${projectId}/persons/values/`, {
        query: { key, value: text },
      });
      return found.map((item) => ({ value: typeof item.name === 'string' ? item.name : JSON.stringify(item.name) }));
    }
    const names = new URLSearchParams();
    for (const name of eventNames ?? []) if (name.trim() !== '') names.append('event_name', name.trim());
    const path = `/api/projects/${projectId}/events/values/${names.size > 0 ? `?${names.toString()}` : ''}`;
    const found = await api<Array<{ name: string }>>(path, { query: { key, value: text } });
    return found.map((item) => ({ value: item.name }));
  };
  return <Combobox id={id} label={label} value={value} placeholder="value" onChange={onChange} options={options} />;
}
