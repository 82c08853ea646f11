// Insights: trends, funnels, retention, lifecycle, stickiness and paths from herd's insight
// endpoints, drawn as charts; a point (clicked on the chart or chosen in the table) lists the
// persons behind it through its persons link.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import type { Person } from '../api/types.ts';
import { ErrorMessage, fieldError, formError, Loading } from '../components/feedback.tsx';
import { useAction } from '../components/use-load.ts';
import type { ProjectContext } from '../workspace.ts';
import { PersonsTable } from '../screens/persons.tsx';
import { InsightChart } from './insight-chart.tsx';
import {
  chartModel,
  INSIGHT_KINDS,
  insightRequest,
  personsOf,
  personsPath,
  type ChartModel,
  type InsightForm,
} from './insight-query.ts';

const MATHS: Array<[math: string, label: string]> = [
  ['total', 'Total events'],
  ['dau', 'Unique persons'],
  ['weekly_active', 'Weekly active persons'],
  ['monthly_active', 'Monthly active persons'],
];
const INTERVALS = ['hour', 'day', 'week', 'month'];

interface Point {
  title: string;
  path: string;
}

function PointPersons({ point, projectId }: { point: Point; projectId: number }) {
  const [persons, setPersons] = useState<Person[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const action = useAction();
  const load = (path: string, append: boolean) =>
    action.run(async () => {
      const page = personsOf(await api<unknown>(path));
      setPersons((previous) => (append && previous ? [...previous, ...page.persons] : page.persons));
      setNext(page.next ? personsPath(page.next, projectId, location.origin) : null);
    });
  useEffect(() => {
    setPersons(null);
    void load(point.path, false);
    // A new point: its first page.
  }, [point.path]);
  return (
    <section aria-labelledby="point-persons-heading" class="panel">
      <h2 id="point-persons-heading">Persons behind {point.title}</h2>
      <ErrorMessage error={action.error} />
      {persons ? (
        persons.length === 0 ? (
          <p class="muted">No persons.</p>
        ) : (
          <PersonsTable persons={persons} projectId={projectId} caption={`Persons behind ${point.title}`} />
        )
      ) : action.busy ? (
        <Loading what="persons" />
      ) : null}
      {next ? (
        <button type="button" disabled={action.busy} onClick={() => load(next, true)}>
          More persons
        </button>
      ) : null}
    </section>
  );
}

function PointsTable({ model, onPoint }: { model: ChartModel; onPoint: (series: number, index: number) => void }) {
  return (
    <table class="points">
      <caption>Every point; choose one to list its persons</caption>
      <thead>
        <tr>
          <th scope="col">Point</th>
          {model.series.map((series, index) => (
            <th key={index} scope="col">
              {series.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {model.labels.map((label, index) => (
          <tr key={index}>
            <th scope="row">{label}</th>
            {model.series.map((series, seriesIndex) => (
              <td key={seriesIndex}>
                {series.urls[index] ? (
                  <button
                    type="button"
                    aria-label={`Persons of ${series.label}, ${label}: ${series.values[index] ?? 0}`}
                    onClick={() => onPoint(seriesIndex, index)}
                  >
                    {String(series.values[index] ?? 0)}
                  </button>
                ) : (
                  String(series.values[index] ?? 0)
                )}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function InsightsScreen({ context }: { context: ProjectContext }) {
  const projectId = context.project.id;
  const [form, setForm] = useState<InsightForm>({
    kind: 'trends',
    events: '$pageview',
    math: 'total',
    interval: 'day',
    dateFrom: '-7d',
    dateTo: '',
  });
  const [shown, setShown] = useState<{ form: InsightForm; model: ChartModel } | null>(null);
  const [point, setPoint] = useState<Point | null>(null);
  const [pointError, setPointError] = useState<ApiError | null>(null);
  const action = useAction();
  const set = (change: Partial<InsightForm>) => setForm({ ...form, ...change });

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const request = insightRequest(projectId, form);
      const answer = await api<{ result?: unknown }>(request.path, { query: request.query });
      setShown({ form, model: chartModel(form, projectId, answer) });
      setPoint(null);
    });
  };
  const choose = (series: number, index: number) => {
    if (!shown) return;
    const line = shown.model.series[series];
    const url = line?.urls[index];
    const title = `${line?.label ?? ''}, ${shown.model.labels[index] ?? ''}`;
    const path = url ? personsPath(url, projectId, location.origin) : null;
    setPointError(path ? null : new ApiError(0, { detail: `No persons link for ${title}.` }));
    setPoint(path ? { title, path } : null);
  };
  const kindLabel = INSIGHT_KINDS.find(([kind]) => kind === form.kind)?.[1] ?? '';

  return (
    <>
      <h1 tabIndex={-1}>Insights</h1>
      <form class="panel insight-form" onSubmit={submit} aria-label="Insight">
        <div class="field">
          <label for="insight-kind">Insight</label>
          <select
            id="insight-kind"
            value={form.kind}
            onChange={(event) => set({ kind: event.currentTarget.value as InsightForm['kind'] })}
          >
            {INSIGHT_KINDS.map(([kind, label]) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
        </div>
        {form.kind === 'paths' ? null : (
          <div class="field">
            <label for="insight-events">
              {form.kind === 'funnel'
                ? 'Funnel steps (event names, in order, comma-separated)'
                : 'Events (comma-separated)'}
            </label>
            <input
              id="insight-events"
              value={form.events}
              onInput={(event) => set({ events: event.currentTarget.value })}
            />
            <ErrorMessage error={fieldError(action.error, 'events', 'target_entity', 'returning_entity')} />
          </div>
        )}
        {form.kind === 'trends' ? (
          <div class="field">
            <label for="insight-math">Measure</label>
            <select id="insight-math" value={form.math} onChange={(event) => set({ math: event.currentTarget.value })}>
              {MATHS.map(([math, label]) => (
                <option key={math} value={math}>
                  {label}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        {form.kind === 'paths' ? null : (
          <div class="field">
            <label for="insight-interval">{form.kind === 'retention' ? 'Period' : 'Interval'}</label>
            <select
              id="insight-interval"
              value={form.interval}
              onChange={(event) => set({ interval: event.currentTarget.value })}
            >
              {INTERVALS.map((interval) => (
                <option key={interval} value={interval}>
                  {interval}
                </option>
              ))}
            </select>
          </div>
        )}
        {form.kind === 'retention' ? null : (
          <div class="field">
            <label for="insight-from">From (a date or -7d)</label>
            <input
              id="insight-from"
              value={form.dateFrom}
              onInput={(event) => set({ dateFrom: event.currentTarget.value })}
            />
            <ErrorMessage error={fieldError(action.error, 'date_from')} />
          </div>
        )}
        <div class="field">
          <label for="insight-to">To (empty for now)</label>
          <input id="insight-to" value={form.dateTo} onInput={(event) => set({ dateTo: event.currentTarget.value })} />
          <ErrorMessage error={fieldError(action.error, 'date_to')} />
        </div>
        <ErrorMessage
          error={formError(action.error, 'events', 'target_entity', 'returning_entity', 'date_from', 'date_to')}
        />
        <button type="submit" disabled={action.busy}>
          Show {kindLabel.toLowerCase()}
        </button>
      </form>
      {action.busy ? <Loading what="the insight" /> : null}
      {shown ? (
        shown.model.labels.length === 0 ? (
          <p class="muted">No data in this range.</p>
        ) : (
          <>
            <InsightChart
              model={shown.model}
              title={INSIGHT_KINDS.find(([kind]) => kind === shown.form.kind)?.[1] ?? ''}
              onPoint={choose}
            />
            <ErrorMessage error={pointError} />
            {point ? <PointPersons point={point} projectId={projectId} /> : null}
            <PointsTable model={shown.model} onPoint={choose} />
          </>
        )
      ) : null}
    </>
  );
}
