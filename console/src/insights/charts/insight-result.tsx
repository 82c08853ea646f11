// How an insight's answer reads, whatever its kind: the funnel's steps, the retention cohort
// table, the paths flow, or a chart of trends, stickiness and lifecycle; and, for the point chosen
// in any of them, the persons behind it.
import { useEffect, useState } from 'preact/hooks';
import type { Query } from '../../api/types.ts';
import type { InsightKind } from '../insight-query.ts';
import { FunnelChart } from './funnel-chart.tsx';
import { PathsFlow } from './paths-flow.tsx';
import { PointPersons } from './point-persons.tsx';
import type { InsightPoint, PointHandler } from './points.ts';
import { RetentionTable } from './retention-table.tsx';
import { TrendResult } from './trend-result.tsx';

interface Props {
  kind: InsightKind;
  /** The insight endpoint's answer, `{result: …}`. */
  answer: unknown;
  projectId: number;
  /** The parameters the answer was asked with (retention names its events from them). */
  query?: Query;
  /** Told of each point chosen, after its persons are asked for. */
  onPoint?: PointHandler;
}

const TITLES: Record<InsightKind, string> = {
  trends: 'Trends',
  funnel: 'Funnel',
  retention: 'Retention',
  lifecycle: 'Lifecycle',
  stickiness: 'Stickiness',
  paths: 'Paths',
};

/** The event an entity parameter (`{"id": "$pageview", "type": "events"}`) names, if any. */
function entityName(value: Query[string]): string | null {
  if (typeof value !== 'string' || value === '') return null;
  try {
    const entity = JSON.parse(value) as { id?: unknown; name?: unknown };
    const name = entity.name ?? entity.id;
    return typeof name === 'string' && name !== '' ? name : null;
  } catch {
    return null;
  }
}

interface FunnelTrendWire {
  data?: number[];
  labels?: string[];
  days?: string[];
  converted_people_urls?: string[];
}

/** A funnel asked with `funnel_viz_type=trends` answers a conversion rate per period: a trend. */
function funnelTrend(result: unknown): unknown[] | null {
  if (!Array.isArray(result) || result.length === 0 || Array.isArray(result[0])) return null;
  const first = result[0] as FunnelTrendWire;
  if (!Array.isArray(first.data)) return null;
  return [
    {
      label: 'Conversion rate (%)',
      data: first.data,
      labels: first.labels,
      days: first.days,
      persons_urls: (first.converted_people_urls ?? []).map((url) => ({ url })),
    },
  ];
}

export function InsightResult({ kind, answer, projectId, query = {}, onPoint }: Props) {
  const [point, setPoint] = useState<InsightPoint | null>(null);
  // A new answer: its points are new too.
  useEffect(() => setPoint(null), [answer]);
  const result = (answer as { result?: unknown } | null)?.result;
  const choose = (chosen: InsightPoint) => {
    setPoint(chosen);
    onPoint?.(chosen);
  };
  const persons = point ? <PointPersons point={point} projectId={projectId} /> : null;
  const trend = kind === 'funnel' ? funnelTrend(result) : null;
  switch (kind) {
    case 'funnel':
      if (trend)
        return (
          <TrendResult kind="trends" result={trend} title={TITLES.funnel} onPoint={choose}>
            {persons}
          </TrendResult>
        );
      return (
        <>
          <FunnelChart result={result} onPoint={choose} />
          {persons}
        </>
      );
    case 'retention':
      return (
        <>
          <RetentionTable
            result={result}
            startEvent={entityName(query.target_entity)}
            returnEvent={entityName(query.returning_entity)}
            period={typeof query.period === 'string' ? query.period : undefined}
            onPoint={choose}
          />
          {persons}
        </>
      );
    case 'paths':
      return (
        <PathsFlow result={result} onPoint={choose}>
          {persons}
        </PathsFlow>
      );
    default:
      return (
        <TrendResult kind={kind} result={result} title={TITLES[kind]} onPoint={choose}>
          {persons}
        </TrendResult>
      );
  }
}
