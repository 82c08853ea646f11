// Persons of a funnel step: `funnel_step=N` reached at least step N, `-N` reached
// step N-1 but not N, `funnel_custom_steps` any of the listed step counts; funnel-trends mode picks
// one entrance period and converted (or dropped-off) persons.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import { renderActors, selectPersonsByUuid, type ActorsResult } from './actors.ts';
import type { ViewContext } from './view-context.ts';
import { bucketSql, formatLocal, localSql, parseDate, rangeSql, truncate } from './date-range.ts';
import { entitySql } from './entities.ts';
import { filterSql, parseFilter, resolveFilter } from './filters.ts';
import { funnelReachSql } from './funnel-reach.ts';
import { attemptsWithExclusionsSql, parseFunnel, type FunnelSpec } from './funnel-steps.ts';
import { boolParam, choiceParam, intParam, jsonParam, stringParam, type RawParams } from './params.ts';
import { breakdownKey, breakdownValueSql } from './trends.query.ts';
import type { PageRequest } from '../wire/page.ts';

const VIZ_TYPES = ['steps', 'trends', 'time_to_convert'] as const;

/** The step-count condition on `f.steps` a request selects, and the fewest steps it accepts. */
export function stepSelection(raw: RawParams, stepCount: number): { condition: RawBuilder<unknown>; minSteps: number } {
  const custom = jsonParam(raw, 'funnel_custom_steps');
  if (custom !== undefined) {
    if (
      !Array.isArray(custom) ||
      custom.length === 0 ||
      !custom.every((step) => Number.isInteger(step) && Math.abs(step as number) <= 1000)
    ) {
      throw validationError('Expected a list of step numbers.', 'funnel_custom_steps');
    }
    return {
      condition: sql`f.steps in (${sql.join(custom as number[])})`,
      minSteps: Math.min(...(custom as number[])),
    };
  }
  const step = intParam(raw, 'funnel_step');
  if (step === undefined)
    throw validationError('Missing both funnel_step and funnel_custom_steps.', 'funnel_step', 'required');
  if (step >= 1) return { condition: sql`f.steps >= ${step}`, minSteps: step };
  // There is no drop-off before the first step.
  if (step > -2)
    throw validationError(
      'funnel_step must be a step number, or -N (N >= 2) for drop-offs before step N.',
      'funnel_step',
    );
  if (-step > stepCount) throw validationError('funnel_step is beyond the last step.', 'funnel_step');
  return { condition: sql`f.steps = ${-step - 1}`, minSteps: -step - 1 };
}

/** A selection of persons, built for each person slice (person-slices.ts). */
export type Selection = (slice: RawBuilder<unknown>) => RawBuilder<unknown>;

/** Funnel trends: the persons entering in one period who converted (drop_off=false) or dropped off. */
function trendsSelectionSql(context: ViewContext, raw: RawParams, spec: FunnelSpec): Selection {
  const dropOff = boolParam(raw, 'drop_off');
  if (dropOff === undefined)
    throw validationError(
      'Filter parameter drop_off must be provided and a bool for funnel trends persons!',
      'drop_off',
      'required',
    );
  const entranceRaw = stringParam(raw, 'entrance_period_start');
  if (entranceRaw === undefined) {
    throw validationError(
      'Filter parameter entrance_period_start must be provided and a datetime for funnel trends persons!',
      'entrance_period_start',
      'required',
    );
  }
  const entrance = truncate(
    parseDate(entranceRaw, context.timezone, context.now, 'entrance_period_start').value,
    spec.interval,
  );
  const last = spec.steps.length - 1;
  const from = intParam(raw, 'funnel_from_step', { min: 0, max: last }) ?? 0;
  const to = intParam(raw, 'funnel_to_step', { min: 0, max: last }) ?? last;
  if (from > to) throw validationError('funnel_from_step must not be after funnel_to_step.', 'funnel_from_step');
  const condition = dropOff ? sql`f.steps >= ${from + 1} and f.steps < ${to + 1}` : sql`f.steps >= ${to + 1}`;
  spec.requiredStep = dropOff ? from : to;
  const period = entrancePeriodSql(context, spec);
  return (slice) => sql`
    select f.person_id from (
      select a.person_id, max(a.steps) as steps
      from (${attemptsWithExclusionsSql(context, { ...spec, slice })}) a
      where ${period} = ${formatLocal(entrance)}::timestamp
      group by a.person_id
    ) f where ${condition}`;
}

