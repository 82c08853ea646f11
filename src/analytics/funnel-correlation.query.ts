// Persons behind one correlation row: funnel entrants who performed the
// correlated event between their funnel start and end, or who match the correlated properties;
// optionally only converted / only dropped-off ones.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import { renderActors, selectPersonsByUuid, type ActorsResult } from './actors.ts';
import type { ViewContext } from './view-context.ts';
import { rangeSql } from './date-range.ts';
import { entitySql, parseEntity, resolveEntity } from './entities.ts';
import { parseFilter, resolveFilter, type FilterNode } from './filters.ts';
import { stepSelection } from './funnel.query.ts';
import { funnelPersonsSql, parseFunnel } from './funnel-steps.ts';
import { boolParam, choiceParam, jsonParam, type RawParams } from './params.ts';
import type { PageRequest } from '../wire/page.ts';

const TYPES = ['events', 'event_with_properties', 'properties'] as const;

export async function correlationActors(
  context: ViewContext,
  raw: RawParams,
  page: PageRequest,
): Promise<ActorsResult> {
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
  const spec = await parseFunnel(raw, context, extra);
  const n = spec.steps.length;
  const entered =
    raw.funnel_step === undefined && raw.funnel_custom_steps === undefined
      ? sql`f.steps >= 1`
      : stepSelection(raw, n).condition;
  if (converted) spec.requiredStep = n - 1;
  const conversion = converted === undefined ? sql`true` : converted ? sql`f.steps = ${n}` : sql`f.steps < ${n}`;
  let correlated = sql``;
  if (type !== 'properties') {
    const entityRaw = jsonParam(raw, 'funnel_correlation_person_entity');
    if (entityRaw === undefined)
      throw validationError('No entity for persons specified', 'funnel_correlation_person_entity', 'required');
    const entity = await resolveEntity(
      context,
      parseEntity(entityRaw, 'funnel_correlation_person_entity', 0),
      'funnel_correlation_person_entity',
    );
    // Events that are themselves funnel steps say nothing about conversion; they are ignored.
    const stepNames = spec.steps.flatMap((step) => (step.id === null ? [] : [step.id]));
    const notStep = stepNames.length ? sql`e.event not in (${sql.join(stepNames)})` : sql`true`;
    // A join (persons listed once), not a correlated `exists`: on Citus the events are spread by
    // distinct id, and a subquery correlated with rows gathered from them cannot be planned.
    correlated = sql`join (
        select e.person_id, e.timestamp from events e
        where e.team_id = ${context.teamId} and ${entitySql(entity, context.teamId)} and ${notStep}
          and ${rangeSql(sql.ref('e.timestamp'), spec.range, context.timezone)}
      ) c on c.person_id = f.person_id and c.timestamp > f.first_ts
        and c.timestamp < coalesce(f.final_ts, f.first_ts + ${spec.window}::interval)`;
  }
  const selection = (slice: RawBuilder<unknown>) =>
    sql`select distinct f.person_id from (${funnelPersonsSql(context, { ...spec, slice })}) f ${correlated} where ${entered} and ${conversion}`;
  return renderActors(context, await selectPersonsByUuid(context, selection, page), 'store');
}
