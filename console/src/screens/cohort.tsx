// One cohort: what it is (its definition in words), who is in it (paged, each a link to the
// person), editing its name, description and — for a dynamic one — its filters, and deleting it.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import type { Cohort, Page, Person } from '../api/types.ts';
import { BackTo, DetailMessage, ErrorMessage, formError, Loading, Notice } from '../components/feedback.tsx';
import { FieldError, fieldInputProps } from '../components/field-error.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { plural, Time } from '../components/values.tsx';
import { FilterBuilder } from '../filters/filter-builder.tsx';
import { filterGroup, OPERATORS, VALUELESS, wholeFilterStateOf, type FilterState } from '../filters/filter-model.ts';
import { navigate } from '../router.ts';
import type { ProjectContext } from '../workspace.ts';
import { DeleteCohort } from './cohort-delete.tsx';
import { PersonsTable } from './persons.tsx';

interface Leaf {
  key?: unknown;
  operator?: unknown;
  value?: unknown;
  type?: unknown;
  values?: unknown;
}

const operatorWords = (operator: unknown) =>
  OPERATORS.find(([name]) => name === operator)?.[1] ?? (typeof operator === 'string' ? operator : 'equals');

function valueWords(value: unknown): string {
  if (Array.isArray(value)) return value.map(valueWords).join(' or ');
  return typeof value === 'string' ? `“${value}”` : JSON.stringify(value);
}

/** A property filter group as a sentence: `plan equals “pro” and age greater than 40`. */
export function definitionWords(node: unknown, cohortNames: Map<number, string>): string {
  if (!node || typeof node !== 'object') return '';
  const item = node as Leaf;
  if (Array.isArray(item.values)) {
    const parts = item.values.map((child) => definitionWords(child, cohortNames)).filter((part) => part !== '');
    const joined = parts.join(item.type === 'OR' ? ' or ' : ' and ');
    return parts.length > 1 ? `(${joined})` : joined;
  }
  if (item.type === 'cohort') {
    const id = Number(item.value);
    return `in the cohort ${cohortNames.get(id) ?? `#${id}`}`;
  }
  const key = typeof item.key === 'string' ? item.key : String(item.key);
  const words = operatorWords(item.operator ?? 'exact');
  return VALUELESS.has(String(item.operator)) ? `${key} ${words}` : `${key} ${words} ${valueWords(item.value)}`;
}

const EDIT_FIELDS = { name: 'Name', description: 'Description', filters: 'Filters', properties: 'Filters' };

function EditCohort({
  cohort,
  base,
  cohorts,
  onSaved,
}: {
  cohort: Cohort;
  base: string;
  cohorts: Cohort[];
  onSaved: (cohort: Cohort) => void;
}) {
  const [name, setName] = useState(cohort.name);
  const [description, setDescription] = useState(cohort.description);
  const initial = cohort.is_static ? null : wholeFilterStateOf(cohort.filters?.properties);
  const [filters, setFilters] = useState<FilterState | null>(initial);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const save = (event: Event) => {
    event.preventDefault();
    setSaved(false);
    void action.run(async () => {
      const body: Record<string, unknown> = { name, description };
      if (filters) {
        const group = filterGroup(filters);
        if (!group) throw new ApiError(400, { detail: 'A dynamic cohort needs at least one filter.', attr: 'filters' });
        body.filters = { properties: group };
      }
      onSaved(await api<Cohort>(`${base}${cohort.id}/`, { method: 'PATCH', body }));
      setSaved(true);
    });
  };
  return (
    <form class="panel" onSubmit={save} aria-labelledby="edit-cohort-heading">
      <h2 id="edit-cohort-heading">Edit</h2>
      <div class="field">
        <label for="edit-cohort-name">Name</label>
        <input
          id="edit-cohort-name"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
          {...fieldInputProps(action.error, 'edit-cohort-name', 'name')}
        />
        <FieldError error={action.error} id="edit-cohort-name" attrs={['name']} />
      </div>
      <div class="field">
        <label for="edit-cohort-description">Description</label>
        <textarea
          id="edit-cohort-description"
          rows={2}
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
          {...fieldInputProps(action.error, 'edit-cohort-description', 'description')}
        />
        <FieldError error={action.error} id="edit-cohort-description" attrs={['description']} />
      </div>
      {filters ? (
        <>
          <FilterBuilder
            idPrefix="edit-cohort-filter"
            state={filters}
            onChange={setFilters}
            cohorts={cohorts.filter((other) => other.id !== cohort.id)}
          />
          <FieldError error={action.error} id="edit-cohort-filters" attrs={['filters', 'properties']} />
        </>
      ) : cohort.is_static ? (
        <p class="muted">A static cohort’s list is set when it is created (or through the API’s distinct_ids).</p>
      ) : (
        <p class="muted">These filters were written through the API in a shape the console does not edit.</p>
      )}
      <ErrorMessage
        error={formError(action.error, 'name', 'description', 'filters', 'properties')}
        fields={EDIT_FIELDS}
      />
      {saved ? <Notice>Cohort saved.</Notice> : null}
      <button type="submit" disabled={action.busy}>
        Save cohort
      </button>
    </form>
  );
}

