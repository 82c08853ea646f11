// Insights: trends, funnels, retention, lifecycle, stickiness and paths from herd's insight
// endpoints; how each answer reads (and the persons behind a point) is charts/insight-result.tsx.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Query } from '../api/types.ts';
import { EventPicker, eventSeen } from '../components/definition-pickers.tsx';
import { ErrorMessage, fieldError, formError, Loading } from '../components/feedback.tsx';
import { useAction } from '../components/use-load.ts';
import type { ProjectContext } from '../workspace.ts';
import { FilterBuilder } from '../filters/filter-builder.tsx';
import { replaceRouteQuery, routeQuery } from '../router.ts';
import { InsightResult } from './charts/insight-result.tsx';
import { Breakdown, DateRange, eventLabel, SeriesEditor } from './insight-controls.tsx';
import {
  defaultInsight,
  eventNames,
  filtersQuery,
  INSIGHT_KINDS,
  insightFilters,
  insightRequest,
  insightStateOf,
  KIND_CONTROLS,
  newSeries,
  queryFilters,
  type InsightState,
} from './insight-query.ts';
import { SavedInsights } from './saved-insights.tsx';

const INTERVALS = ['hour', 'day', 'week', 'month'];
// A change is drawn once the controls are still this long (typing an event name is one request).
const SETTLE_MS = 400;

/** The insight the route names (`?insight=TRENDS&events=…`), or the default one. */
function routeInsight(): InsightState {
  const query = routeQuery();
  return query.has('insight') ? insightStateOf(queryFilters(query)) : defaultInsight();
}

const sameQuery = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** The events an insight counts, each once: what "never seen" is said of. */
function namesOf(state: InsightState): string[] {
  if (state.kind === 'paths') return [];
  const names = state.kind === 'retention' ? [state.series[0]?.event ?? '', state.returning] : eventNames(state);
  return [...new Set(names.map((name) => name.trim()).filter((name) => name !== ''))];
}

export function InsightsScreen({ context }: { context: ProjectContext }) {
  const projectId = context.project.id;
  const [state, setState] = useState<InsightState>(routeInsight);
  const [shown, setShown] = useState<{ state: InsightState; answer: unknown; query: Query } | null>(null);
  const [unseen, setUnseen] = useState<string[]>([]);
  const action = useAction();
  const ticket = useRef(0);
  const set = (change: Partial<InsightState>) => setState((previous) => ({ ...previous, ...change }));
  const controls = KIND_CONTROLS[state.kind];

  const show = (insight: InsightState) => {
    const mine = ++ticket.current;
    void action.run(async () => {
      const names = namesOf(insight);
      const seen = await Promise.all(names.map((name) => eventSeen(projectId, name)));
      const never = names.filter((_, index) => seen[index] === false);
      if (mine !== ticket.current) return;
      setUnseen(never);
      // Every event unknown: saying so beats a chart of zeros.
      if (names.length > 0 && never.length === names.length) {
        setShown(null);
        return;
      }
      const request = insightRequest(projectId, insight);
      const answer = await api<{ result?: unknown }>(request.path, { query: request.query });
      if (mine !== ticket.current) return;
      setShown({ state: insight, answer, query: request.query });
    });
  };

  // Every change goes to the route at once (reload and share keep it) and is drawn once it settles.
  useEffect(() => {
    replaceRouteQuery(filtersQuery(insightFilters(state)));
    const timer = setTimeout(() => show(state), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [state, projectId]);

  // A route opened while the screen is up (a pasted link, a saved insight): its insight.
  useEffect(() => {
    const opened = () => {
      const query = filtersQuery(queryFilters(routeQuery()));
      if (query.insight && !sameQuery(query, filtersQuery(insightFilters(state)))) setState(routeInsight());
    };
    addEventListener('hashchange', opened);
    return () => removeEventListener('hashchange', opened);
  }, [state]);

  const submit = (event: Event) => {
    event.preventDefault();
    show(state);
  };
  const kindLabel = INSIGHT_KINDS.find(([kind]) => kind === state.kind)?.[1] ?? '';
  const fields = ['events', 'target_entity', 'returning_entity', 'date_from', 'date_to', 'breakdown', 'properties'];

  return (
    <>
      <h1 tabIndex={-1}>Insights</h1>
      <form class="panel insight-form" onSubmit={submit} aria-label="Insight">
        <div class="insight-row">
          <div class="field">
            <label for="insight-kind">Insight</label>
            <select
              id="insight-kind"
              value={state.kind}
              onChange={(event) => set({ kind: event.currentTarget.value as InsightState['kind'] })}
            >
              {INSIGHT_KINDS.map(([kind, label]) => (
                <option key={kind} value={kind}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          {controls.interval ? (
            <div class="field">
              <label for="insight-interval">{state.kind === 'retention' ? 'Period' : 'Interval'}</label>
              <select
                id="insight-interval"
                value={state.interval}
                onChange={(event) => set({ interval: event.currentTarget.value })}
              >
                {INTERVALS.map((interval) => (
                  <option key={interval} value={interval}>
                    {interval}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          {controls.dateFrom ? (
            <DateRange state={state} set={set} />
          ) : (
            <div class="field">
              <label for="insight-to">Last cohort on</label>
              <input
                id="insight-to"
                type="date"
                value={state.dateTo.slice(0, 10)}
                onInput={(event) => set({ dateTo: event.currentTarget.value })}
              />
            </div>
          )}
        </div>
        <ErrorMessage error={fieldError(action.error, 'date_from', 'date_to', 'interval', 'period')} />
        {controls.series ? (
          <SeriesEditor projectId={projectId} state={state} set={set} />
        ) : state.kind === 'retention' ? (
          <div class="insight-row">
            <EventPicker
              projectId={projectId}
              id="insight-event-0"
              label={eventLabel(0)}
              value={state.series[0]?.event ?? ''}
              onChange={(event) => set({ series: [{ ...(state.series[0] ?? newSeries()), event }] })}
            />
            <EventPicker
              projectId={projectId}
              id="insight-returning"
              label="Returning event"
              value={state.returning}
              onChange={(returning) => set({ returning })}
            />
          </div>
        ) : null}
        <ErrorMessage error={fieldError(action.error, 'events', 'target_entity', 'returning_entity')} />
        {controls.breakdown ? <Breakdown projectId={projectId} state={state} set={set} /> : null}
        <ErrorMessage error={fieldError(action.error, 'breakdown')} />
        <FilterBuilder
          idPrefix="insight-filter"
          projectId={projectId}
          kinds={['event', 'person']}
          eventNames={namesOf(state)}
          legend="Filters of every event counted"
          state={state.filters}
          onChange={(filters) => set({ filters })}
        />
        <ErrorMessage error={fieldError(action.error, 'properties')} />
        <ErrorMessage error={formError(action.error, ...fields, 'interval', 'period')} />
        <button type="submit" disabled={action.busy}>
          Show {kindLabel.toLowerCase()}
        </button>
      </form>
      {unseen.length > 0 ? (
        <p class="notice unseen-events" role="status">
          Never seen in this project: {unseen.join(', ')}. Check the name, or capture such an event first.
        </p>
      ) : null}
      {action.busy ? <Loading what="the insight" /> : null}
      {/* The result: how its kind reads, its points, and the persons of the point chosen. */}
      {shown ? (
        <InsightResult kind={shown.state.kind} answer={shown.answer} projectId={projectId} query={shown.query} />
      ) : null}
      <SavedInsights
        projectId={projectId}
        current={() => insightFilters(state)}
        onOpen={(insight) => setState(insightStateOf(insight.filters))}
      />
    </>
  );
}
