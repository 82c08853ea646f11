// Cohorts: the list with counts (each opens its page), a static cohort from pasted distinct ids, a
// dynamic one from a property filter, and deleting one (after a confirmation).
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import type { Cohort, Page } from '../api/types.ts';
import { ErrorMessage, formError, Loading, Notice } from '../components/feedback.tsx';
import { FieldError, fieldInputProps } from '../components/field-error.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { plural, Time } from '../components/values.tsx';
import { FilterBuilder } from '../filters/filter-builder.tsx';
import { emptyFilters, filterGroup } from '../filters/filter-model.ts';
import type { ProjectContext } from '../workspace.ts';
import { projectHref } from '../router.ts';
import { DeleteCohort } from './cohort-delete.tsx';

function CreateCohort({ base, onCreated }: { base: string; onCreated: (cohort: Cohort) => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'static' | 'dynamic'>('static');
  const [ids, setIds] = useState('');
  const [filters, setFilters] = useState(emptyFilters);
  const action = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      let body: Record<string, unknown>;
      if (kind === 'static') {
        const distinctIds = ids
          .split(/\r?\n/)
          .map((line) => line.trim())
          .filter((line) => line !== '');
        body = { name, is_static: true, distinct_ids: distinctIds };
      } else {
        const group = filterGroup(filters);
        if (!group) throw new ApiError(400, { detail: 'A dynamic cohort needs at least one filter.', attr: 'filters' });
        body = { name, is_static: false, filters: { properties: group } };
      }
      const cohort = await api<Cohort>(base, { method: 'POST', body });
      setName('');
      setIds('');
      setFilters(emptyFilters());
      onCreated(cohort);
    });
  };
  return (
    <form class="panel" onSubmit={create} aria-labelledby="new-cohort-heading">
      <h2 id="new-cohort-heading">New cohort</h2>
      <div class="field">
        <label for="cohort-name">Cohort name</label>
        <input
          id="cohort-name"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
          {...fieldInputProps(action.error, 'cohort-name', 'name')}
        />
        <FieldError error={action.error} id="cohort-name" attrs={['name']} />
      </div>
      <fieldset>
        <legend>Kind</legend>
        <label class="check">
          <input type="radio" name="cohort-kind" checked={kind === 'static'} onChange={() => setKind('static')} />{' '}
          Static: these distinct ids
        </label>
        <label class="check">
          <input type="radio" name="cohort-kind" checked={kind === 'dynamic'} onChange={() => setKind('dynamic')} />{' '}
          Dynamic: persons matching filters
        </label>
      </fieldset>
      {kind === 'static' ? (
        <div class="field">
          <label for="cohort-ids">Distinct IDs, one per line</label>
          <textarea
            id="cohort-ids"
            rows={5}
            value={ids}
            onInput={(event) => setIds(event.currentTarget.value)}
            {...fieldInputProps(action.error, 'cohort-ids', 'distinct_ids')}
          />
          <FieldError error={action.error} id="cohort-ids" attrs={['distinct_ids']} />
        </div>
      ) : (
        <>
          <FilterBuilder idPrefix="cohort-filter" state={filters} onChange={setFilters} />
          <FieldError error={action.error} id="cohort-filters" attrs={['filters', 'properties']} />
        </>
      )}
      <ErrorMessage
        error={formError(action.error, 'name', 'distinct_ids', 'filters', 'properties')}
        fields={{ description: 'Description', is_static: 'Kind' }}
      />
      <button type="submit" disabled={action.busy}>
        Create cohort
      </button>
    </form>
  );
}

function CohortRow({
  cohort,
  base,
  projectId,
  onDeleted,
}: {
  cohort: Cohort;
  base: string;
  projectId: number;
  onDeleted: () => void;
}) {
  return (
    <tr>
      <th scope="row">
        <a href={projectHref(projectId, 'cohorts', cohort.id)}>{cohort.name}</a>
      </th>
      <td>{cohort.is_static ? 'Static' : 'Dynamic'}</td>
      <td>{plural(cohort.count, 'person')}</td>
      <td>
        <Time iso={cohort.created_at} />
      </td>
      <td>
        <DeleteCohort cohort={cohort} base={base} onDeleted={onDeleted} buttonClass="secondary" text="Delete" />
      </td>
    </tr>
  );
}

export function CohortsScreen({ context }: { context: ProjectContext }) {
  const base = `/api/projects/${context.project.id}/cohorts/`;
  const [offset, setOffset] = useState(0);
  const [created, setCreated] = useState<Cohort | null>(null);
  const cohorts = useLoad(() => api<Page<Cohort>>(base, { query: { limit: PAGE_SIZE, offset } }), [base, offset]);
  return (
    <>
      <h1 tabIndex={-1}>Cohorts</h1>
      <ErrorMessage error={cohorts.error} />
      {created ? (
        <Notice>
          Cohort {created.name} created with {plural(created.count, 'person')}.
        </Notice>
      ) : null}
      {cohorts.data ? (
        cohorts.data.count === 0 ? (
          <p class="muted">No cohorts yet.</p>
        ) : (
          <>
            <table>
              <caption>{plural(cohorts.data.count, 'cohort')}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Persons</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {cohorts.data.results.map((cohort) => (
                  <CohortRow
                    key={cohort.id}
                    cohort={cohort}
                    base={base}
                    projectId={context.project.id}
                    onDeleted={cohorts.reload}
                  />
                ))}
              </tbody>
            </table>
            <Pager label="Cohorts" count={cohorts.data.count} offset={offset} onOffset={setOffset} />
          </>
        )
      ) : cohorts.loading ? (
        <Loading what="cohorts" />
      ) : null}
      <CreateCohort
        base={base}
        onCreated={(cohort) => {
          setCreated(cohort);
          cohorts.reload();
        }}
      />
    </>
  );
}
