// Trends, stickiness and lifecycle: the chart, and the table of every point beside it for the
// keyboard; a point chosen in either lists its persons (shown between the two).
import type { ComponentChildren } from 'preact';
import { InsightChart } from '../insight-chart.tsx';
import type { PointHandler } from './points.ts';
import { trendModel, type ChartModel, type TrendKind } from './trend-model.ts';

function PointsTable({ model, choose }: { model: ChartModel; choose: (series: number, index: number) => void }) {
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
                    onClick={() => choose(seriesIndex, index)}
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

interface Props {
  kind: TrendKind;
  result: unknown;
  title: string;
  onPoint: PointHandler;
  /** The chosen point's persons. */
  children?: ComponentChildren;
}

export function TrendResult({ kind, result, title, onPoint, children }: Props) {
  const model = trendModel(kind, result);
  if (model.labels.length === 0) return <p class="muted">No data in this range.</p>;
  const choose = (series: number, index: number) => {
    const line = model.series[series];
    const url = line?.urls[index];
    if (!line || !url) return;
    const value = line.values[index] ?? 0;
    onPoint({
      title: `${line.label}, ${model.labels[index] ?? ''}`,
      url,
      persons: line.countsPersons ? Math.abs(value) : null,
    });
  };
  return (
    <>
      {model.subject ? (
        <p class="chart-subject">
          Persons who did <strong class="event-name">{model.subject}</strong>, by their status in each period
        </p>
      ) : null}
      <InsightChart model={model} title={title} onPoint={choose} />
      {children}
      <PointsTable model={model} choose={choose} />
    </>
  );
}