/** The entrance period of an attempt row `a`: its start's interval bucket in the project's time. */
function entrancePeriodSql(context: ViewContext, spec: FunnelSpec): RawBuilder<Date> {
  return bucketSql(localSql(sql.ref('a.t0'), context.timezone), spec.interval);
}

/**
 * Rows `(person_id, value)`: each funnel entrant's breakdown value, taken on their first step-1
 * event in the range (first-touch attribution, PostHog's default).
 */
export function firstTouchSql(context: ViewContext, spec: FunnelSpec, value: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    select distinct on (e.person_id) e.person_id, ${value} as value
    from events e
    where e.team_id = ${context.teamId} and e.person_id is not null and ${entitySql(spec.steps[0], context.teamId)}
      and ${rangeSql(sql.ref('e.timestamp'), spec.range, context.timezone)} and ${filterSql(spec.properties, context.teamId)} and ${spec.slice ?? sql`true`}
    order by e.person_id, e.timestamp, e.id`;
}

/**
 * `funnel_step_breakdown`: persons whose first-touch breakdown value equals it; `"x"` and `["x"]`
 * are the same.
 */
async function breakdownSelection(
  context: ViewContext,
  raw: RawParams,
): Promise<(spec: FunnelSpec) => RawBuilder<unknown>> {
  const given = raw.funnel_step_breakdown;
  if (given === undefined || given === null || given === '') return () => sql`true`;
  let wanted: unknown = given;
  if (typeof given === 'string') {
    try {
      wanted = JSON.parse(given);
    } catch {
      wanted = given;
    }
  }
  if (Array.isArray(wanted) && wanted.length === 1) wanted = wanted[0];
  if (typeof wanted !== 'string' && typeof wanted !== 'number' && typeof wanted !== 'boolean') {
    throw validationError('Only single-property breakdowns are supported.', 'funnel_step_breakdown');
  }
  const type = stringParam(raw, 'breakdown_type') ?? 'event';
  let matches: RawBuilder<unknown>;
  if (type === 'cohort') {
    if (!Number.isInteger(Number(wanted)) || Number(wanted) < 1 || Number(wanted) > 2_147_483_647)
      throw validationError('A valid cohort id is required.', 'funnel_step_breakdown');
    const node = await resolveFilter(
      context,
      parseFilter([{ key: 'id', type: 'cohort', value: Number(wanted) }], 'funnel_step_breakdown'),
      'funnel_step_breakdown',
    );
    matches = filterSql(node, context.teamId);
  } else if (type === 'event' || type === 'person') {
    matches = sql`${breakdownValueSql(type, breakdownKey(raw))} = ${String(wanted)}`;
  } else {
    throw validationError(`Breakdown type "${type}" is not supported.`, 'breakdown_type');
  }
  return (spec) =>
    sql`f.person_id in (select b.person_id from (${firstTouchSql(context, spec, matches)}) b where b.value)`;
}

export function isTrendsMode(raw: RawParams): boolean {
  if (stringParam(raw, 'funnel_viz_type') === undefined) return stringParam(raw, 'display') === 'ActionsLineGraph';
  return choiceParam(raw, 'funnel_viz_type', VIZ_TYPES, 'steps') === 'trends';
}

async function stepsSelectionSql(context: ViewContext, raw: RawParams, spec: FunnelSpec): Promise<Selection> {
  const { condition, minSteps } = stepSelection(raw, spec.steps.length);
  spec.requiredStep = minSteps - 1;
  const breakdown = await breakdownSelection(context, raw);
  return (slice) => {
    const sliced = { ...spec, slice };
    return sql`select f.person_id from (${funnelReachSql(context, sliced)}) f where ${condition} and ${breakdown(sliced)}`;
  };
}

export async function funnelActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const spec = await parseFunnel(raw, context);
  const selection = isTrendsMode(raw)
    ? trendsSelectionSql(context, raw, spec)
    : await stepsSelectionSql(context, raw, spec);
  return renderActors(context, await selectPersonsByUuid(context, selection, page), 'store');
}
