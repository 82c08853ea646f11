// Property filters a person builds row by row: key, operator, value; all (AND) or any (OR) of them;
// and, on the persons list, a cohort. Given a project, keys and values are picked from its
// definitions (typing still allowed); given several kinds, each row says whose property it tests.
import type { Cohort } from '../api/types.ts';
import { PropertyKeyPicker, PropertyValuePicker, type PropertyKind } from '../components/definition-pickers.tsx';
import { newRow, OPERATORS, VALUELESS, type FilterRow, type FilterState } from './filter-model.ts';

interface Props {
  state: FilterState;
  onChange: (state: FilterState) => void;
  /** Offered as a cohort filter when given. */
  cohorts?: Cohort[];
  idPrefix: string;
  /** Keys and values from this project's definitions; plain text fields without it. */
  projectId?: number;
  /** Whose properties a row may test: persons' alone by default. */
  kinds?: PropertyKind[];
  /** Event keys and values of these events only (a series' filters). */
  eventNames?: string[];
  /** The rows' names: "Filter 1 key" by default, "Series 2 filter 1 key" with "Series 2 filter". */
  rowLabel?: string;
  legend?: string;
  /** Without one match choice: a series' filters are all required. */
  allRequired?: boolean;
  /** With no rows, only the button that adds one (a series' filters, seldom used). */
  compact?: boolean;
}

const KIND_LABELS: Record<PropertyKind, string> = { event: 'Event property', person: 'Person property' };

export function FilterBuilder({
  state,
  onChange,
  cohorts,
  idPrefix,
  projectId,
  kinds = ['person'],
  eventNames,
  rowLabel = 'Filter',
  legend = 'Property filters',
  allRequired,
  compact,
}: Props) {
  const setRow = (index: number, change: Partial<FilterRow>) =>
    onChange({ ...state, rows: state.rows.map((row, at) => (at === index ? { ...row, ...change } : row)) });
  const removeRow = (index: number) => onChange({ ...state, rows: state.rows.filter((_, at) => at !== index) });
  const add = (
    <button type="button" onClick={() => onChange({ ...state, rows: [...state.rows, newRow(kinds[0])] })}>
      Add {rowLabel.toLowerCase()}
    </button>
  );
  if (compact && state.rows.length === 0) return add;
  return (
    <fieldset class="filters">
      <legend>{legend}</legend>
      {state.rows.length > 1 && !allRequired ? (
        <div class="field-inline">
          <label for={`${idPrefix}-match`}>Match</label>
          <select
            id={`${idPrefix}-match`}
            value={state.match}
            onChange={(event) => onChange({ ...state, match: event.currentTarget.value as 'AND' | 'OR' })}
          >
            <option value="AND">all filters (AND)</option>
            <option value="OR">any filter (OR)</option>
          </select>
        </div>
      ) : null}
      <ol class="filter-rows">
        {state.rows.map((row, index) => {
          const name = `${rowLabel} ${index + 1}`;
          const kind = kinds.includes(row.type) ? row.type : kinds[0];
          return (
            <li key={index} class="filter-row">
              {kinds.length > 1 ? (
                <select
                  aria-label={`${name} type`}
                  value={kind}
                  onChange={(event) => setRow(index, { type: event.currentTarget.value as PropertyKind })}
                >
                  {kinds.map((item) => (
                    <option key={item} value={item}>
                      {KIND_LABELS[item]}
                    </option>
                  ))}
                </select>
              ) : null}
              {projectId === undefined ? (
                <input
                  aria-label={`${name} key`}
                  placeholder="property key"
                  value={row.key}
                  onInput={(event) => setRow(index, { key: event.currentTarget.value })}
                />
              ) : (
                <PropertyKeyPicker
                  projectId={projectId}
                  id={`${idPrefix}-${index}-key`}
                  label={`${name} key`}
                  kind={kind}
                  eventNames={eventNames}
                  value={row.key}
                  onChange={(key) => setRow(index, { key })}
                />
              )}
              <select
                aria-label={`${name} operator`}
                value={row.operator}
                onChange={(event) => setRow(index, { operator: event.currentTarget.value })}
              >
                {OPERATORS.map(([operator, label]) => (
                  <option key={operator} value={operator}>
                    {label}
                  </option>
                ))}
              </select>
              {VALUELESS.has(row.operator) ? null : projectId === undefined ? (
                <input
                  aria-label={`${name} value`}
                  placeholder="value"
                  value={row.value}
                  onInput={(event) => setRow(index, { value: event.currentTarget.value })}
                />
              ) : (
                <PropertyValuePicker
                  projectId={projectId}
                  id={`${idPrefix}-${index}-value`}
                  label={`${name} value`}
                  kind={kind}
                  propertyKey={row.key}
                  eventNames={eventNames}
                  value={row.value}
                  onChange={(value) => setRow(index, { value })}
                />
              )}
              <button type="button" onClick={() => removeRow(index)}>
                Remove {name.charAt(0).toLowerCase()}
                {name.slice(1)}
              </button>
            </li>
          );
        })}
      </ol>
      {add}
      {cohorts ? (
        <div class="field-inline">
          <label for={`${idPrefix}-cohort`}>In cohort</label>
          <select
            id={`${idPrefix}-cohort`}
            value={state.cohortId}
            onChange={(event) => onChange({ ...state, cohortId: event.currentTarget.value })}
          >
            <option value="">Any cohort</option>
            {cohorts.map((cohort) => (
              <option key={cohort.id} value={String(cohort.id)}>
                {cohort.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
    </fieldset>
  );
}
