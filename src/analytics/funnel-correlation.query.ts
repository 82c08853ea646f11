// Persons behind one correlation row: funnel entrants who performed the
// correlated event between their funnel start and end, or who match the correlated properties;
// optionally only converted / only dropped-off ones.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import type { PageRequest } from '../wire/page.ts';
import { renderActors, selectPersonsByUuid, type ActorsResult } from './actors.ts';
import { rangeSql } from './date-range.ts';
import { entitySql, parseEntity, resolveEntity, type Entity } from './entities.ts';
import { parseFilter, resolveFilter, type FilterNode } from './filters.ts';
import {
  parseFunnel,
  stepSelectionParam,
  stepSelectionSql,
  type FunnelSpec,
  type StepSelection,
} from './funnel-request.ts';
import { funnelPersonsSql } from './funnel-steps.ts';
import { boolParam, choiceParam, jsonParam, type RawParams } from './params.ts';
import type { ViewContext } from './view-context.ts';

const TYPES = ['events', 'event_with_properties', 'properties'] as const;

/** A correlation persons request, as parsed from its parameters. */
interface CorrelationRequest {
  /** The funnel, its filters joined by the correlated properties of a `properties` correlation. */
  funnel: FunnelSpec;
  /** The step selection given (`funnel_step`, `funnel_custom_steps`); without one, every entrant. */
  entered: StepSelection | null;
  converted: boolean | undefined;
  /** The correlated event of an `events` / `event_with_properties` correlation. */
  entity: Entity | null;
}

async function parseCorrelationRequest(context: ViewContext, raw: RawParams): Promise<CorrelationRequest> {
  const type = choiceParam(raw, 'funnel_correlation_type', TYPES, 'events');
  const converted = boolParam(raw, 'funnel_correlation_person_converted');
  let extra: FilterNode | null = null;
  if (type === 'properties') {
    const values = jsonParam(raw, 'funnel_correlation_property_values');
    if (values === undefined || (Array.isArray(values) && values.length === 0)) {
      throw validationError(
        'Property Correlation expects atleast one Property to get persons for',
        'funnel_correlation_property_values',
        'required',
      );
    }
    extra = await resolveFilter(
      context,
      parseFilter(values, 'funnel_correlation_property_values'),
      'funnel_correlation_property_values',
    );
  }
  const funnel = await parseFunnel(raw, context, extra);
  const entered =
    raw.funnel_step === undefined && raw.funnel_custom_steps === undefined
      ? null
      : stepSelectionParam(raw, funnel.steps.length);
  if (type === 'properties') return { funnel, entered, converted, entity: null };
  const entityRaw = jsonParam(raw, 'funnel_correlation_person_entity');
  if (entityRaw === undefined)
    throw validationError('No entity for persons specified', 'funnel_correlation_person_entity', 'required');
  const entity = await resolveEntity(
    context,
    parseEntity(entityRaw, 'funnel_correlation_person_entity', 0),
    'funnel_correlation_person_entity',
  );
  return { funnel, entered, converted, entity };
}

/** Funnel persons `f` who performed the correlated event within their best attempt (a join, or nothing). */
function correlatedSql(context: ViewContext, funnel: FunnelSpec, entity: Entity | null): RawBuilder<unknown> {
  if (entity === null) return sql``;
  // Events that are themselves funnel steps say nothing about conversion; they are ignored.
  const stepNames = funnel.steps.flatMap((step) => (step.id === null ? [] : [step.id]));
  const notStep = stepNames.length ? sql`e.event not in (${sql.join(stepNames)})` : sql`true`;
  // A join (persons listed once), not a correlated `exists`: on Citus the events are spread by
  // distinct id, and a subquery correlated with rows gathered from them cannot be planned.
  return sql`join (
        select e.person_key as person_id, e.timestamp from events e
        where e.team_id = ${context.teamId} and ${entitySql(entity, context.teamId)} and ${notStep}
          and ${rangeSql(sql.ref('e.timestamp'), funnel.range, context.timezone)}
      ) c on c.person_id = f.person_id and c.timestamp > f.first_ts
        and c.timestamp < coalesce(f.final_ts, f.first_ts + ${funnel.window}::interval)`;
}

export async function correlationActors(
  context: ViewContext,
  raw: RawParams,
  page: PageRequest,
): Promise<ActorsResult> {
  const { funnel, entered, converted, entity } = await parseCorrelationRequest(context, raw);
  const n = funnel.steps.length;
  const enteredSql = entered === null ? sql`f.steps >= 1` : stepSelectionSql(entered);
  const requiredStep = converted ? n - 1 : undefined;
  const conversion = converted === undefined ? sql`true` : converted ? sql`f.steps = ${n}` : sql`f.steps < ${n}`;
  const correlated = correlatedSql(context, funnel, entity);
  const selection = (slice: RawBuilder<unknown>) =>
    sql`select distinct f.person_id from (${funnelPersonsSql(context, funnel, { slice, requiredStep })}) f ${correlated} where ${enteredSql} and ${conversion}`;
  return renderActors(context, await selectPersonsByUuid(context, selection, page), 'store');
}
