// What every trends-like series shares: the entity as the legacy `action` object, its label, the
// persons-view parameters that select it, and the conditions all its numbers share.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../../errors.ts';
import type { ViewContext } from '../view-context.ts';
import { entitiesParam, entitySql, resolveEntities, type Entity } from '../entities.ts';
import { hasBreakdown } from '../breakdowns.ts';
import { eventFiltersSql, type EventFilters } from '../filters.ts';
import type { RawParams } from '../params.ts';

export interface InsightAction {
  id: string | null;
  type: 'events';
  order: number;
  name: string;
  custom_name: string | null;
  math: string;
  math_property: string | null;
}

export interface TrendSeries {
  action: InsightAction;
  label: string;
  count: number;
  data: number[];
  days: string[] | number[];
  labels: string[];
  persons_urls: { url: string }[];
  breakdown_value?: string | number;
  aggregated_value?: number;
  persons?: { url: string };
  status?: string;
}

export function actionOf(entity: Entity): InsightAction {
  const name = entity.id ?? 'All events';
  return {
    id: entity.id,
    type: 'events',
    order: entity.index,
    name,
    custom_name: entity.customName ?? null,
    math: entity.math,
    math_property: entity.mathProperty,
  };
}

export const labelOf = (entity: Entity) => entity.customName || (entity.id ?? 'All events');

/** The target-entity parameters that make a persons view pick this entity. */
export const entityPoint = (entity: Entity) => ({
  entity_id: entity.id ?? '',
  entity_type: 'events',
  entity_math: entity.math,
  entity_order: entity.index,
});

export async function seriesEntities(context: ViewContext, raw: RawParams): Promise<Entity[]> {
  const entities = await resolveEntities(context, entitiesParam(raw));
  if (entities.length === 0) throw validationError('At least one series is required.', 'events', 'required');
  return entities;
}

/** The conditions every number of an entity shares: the entity, `properties` and `search`. */
export function seriesWhere(context: ViewContext, filters: EventFilters, entity: Entity): RawBuilder<unknown>[] {
  return [
    sql`e.team_id = ${context.teamId}`,
    entitySql(entity, context.teamId),
    ...eventFiltersSql(filters, context.teamId),
  ];
}

/** Stickiness and lifecycle answer no breakdown. */
export function refuseBreakdown(raw: RawParams, shownAs: string): void {
  if (hasBreakdown(raw)) throw validationError(`Breakdowns are not supported with shown_as=${shownAs}.`, 'breakdown');
}
