// Property filters a person builds row by row: key, operator, value; all (AND) or any (OR) of them;
// and, on the persons list, a cohort.
import type { Cohort } from '../api/types.ts';
import { newRow, OPERATORS, VALUELESS, type FilterRow, type FilterState } from './filter-model.ts';

interface Props {
  state: FilterState;
  onChange: (state: FilterState) => void;
  /** Offered as a cohort filter when given. */
  cohorts?: Cohort[];
  idPrefix: string;
}

export function FilterBuilder({ state, onChange, cohorts, idPrefix }: Props) {
  const setRow = (index: number, change: Partial<FilterRow>) =>
    onChange({ ...state, rows: state.rows.map((row, at) => (at === index ? { ...row, ...change } : row)) });
  const removeRow = (index: number) => onChange({ ...state, rows: state.rows.filter((_, at) => at !== index) });
  return (
    <fieldset class="filters">
      <legend>Property filters</legend>
      {state.rows.length > 1 ? (
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
          const n = index + 1;
          return (
            <li key={index} class="filter-row">
              <input
                aria-label={`Filter ${n} key`}
                placeholder="property key"
                value={row.key}
                onInput={(event) => setRow(index, { key: event.currentTarget.value })}
              />
              <select
                aria-label={`Filter ${n} operator`}
                value={row.operator}
                onChange={(event) => setRow(index, { operator: event.currentTarget.value })}
              >
                {OPERATORS.map(([operator, label]) => (
                  <option key={operator} value={operator}>
                    {label}
                  </option>
                ))}
              </select>
              {VALUELESS.has(row.operator) ? null : (
                <input
                  aria-label={`Filter ${n} value`}
                  placeholder="value"
                  value={row.value}
                  onInput={(event) => setRow(index, { value: event.currentTarget.value })}
                />
              )}
              <button type="button" onClick={() => removeRow(index)}>
                Remove filter {n}
              </button>
            </li>
          );
        })}
      </ol>
      <button type="button" onClick={() => onChange({ ...state, rows: [...state.rows, newRow()] })}>
        Add filter
      </button>
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
