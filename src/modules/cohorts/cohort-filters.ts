// Cohort filters inside property filters: each must name a cohort of the project (else 400, attr
// `properties`); a static one compiles to a member lookup, a dynamic one gets its own filter
// inlined, recursively, so that compiling needs no database. The cohorts reached are loaded once
// each, one query per level of nesting, however many filters name them.
import type { Db } from '../../db/database.ts';
import {
  invalidFilter,
  isGroup,
  MAX_FILTER_DEPTH,
  MAX_FILTER_VALUES,
  parsePropertyFilter,
  type FilterNode,
} from '../../filters/property-filter.ts';
import { findCohortDefinitions } from './cohorts.repository.ts';

/** A loaded cohort as resolution needs it; `filter` is its parsed own filter, or the error parsing it gave. */
interface KnownCohort {
  isStatic: boolean;
  filter: FilterNode | null;
  error?: unknown;
}

type Known = Map<number, KnownCohort | null>;

function cohortIdsOf(node: FilterNode, ids: Set<number>) {
  if (isGroup(node)) for (const child of node.values) cohortIdsOf(child, ids);
  else if (node.type === 'cohort') ids.add(Number(node.value));
}

function parseStored(stored: unknown): Pick<KnownCohort, 'filter' | 'error'> {
  if (stored === undefined || stored === null) return { filter: null };
  try {
    return { filter: parsePropertyFilter(stored) };
  } catch (error) {
    return { filter: null, error };
  }
}

/** Loads every cohort the filters reach through cohort filters, a level of nesting per query. */
async function loadReachable(db: Db, teamId: number, nodes: FilterNode[], known: Known): Promise<void> {
  let wanted = new Set<number>();
  for (const node of nodes) cohortIdsOf(node, wanted);
  for (;;) {
    const missing = [...wanted].filter((id) => !known.has(id));
    if (missing.length === 0) return;
    const found = await findCohortDefinitions(db, teamId, missing);
    wanted = new Set();
    for (const id of missing) {
      const cohort = found.get(id);
      const entry = cohort
        ? {
            isStatic: cohort.is_static,
            ...(cohort.is_static ? { filter: null } : parseStored(cohort.filters?.properties)),
          }
        : null;
      known.set(id, entry);
      if (entry?.filter) cohortIdsOf(entry.filter, wanted);
    }
  }
}

function resolveNode(node: FilterNode, seen: number[], known: Known): FilterNode {
  if (isGroup(node)) return { type: node.type, values: node.values.map((child) => resolveNode(child, seen, known)) };
  if (node.type !== 'cohort') return node;
  const cohortId = Number(node.value);
  if (seen.includes(cohortId)) throw invalidFilter('Cohort filters cannot refer to each other in a cycle.');
  if (seen.length >= MAX_FILTER_DEPTH) throw invalidFilter('Cohort filters nest too deep.');
  const cohort = known.get(cohortId);
  if (!cohort) throw invalidFilter(`Cohort ${cohortId} does not exist.`);
  if (cohort.isStatic) return { ...node, cohort: { isStatic: true, filter: null } };
  if (cohort.error) throw cohort.error;
  const filter = cohort.filter ? resolveNode(cohort.filter, [...seen, cohortId], known) : null;
  return { ...node, cohort: { isStatic: false, filter } };
}

/** The values a resolved filter holds, those of the cohort definitions it inlines included. */
function valuesOf(node: FilterNode): number {
  if (isGroup(node)) return node.values.reduce((total, child) => total + valuesOf(child), 0);
  const own = Array.isArray(node.value) ? node.value.length : 1;
  return own + (node.cohort?.filter ? valuesOf(node.cohort.filter) : 0);
}

export type CohortFilterResolver = (node: FilterNode, seen?: number[]) => FilterNode;

/**
 * Loads what resolving these filters needs, then resolves any of them without the database: a
 * cohort that reaches itself (through `seen`, the cohorts already being inlined) is a 400, and the
 * value limit applies to the whole, so that inlined definitions cannot grow the query past it.
 */
export async function cohortFilterResolver(db: Db, teamId: number, nodes: FilterNode[]): Promise<CohortFilterResolver> {
  const known: Known = new Map();
  await loadReachable(db, teamId, nodes, known);
  return (node, seen = []) => {
    const resolved = resolveNode(node, seen, known);
    if (valuesOf(resolved) > MAX_FILTER_VALUES) {
      throw invalidFilter(
        `Property filters can hold at most ${MAX_FILTER_VALUES} values, those of the cohorts they name included.`,
      );
    }
    return resolved;
  };
}

/** One filter resolved (see cohortFilterResolver). */
export async function resolveCohortFilters(
  db: Db,
  teamId: number,
  node: FilterNode,
  seen: number[] = [],
): Promise<FilterNode> {
  return (await cohortFilterResolver(db, teamId, [node]))(node, seen);
}

/** parsePropertyFilter then resolveCohortFilters. */
export async function preparePropertyFilter(db: Db, teamId: number, raw: unknown): Promise<FilterNode> {
  return resolveCohortFilters(db, teamId, parsePropertyFilter(raw));
}
