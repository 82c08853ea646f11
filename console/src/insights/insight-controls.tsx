// The insights screen's controls: the series (or funnel steps) with their events, measures and
// filters; the date range with its presets; the breakdown.
import { EventPicker, PropertyKeyPicker } from '../components/definition-pickers.tsx';
import { FilterBuilder } from '../filters/filter-builder.tsx';
import { newSeries, type InsightSeries, type InsightState } from './insight-query.ts';

const MATHS: Array<[math: string, label: string]> = [
  ['total', 'Total events'],
  ['dau', 'Unique persons'],
  ['weekly_active', 'Weekly active persons'],
  ['monthly_active', 'Monthly active persons'],
];

type Change = (change: Partial<InsightState>) => void;

/** The name of the n-th series' event field: the first is "Event", as the issue names it. */
export const eventLabel = (index: number) => (index === 0 ? 'Event' : `Event ${index + 1}`);

export function SeriesEditor({ projectId, state, set }: { projectId: number; state: InsightState; set: Change }) {
  const funnel = state.kind === 'funnel';
  const setSeries = (index: number, change: Partial<InsightSeries>) =>
    set({ series: state.series.map((item, at) => (at === index ? { ...item, ...change } : item)) });
  return (
    <fieldset class="series">
      <legend>{funnel ? 'Steps, in order' : 'Series'}</legend>
      <ol class="series-list">
        {state.series.map((series, index) => {
          const n = index + 1;
          return (
            <li key={index} class="series-item">
              <div class="series-head">
                <EventPicker
                  projectId={projectId}
                  id={`insight-event-${index}`}
                  label={eventLabel(index)}
                  value={series.event}
                  onChange={(event) => setSeries(index, { event })}
                />
                {state.kind === 'trends' ? (
                  <div class="field">
                    <label for={`insight-math-${index}`}>{index === 0 ? 'Measure' : `Measure ${n}`}</label>
                    <select
                      id={`insight-math-${index}`}
                      value={series.math}
                      onChange={(event) => setSeries(index, { math: event.currentTarget.value })}
                    >
                      {MATHS.map(([math, label]) => (
                        <option key={math} value={math}>
                          {label}
                        </option>
                      ))}
                    </select>
                  </div>
                ) : null}
                {state.series.length > 1 ? (
                  <button
                    type="button"
                    class="series-remove"
                    onClick={() => set({ series: state.series.filter((_, at) => at !== index) })}
                  >
                    Remove {eventLabel(index).toLowerCase()}
                  </button>
                ) : null}
                <FilterBuilder
                  idPrefix={`insight-series-${index}`}
                  projectId={projectId}
                  kinds={['event', 'person']}
                  eventNames={series.event.trim() ? [series.event.trim()] : undefined}
                  rowLabel={`${funnel ? 'Step' : 'Series'} ${n} filter`}
                  legend={`Only ${series.event.trim() || 'these'} events where`}
                  allRequired
                  compact
                  state={series.filters}
                  onChange={(filters) => setSeries(index, { filters })}
                />
              </div>
            </li>
          );
        })}
      </ol>
      <button type="button" onClick={() => set({ series: [...state.series, newSeries()] })}>
        {funnel ? 'Add step' : 'Add series'}
      </button>
    </fieldset>
  );
}

const PRESETS: Array<[dateFrom: string, label: string]> = [
  ['dStart', 'Today'],
  ['-7d', 'Last 7 days'],
  ['-30d', 'Last 30 days'],
  ['-90d', 'Last 90 days'],
  ['mStart', 'This month'],
  ['all', 'All time'],
];
const CUSTOM = 'custom';

const dayOf = (value: string) => (/^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : '');
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** A preset (from a relative start up to now) or custom dates, as the endpoints' date_from and date_to. */
export function DateRange({ state, set }: { state: InsightState; set: Change }) {
  const preset = state.dateTo === '' ? PRESETS.find(([from]) => from === state.dateFrom)?.[0] : undefined;
  const choice = preset ?? CUSTOM;
  return (
    <div class="date-range">
      <div class="field">
        <label for="insight-range">Date range</label>
        <select
          id="insight-range"
          value={choice}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (value === CUSTOM) set({ dateFrom: dayOf(state.dateFrom) || daysAgo(7), dateTo: daysAgo(0) });
            else set({ dateFrom: value, dateTo: '' });
          }}
        >
          {PRESETS.map(([from, label]) => (
            <option key={from} value={from}>
              {label}
            </option>
          ))}
          <option value={CUSTOM}>Custom dates</option>
        </select>
      </div>
      {choice === CUSTOM ? (
        <>
          <div class="field">
            <label for="insight-from">From</label>
            <input
              id="insight-from"
              type="date"
              value={dayOf(state.dateFrom)}
              onInput={(event) => set({ dateFrom: event.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="insight-to">To</label>
            <input
              id="insight-to"
              type="date"
              value={dayOf(state.dateTo)}
              onInput={(event) => set({ dateTo: event.currentTarget.value })}
            />
          </div>
        </>
      ) : null}
    </div>
  );
}

export function Breakdown({ projectId, state, set }: { projectId: number; state: InsightState; set: Change }) {
  return (
    <div class="breakdown">
      <div class="field">
        <label for="insight-breakdown-type">Breakdown by</label>
        <select
          id="insight-breakdown-type"
          value={state.breakdownType}
          onChange={(event) => set({ breakdownType: event.currentTarget.value as InsightState['breakdownType'] })}
        >
          <option value="event">Event property</option>
          <option value="person">Person property</option>
        </select>
      </div>
      <div class="field">
        <label for="insight-breakdown">Breakdown</label>
        <PropertyKeyPicker
          projectId={projectId}
          id="insight-breakdown"
          label="Breakdown"
          kind={state.breakdownType}
          value={state.breakdown}
          onChange={(breakdown) => set({ breakdown })}
        />
      </div>
    </div>
  );
}
