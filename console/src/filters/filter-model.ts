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
  /** Whose property: the event's own or the person's (as of the event, on an insight). */
  type: 'event' | 'person';
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

export const newRow = (type: FilterRow['type'] = 'person'): FilterRow => ({
  type,
  key: '',
  operator: 'exact',
  value: '',
});

export function isEmpty(state: FilterState): boolean {
  return state.rows.length === 0 && state.cohortId === '';
}

const leafOf = (row: FilterRow) =>
  VALUELESS.has(row.operator)
    ? { key: row.key, operator: row.operator, type: row.type }
    : { key: row.key, operator: row.operator, value: row.value, type: row.type };

/**
 * The filter group of the API: the rows joined by the chosen match, and the cohort (if any) required
 * beside them. Values go as typed; the API compares them as text and reads numbers for gt/lt.
 */
export function filterGroup(state: FilterState): Record<string, unknown> | null {
  const leaves = state.rows.map(leafOf);
  const values: unknown[] = [];
  if (leaves.length > 0) values.push({ type: state.match, values: leaves });
  if (state.cohortId !== '') values.push({ key: 'id', value: Number(state.cohortId), type: 'cohort' });
  return values.length === 0 ? null : { type: 'AND', values };
}

/** The rows as a plain list of filters (all must match): how an insight's series carries its filters. */
export function filterList(state: FilterState): Array<Record<string, unknown>> {
  return state.rows.map(leafOf);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const knownOperator = (operator: unknown) => OPERATORS.some(([known]) => known === operator);

function rowOf(leaf: Record<string, unknown>): FilterRow | null {
  if (typeof leaf.key !== 'string') return null;
  const value = leaf.value;
  return {
    type: leaf.type === 'event' ? 'event' : 'person',
    key: leaf.key,
    operator: knownOperator(leaf.operator) ? (leaf.operator as string) : 'exact',
    value: typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value),
  };
}

/**
 * The builder's state of filters, and whether it holds all of them: `whole` is false when a part was
 * left out or read otherwise than it means (a deeper group, an unknown operator, a second cohort or
 * group, rows beside a group, parts joined by OR at the top).
 */
function readFilters(filters: unknown): { state: FilterState; whole: boolean } {
  const state = emptyFilters();
  let whole = true;
  let groups = 0;
  let looseRows = 0;
  const take = (leaves: unknown[]) => {
    let taken = 0;
    for (const leaf of leaves) {
      if (!isObject(leaf)) {
        whole = false;
        continue;
      }
      if (leaf.type === 'cohort' && leaf.value !== undefined) {
        if (state.cohortId === '') state.cohortId = String(leaf.value);
        else whole = false;
        continue;
      }
      const row = leaf.type === 'cohort' ? null : rowOf(leaf);
      if (row) {
        state.rows.push(row);
        taken++;
      }
      if (!row || Array.isArray(leaf.values) || (leaf.operator !== undefined && !knownOperator(leaf.operator))) {
        whole = false;
      }
    }
    return taken;
  };
  if (Array.isArray(filters)) take(filters);
  else if (isObject(filters) && Array.isArray(filters.values)) {
    if (filters.type === 'OR' && filters.values.length > 1) whole = false;
    for (const part of filters.values) {
      if (isObject(part) && (part.type === 'AND' || part.type === 'OR') && Array.isArray(part.values)) {
        groups++;
        state.match = part.type;
        take(part.values);
      } else looseRows += take([part]);
    }
    if (groups > 1 || (groups > 0 && looseRows > 0)) whole = false;
  } else whole = false;
  return { state, whole };
}

/**
 * The builder's state of filters as `filterGroup` or `filterList` wrote them (read back from a
 * route or a saved insight); a part it cannot show (a deeper group, an unknown operator) is left out.
 */
export function filterStateOf(filters: unknown): FilterState {
  return readFilters(filters).state;
}

/** The builder's state of a filter group only when it shows every part of it (editing then loses nothing); else null. */
export function wholeFilterStateOf(filters: unknown): FilterState | null {
  const { state, whole } = readFilters(filters);
  return whole ? state : null;
}
