// Entities (`events` JSON lists) and the target entity of trends/stickiness (PostHog's
// get_target_entity). Actions are not stored by herd, so any action is a 400.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import { shownValue } from '../json-shape.ts';
import type { ViewContext } from './view-context.ts';
import { rangeSql, type LocalRange } from './date-range.ts';
import {
  andSql,
  eventFiltersSql,
  filterSql,
  parseFilter,
  resolveFilter,
  type EventFilters,
  type FilterNode,
} from './filters.ts';
import { intParam, jsonParam, stringParam, type RawParams } from './params.ts';

export interface Entity {
  /** The event name; null means any event. */
  id: string | null;
  index: number;
  math: string;
  mathProperty: string | null;
  properties: FilterNode | null;
  /** The label a client gave the entity (insights show it). */
  customName?: string | null;
  /** funnel exclusions: 0-based steps the exclusion spans. */
  fromStep?: number;
  toStep?: number;
}

function rejectActions(raw: RawParams, key = 'actions') {
  const actions = jsonParam(raw, key);
  if (actions === undefined) return;
  if (!Array.isArray(actions)) throw validationError('Expected a list of items.', key);
  if (actions.length > 0) throw validationError('Actions are not supported', key);
}

export function parseEntity(item: unknown, attr: string, index: number): Entity & { order: number | null } {
  if (!item || typeof item !== 'object' || Array.isArray(item))
    throw validationError('Each entity must be an object.', attr);
  const entity = item as Record<string, unknown>;
  if (entity.type === 'actions') throw validationError('Actions are not supported', attr);
  if (entity.type !== undefined && entity.type !== null && entity.type !== 'events')
    throw validationError(`"${shownValue(entity.type)}" is not a valid entity type.`, attr);
  const id = entity.id;
  if (id !== null && id !== undefined && typeof id !== 'string')
    throw validationError('An entity id must be an event name or null.', attr);
  const order = entity.order;
  if (order !== undefined && order !== null && !Number.isInteger(order))
    throw validationError('An entity order must be an integer.', attr);
  const math = entity.math ?? 'total';
  if (typeof math !== 'string') throw validationError('An entity math must be a string.', attr);
  const mathProperty = entity.math_property ?? null;
  if (mathProperty !== null && typeof mathProperty !== 'string')
    throw validationError('An entity math_property must be a string.', attr);
  const customName = typeof entity.custom_name === 'string' ? entity.custom_name : null;
  const props = entity.properties;
  const properties =
    props === undefined || props === null || (Array.isArray(props) && props.length === 0)
      ? null
      : parseFilter(props, attr);
  const step = (key: string) => {
    const value = entity[key];
    if (value === undefined || value === null) return undefined;
    if (!Number.isInteger(value) || (value as number) < 0)
      throw validationError(`${key} must be a non-negative integer.`, attr);
    return value as number;
  };
  return {
    id: id ?? null,
    index,
    order: (order as number | null | undefined) ?? null,
    math,
    mathProperty,
    properties,
    customName,
    fromStep: step('funnel_from_step'),
    toStep: step('funnel_to_step'),
  };
}

/** `events` (+ a rejected `actions`), sorted by `order` (missing first) and re-indexed. */
export function entitiesParam(raw: RawParams, key = 'events'): Entity[] {
  rejectActions(raw);
  const value = jsonParam(raw, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw validationError('Expected a list of items.', key);
  const parsed = value.map((item, index) => parseEntity(item, key, index));
  const sorted = [...parsed].sort((a, b) => (a.order ?? -Infinity) - (b.order ?? -Infinity) || a.index - b.index);
  return sorted.map((entity, index) => ({ ...entity, index }));
}

/** The entity one point of a trends/stickiness graph belongs to. */
export function targetEntity(raw: RawParams): Entity {
  const entities = entitiesParam(raw);
  const type = stringParam(raw, 'entity_type') ?? stringParam(raw, 'type');
  if (type === 'actions') throw validationError('Actions are not supported', 'entity_type');
  if (type !== undefined && type !== 'events')
    throw validationError(`"${type}" is not a valid choice.`, 'entity_type', 'invalid_choice');
  const order = intParam(raw, 'entity_order', { min: 0 });
  if (order !== undefined) {
    const entity = entities[order];
    if (!entity) throw validationError('No entity has this order.', 'entity_order');
    return entity;
  }
  const id = stringParam(raw, 'entity_id') ?? stringParam(raw, 'entityId');
  const math = stringParam(raw, 'entity_math') ?? 'total';
  const found = entities.find((entity) => entity.id === (id ?? null) && entity.math === math);
  if (found) return found;
  if (type !== undefined) return { id: id ?? null, index: 0, math, mathProperty: null, properties: null };
  throw validationError('An entity must be provided for target entity to be determined.', 'entity_id', 'required');
}

/** The event row `e` matches the entity: its name (unless any event) and its own property filters. */
export function entitySql(entity: Entity, teamId: number): RawBuilder<unknown> {
  const name = entity.id === null ? sql`true` : sql`e.event = ${entity.id}`;
  return entity.properties ? sql`(${name} and ${filterSql(entity.properties, teamId)})` : name;
}

/**
 * The event row `e` is one of the entity's, by a person of the project, in the range, and matches
 * the request's `properties` and `search` (and a view's own `extra` condition).
 */
export function entityEventsSql(
  context: ViewContext,
  filters: EventFilters,
  entity: Entity,
  range: LocalRange,
  extra: RawBuilder<unknown>[] = [],
): RawBuilder<unknown> {
  return andSql([
    sql`e.team_id = ${context.teamId}`,
    sql`e.person_key > 0`,
    rangeSql(sql.ref('e.timestamp'), range, context.timezone),
    entitySql(entity, context.teamId),
    ...eventFiltersSql(filters, context.teamId),
    ...extra,
  ]);
}

/** Resolves the cohort filters among an entity's own property filters. */
export async function resolveEntity<T extends Entity>(context: ViewContext, entity: T, attr = 'events'): Promise<T> {
  return entity.properties ? { ...entity, properties: await resolveFilter(context, entity.properties, attr) } : entity;
}

export function resolveEntities<T extends Entity>(context: ViewContext, entities: T[], attr = 'events'): Promise<T[]> {
  return Promise.all(entities.map((entity) => resolveEntity(context, entity, attr)));
}
