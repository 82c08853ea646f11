// The retention cohort table: a row per cohort date, a column per period, each cell its cohort's
// share as a percentage shaded by value (the count beside it on demand, and in its name); a cell
// lists the persons who came back then. Periods still to come are empty cells.
import { useState } from 'preact/hooks';
import { percent } from './funnel-model.ts';
import type { PointHandler } from './points.ts';
import { retentionTable } from './retention-model.ts';

interface Props {
  result: unknown;
  /** The start and return events as the request named them, when known. */
  startEvent: string | null;
  returnEvent: string | null;
  period?: string;
  onPoint: PointHandler;
}

export function RetentionTable({ result, startEvent, returnEvent, period, onPoint }: Props) {
  const [counts, setCounts] = useState(false);
  const table = retentionTable(result, period);
  if (table.cohorts.length === 0) return <p class="muted">No cohorts.</p>;
  const unit = table.period.toLowerCase();
  const start = startEvent ?? 'the start event';
  const returning = returnEvent ?? start;
  return (
    <figure class="chart retention">
      <figcaption>
        <p>
          Each row is the persons who did <strong class="event-name">{start}</strong> in that {unit}; each cell is the
          share of them who did <strong class="event-name">{returning}</strong> that many {unit}s later.
        </p>
        <label class="check">
          <input type="checkbox" checked={counts} onChange={(event) => setCounts(event.currentTarget.checked)} /> Show
          counts
        </label>
      </figcaption>
      <div class="table-scroll">
        <table class="retention-table">
          <caption>Retention by cohort</caption>
          <thead>
            <tr>
              <th scope="col">Cohort</th>
              <th scope="col">Persons</th>
              {Array.from({ length: table.periods }, (_, index) => (
                <th key={index} scope="col">
                  {table.period} {index}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.cohorts.map((cohort) => (
              <tr key={cohort.label}>
                <th scope="row">{cohort.label}</th>
                <td class="retention-size">{cohort.size}</td>
                {Array.from({ length: table.periods }, (_, index) => {
                  const cell = cohort.cells[index];
                  if (!cell) return <td key={index} class="retention-future" />;
                  if (cohort.size === 0)
                    return (
                      <td key={index} class="retention-cell shade-0">
                        –
                      </td>
                    );
                  const shown = percent(cell.fraction);
                  const name = `${cohort.label} cohort, ${table.period} ${index}`;
                  const url = cohort.url;
                  return (
                    <td key={index} class={`retention-cell shade-${cell.shade}`}>
                      {url ? (
                        <button
                          type="button"
                          title={`${cell.count} of ${cohort.size} persons`}
                          aria-label={`Persons of ${name}: ${shown}, ${cell.count} of ${cohort.size}`}
                          onClick={() => onPoint({ title: name, url, persons: cell.count, appearance: index })}
                        >
                          {shown}
                          {counts ? <span class="retention-count"> {cell.count}</span> : null}
                        </button>
                      ) : (
                        shown
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
