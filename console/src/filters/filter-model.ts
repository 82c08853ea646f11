// The property filter builder's state and the API's filter group it stands for.
export const OPERATORS: Array<[operator: string, label: string]> = [
  ['exact', 'equals'],
  ['is_not', 'does not equal'],
  ['icontains', 'contains'],
  ['not_icontains', 'does not contain'],
  ['regex', 'matches regex'],
  ['not_regex', 'does not match regex'],
  ['gt', 'greater than'],
  ['gte', 'at least'],
  ['lt', 'less than'],
  ['lte', 'at most'],
  ['is_set', 'is set'],
  ['is_not_set', 'is not set'],
  ['is_date_exact', 'is on date'],
  ['is_date_before', 'is before date'],
  ['is_date_after', 'is after date'],
];

export const VALUELESS = new Set(['is_set', 'is_not_set']);

export interface FilterRow {
  key: string;
  operator: string;
  value: string;
}

export interface FilterState {
  match: 'AND' | 'OR';
  rows: FilterRow[];
  /** A cohort id, or '' for none. */
  cohortId: string;
}

export const emptyFilters = (): FilterState => ({ match: 'AND', rows: [], cohortId: '' });

export const newRow = (): FilterRow => ({ key: '', operator: 'exact', value: '' });

export function isEmpty(state: FilterState): boolean {
  return state.rows.length === 0 && state.cohortId === '';
}

/**
 * The filter group of the API: the rows joined by the chosen match, and the cohort (if any) required
 * beside them. Values go as typed; the API compares them as text and reads numbers for gt/lt.
 */
export function filterGroup(state: FilterState): Record<string, unknown> | null {
  const leaves = state.rows.map((row) =>
    VALUELESS.has(row.operator)
      ? { key: row.key, operator: row.operator, type: 'person' }
      : { key: row.key, operator: row.operator, value: row.value, type: 'person' },
  );
  const values: unknown[] = [];
  if (leaves.length > 0) values.push({ type: state.match, values: leaves });
  if (state.cohortId !== '') values.push({ key: 'id', value: Number(state.cohortId), type: 'cohort' });
  return values.length === 0 ? null : { type: 'AND', values };
}
