// The newest persons of the project: search, property and cohort filters (keys and values from the
// project's person properties), the exact count, pages, and a CSV of everything filtered. The search
// and filters listed are in the route (`#/p/1/persons?search=…&properties=…`), so a link shares them.
import { useEffect, useState } from 'preact/hooks';
import { api, downloadCsv, type Query } from '../api/client.ts';
import type { Cohort, Page, Person } from '../api/types.ts';
import { ErrorMessage, fieldError, formError, Loading } from '../components/feedback.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { Time } from '../components/values.tsx';
import { FilterBuilder } from '../filters/filter-builder.tsx';
import { emptyFilters, filterGroup, filterStateOf, type FilterState } from '../filters/filter-model.ts';
import type { ProjectContext } from '../workspace.ts';
import { projectHref, replaceRouteQuery, routeQuery } from '../router.ts';

interface ListState {
  search: string;
  filters: FilterState;
  offset: number;
}

// What a person last looked at, per project: coming back from a person keeps the list as it was.
const remembered = new Map<number, ListState>();

function queryOf(state: ListState): Query {
  const group = filterGroup(state.filters);
  return { search: state.search.trim(), properties: group ? JSON.stringify(group) : undefined };
}

const emptyList = (): ListState => ({ search: '', filters: emptyFilters(), offset: 0 });

/** The list the route names, or null when its query names none. */
function routeList(): ListState | null {
  const query = routeQuery();
  const search = query.get('search');
  const properties = query.get('properties');
  if (search === null && properties === null) return null;
  let filters = emptyFilters();
  try {
    filters = filterStateOf(properties === null ? null : JSON.parse(properties));
  } catch {
    // An unreadable filter in a link: the list without it.
  }
  return { search: search ?? '', filters, offset: 0 };
}

const routeOf = (state: ListState) => {
  const query = queryOf(state);
  return { search: query.search as string, properties: query.properties as string | undefined };
};

export function PersonsTable({
  persons,
  projectId,
  caption,
}: {
  persons: Person[];
  projectId: number;
  caption: string;
}) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Distinct IDs</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {persons.map((person) => (
          <tr key={person.id}>
            <td>
              <a href={projectHref(projectId, 'persons', person.id)}>{person.name}</a>
            </td>
            <td class="ids">
              {person.distinct_ids.slice(0, 3).join(', ')}
              {person.distinct_ids.length > 3 ? ` and ${person.distinct_ids.length - 3} more` : ''}
            </td>
            <td>
              <Time iso={person.created_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function PersonsScreen({ context }: { context: ProjectContext }) {
  const projectId = context.project.id;
  const base = `/api/projects/${projectId}/persons/`;
  const [applied, setApplied] = useState<ListState>(() => routeList() ?? remembered.get(projectId) ?? emptyList());
  const [draft, setDraft] = useState<ListState>(applied);
  const apply = (next: ListState) => {
    remembered.set(projectId, next);
    setApplied(next);
    // The route at once, not after the next render: a reload right after a click keeps what it chose.
    replaceRouteQuery(routeOf(next));
  };
  // The list remembered from an earlier visit, in the route when the screen opens (apply writes every later one).
  useEffect(() => replaceRouteQuery(routeOf(applied)), []);
  // A link pasted while the list is open: its search and filters.
  useEffect(() => {
    const opened = () => {
      // Leaving for a person is no new list (coming back keeps this one).
      if (!/^#\/p\/[^/]+\/persons\/?$/.test(location.hash.split('?')[0])) return;
      const next = routeList() ?? emptyList();
      if (JSON.stringify(routeOf(next)) === JSON.stringify(routeOf(applied))) return;
      setDraft(next);
      apply(next);
    };
    addEventListener('hashchange', opened);
    return () => removeEventListener('hashchange', opened);
  }, [applied]);
  const persons = useLoad(
    () => api<Page<Person>>(base, { query: { ...queryOf(applied), limit: PAGE_SIZE, offset: applied.offset } }),
    [projectId, applied],
  );
  const cohorts = useLoad(
    () => api<Page<Cohort>>(`/api/projects/${projectId}/cohorts/`, { query: { limit: 1000 } }),
    [projectId],
  );
  const csv = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    apply({ ...draft, offset: 0 });
  };
  const clear = () => {
    const empty = emptyList();
    setDraft(empty);
    apply(empty);
  };
  const listError = persons.error;
  const count = persons.data?.count;

  return (
    <>
      <h1 tabIndex={-1}>Persons</h1>
      <form class="panel" onSubmit={submit} aria-label="Find persons">
        <div class="field">
          <label for="persons-search">Search persons</label>
          <input
            id="persons-search"
            type="search"
            value={draft.search}
            placeholder="email, name, distinct id or uuid"
            onInput={(event) => setDraft({ ...draft, search: event.currentTarget.value })}
          />
        </div>
        <FilterBuilder
          idPrefix="persons-filter"
          projectId={projectId}
          state={draft.filters}
          onChange={(filters) => setDraft({ ...draft, filters })}
          cohorts={cohorts.data?.results}
        />
        <ErrorMessage error={fieldError(listError, 'properties', 'search')} />
        <div class="actions">
          <button type="submit">Search</button>
          <button type="button" onClick={clear}>
            Clear filters
          </button>
        </div>
      </form>
      <ErrorMessage error={formError(listError, 'properties', 'search')} />
      <div class="toolbar">
        <p role="status" class="count">
          {count === undefined
            ? persons.loading
              ? 'Counting persons…'
              : ''
            : `${count} ${count === 1 ? 'person' : 'persons'}`}
        </p>
        <button
          type="button"
          disabled={csv.busy}
          onClick={() => csv.run(() => downloadCsv(base, queryOf(applied), 'persons.csv'))}
        >
          Download CSV
        </button>
        <ErrorMessage error={csv.error} />
      </div>
      {persons.data ? (
        <>
          <PersonsTable persons={persons.data.results} projectId={projectId} caption="Newest persons first" />
          <Pager
            label="Persons"
            count={persons.data.count}
            offset={applied.offset}
            onOffset={(offset) => apply({ ...applied, offset })}
          />
        </>
      ) : persons.loading ? (
        <Loading what="persons" />
      ) : null}
    </>
  );
}