function CohortMembers({ projectId, cohort }: { projectId: number; cohort: Cohort }) {
  const [offset, setOffset] = useState(0);
  const properties = JSON.stringify([{ key: 'id', value: cohort.id, type: 'cohort' }]);
  const members = useLoad(
    () =>
      api<Page<Person>>(`/api/projects/${projectId}/persons/`, {
        query: { properties, limit: PAGE_SIZE, offset },
      }),
    [projectId, properties, offset],
  );
  return (
    <section aria-labelledby="cohort-members-heading">
      <h2 id="cohort-members-heading">Members</h2>
      <ErrorMessage error={members.error} />
      {members.data ? (
        members.data.count === 0 ? (
          <p class="muted">Nobody is in this cohort now.</p>
        ) : (
          <>
            <PersonsTable
              persons={members.data.results}
              projectId={projectId}
              caption={`${plural(members.data.count, 'person')} in this cohort`}
            />
            <Pager label="Cohort members" count={members.data.count} offset={offset} onOffset={setOffset} />
          </>
        )
      ) : members.loading ? (
        <Loading what="the members" />
      ) : null}
    </section>
  );
}

export function CohortScreen({ context, cohortId }: { context: ProjectContext; cohortId: string }) {
  const projectId = context.project.id;
  const base = `/api/projects/${projectId}/cohorts/`;
  const loaded = useLoad(() => api<Cohort>(`${base}${encodeURIComponent(cohortId)}/`), [base, cohortId]);
  const all = useLoad(() => api<Page<Cohort>>(base, { query: { limit: 1000 } }), [base]);
  const [saved, setSaved] = useState<Cohort | null>(null);
  const cohort = saved ?? loaded.data;
  if (loaded.error) {
    return (
      <DetailMessage title="Cohort" projectId={projectId} list="cohorts">
        <ErrorMessage error={loaded.error} />
      </DetailMessage>
    );
  }
  if (!cohort || !all.data) return <Loading what="the cohort" />;
  const names = new Map(all.data.results.map((item) => [item.id, item.name]));
  return (
    <>
      <BackTo projectId={projectId} list="cohorts" />
      <h1 tabIndex={-1}>Cohort: {cohort.name}</h1>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{cohort.is_static ? 'Static: a list of persons' : 'Dynamic: whoever matches its filters now'}</dd>
        <dt>Persons</dt>
        <dd>{plural(cohort.count, 'person')}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={cohort.created_at} />
          {cohort.created_by ? ` by ${cohort.created_by.email}` : ''}
        </dd>
        {cohort.description ? (
          <>
            <dt>Description</dt>
            <dd>{cohort.description}</dd>
          </>
        ) : null}
      </dl>
      <section aria-labelledby="definition-heading">
        <h2 id="definition-heading">Definition</h2>
        <p class="definition">
          {cohort.is_static
            ? `The ${plural(cohort.count, 'person')} listed when it was made (pasted distinct ids).`
            : `Persons whose properties match: ${definitionWords(cohort.filters?.properties, names) || 'no filter'}.`}
        </p>
      </section>
      <CohortMembers key={saved ? JSON.stringify(saved.filters) : ''} projectId={projectId} cohort={cohort} />
      <EditCohort cohort={cohort} base={base} cohorts={all.data.results} onSaved={setSaved} />
      <section aria-labelledby="delete-cohort-heading" class="danger">
        <h2 id="delete-cohort-heading">Delete this cohort</h2>
        <DeleteCohort cohort={cohort} base={base} onDeleted={() => navigate('p', projectId, 'cohorts')} />
      </section>
    </>
  );
}
