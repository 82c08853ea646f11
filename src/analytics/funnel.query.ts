// Persons of a funnel step: `funnel_step=N` reached at least step N, `-N` reached step N-1 but not
// N, `funnel_custom_steps` any of the listed step counts, optionally of one first-touch breakdown
// value; funnel-trends mode picks one entrance period and converted (or dropped-off) persons.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import type { PageRequest } from '../wire/page.ts';
import { renderActors, selectPersonsByUuid, type ActorsResult } from './actors.ts';
import { breakdownTypeParam, breakdownValueParam, type BreakdownValue } from './breakdowns.ts';
import { bucketSql, formatLocal, localSql, parseDate, truncate } from './date-range.ts';
import { funnelReachSql } from './funnel-reach.ts';
import {
  isTrendsMode,
  minStepsOf,
  parseFunnel,
  stepSelectionParam,
  stepSelectionSql,
  stepSpanParam,
  type FunnelSpec,
  type StepSelection,
  type StepSpan,
} from './funnel-request.ts';
import { attemptsWithExclusionsSql, firstTouchMatchSql } from './funnel-steps.ts';
import { boolParam, stringParam, type RawParams } from './params.ts';
import type { ViewContext } from './view-context.ts';

/** A funnel persons request, as parsed from its parameters. */
interface FunnelPersonsRequest {
  funnel: FunnelSpec;
  selection:
    | { mode: 'steps'; steps: StepSelection; breakdown: BreakdownValue | null }
    | { mode: 'trends'; dropOff: boolean; entrance: Date; span: StepSpan };
}

async function parseFunnelPersonsRequest(context: ViewContext, raw: RawParams): Promise<FunnelPersonsRequest> {
  const funnel = await parseFunnel(raw, context);
  const stepCount = funnel.steps.length;
  if (!isTrendsMode(raw)) {
    const steps = stepSelectionParam(raw, stepCount);
    return { funnel, selection: { mode: 'steps', steps, breakdown: await stepBreakdownParam(context, raw) } };
  }
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
    funnel.interval,
  );
  return { funnel, selection: { mode: 'trends', dropOff, entrance, span: stepSpanParam(raw, stepCount) } };
}

/** `funnel_step_breakdown`: one breakdown value; `"x"` and `["x"]` are the same. */
async function stepBreakdownParam(context: ViewContext, raw: RawParams): Promise<BreakdownValue | null> {
  const given = raw.funnel_step_breakdown;
  if (given === undefined || given === null || given === '') return null;
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
  return breakdownValueParam(context, raw, {
    type: breakdownTypeParam(raw),
    value: wanted,
    attr: 'funnel_step_breakdown',
    allowAll: false,
    histogram: () => false,
  });
}

/** A selection of persons, built for each person slice (person-slices.ts). */
type Selection = (slice: RawBuilder<unknown>) => RawBuilder<unknown>;

/** Funnel trends: the persons entering in one period who converted (drop_off=false) or dropped off. */
function trendsSelectionSql(
  context: ViewContext,
  funnel: FunnelSpec,
  { dropOff, entrance, span }: { dropOff: boolean; entrance: Date; span: StepSpan },
): Selection {
  const condition = dropOff
    ? sql`f.steps >= ${span.from + 1} and f.steps < ${span.to + 1}`
    : sql`f.steps >= ${span.to + 1}`;
  const requiredStep = dropOff ? span.from : span.to;
  // An attempt's entrance period: its start's interval bucket in the project's time.
  const period = bucketSql(localSql(sql.ref('a.t0'), context.timezone), funnel.interval);
  return (slice) => sql`
    select f.person_id from (
      select a.person_id, max(a.steps) as steps
      from (${attemptsWithExclusionsSql(context, funnel, { slice, requiredStep })}) a
      where ${period} = ${formatLocal(entrance)}::timestamp
      group by a.person_id
    ) f where ${condition}`;
}

function stepsSelectionSql(
  context: ViewContext,
  funnel: FunnelSpec,
  { steps, breakdown }: { steps: StepSelection; breakdown: BreakdownValue | null },
): Selection {
  const requiredStep = minStepsOf(steps) - 1;
  const condition = stepSelectionSql(steps);
  return (slice) => {
    const scan = { slice, requiredStep };
    const narrowed = breakdown ? firstTouchMatchSql(context, funnel, scan, breakdown) : sql`true`;
    return sql`select f.person_id from (${funnelReachSql(context, funnel, scan)}) f where ${condition} and ${narrowed}`;
  };
}

export async function funnelActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const { funnel, selection } = await parseFunnelPersonsRequest(context, raw);
  const select =
    selection.mode === 'trends'
      ? trendsSelectionSql(context, funnel, selection)
      : stepsSelectionSql(context, funnel, selection);
  return renderActors(context, await selectPersonsByUuid(context, select, page), 'store');
}
