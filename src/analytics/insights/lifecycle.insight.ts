// Lifecycle (`shown_as=Lifecycle`): per interval of the range, how many persons were new,
// returning, resurrecting and dormant (counted negative), from the same per-person periods as the
// lifecycle persons view that each point links to.
import { LIFECYCLE_TYPES, parseLifecycleRequest } from '../lifecycle.ts';
import type { RawParams } from '../params.ts';
import type { ViewContext } from '../view-context.ts';
import { dayText, labelText } from './buckets.ts';
import { lifecycleCounts } from './lifecycle-counts.ts';
import { personsUrl, rangeParams } from './links.ts';
import { actionOf, labelOf, refuseBreakdown, type TrendSeries } from './series.ts';
import { bucketKey } from './trend-series.ts';

export async function lifecycleInsight(context: ViewContext, raw: RawParams): Promise<TrendSeries[]> {
  refuseBreakdown(raw, 'Lifecycle');
  const spec = await parseLifecycleRequest(context, raw);
  const { entity, interval, range } = spec;
  const { counts, starts } = await lifecycleCounts(context, spec);
  const days = starts.map((start) => dayText(start, interval));
  return LIFECYCLE_TYPES.map((type) => {
    const data = starts.map(
      (start) => (type === 'dormant' ? -1 : 1) * (counts.get(`${type} ${bucketKey(start)}`) ?? 0),
    );
    return {
      action: actionOf(entity),
      label: `${labelOf(entity)} - ${type}`,
      status: type,
      count: data.reduce((total, value) => total + value, 0),
      data,
      days,
      labels: starts.map((start) => labelText(start, interval)),
      persons_urls: starts.map((start) => ({
        url: personsUrl(context.teamId, 'lifecycle', raw, {
          ...rangeParams(range),
          target_date: dayText(start, interval),
          lifecycle_type: type,
        }),
      })),
    };
  });
}
