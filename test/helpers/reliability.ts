// Generic tools of the reliability harnesses: the operations of the OpenAPI document, minimal valid
// values from their schemas, database snapshots (row counts + row hashes) and bounded requests.
import { flushBufferedDefinitions } from '../../src/ingestion/definitions.ts';
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/db/database.ts';
import type { App } from '../../src/http/route-module.ts';
import { EVERY_SHARD } from './citus.ts';

export type JsonSchema = Record<string, unknown>;

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The OpenAPI template, e.g. `/api/organizations/{organization_id}/roles/{id}/`. */
  path: string;
  pathParams: string[];
  /** `example`: the one the reference gives (a JSON parameter's is JSON text). */
  query: { name: string; required: boolean; schema: JsonSchema; example: unknown }[];
  body: JsonSchema | null;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of `GET /api/schema/`, so routes that land later are covered without edits. */
export async function loadOperations(app: App): Promise<{ operations: Operation[]; doc: JsonSchema }> {
  const res = await app.inject({ method: 'GET', url: '/api/schema/' });
  if (res.statusCode !== 200) throw new Error(`GET /api/schema/ answered ${res.statusCode}`);
  const doc = res.json() as JsonSchema;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, JsonSchema>>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters = ((op.parameters as JsonSchema[] | undefined) ?? []).map((p) => deref(doc, p));
      const content = (deref(doc, (op.requestBody as JsonSchema | undefined) ?? {}).content ?? {}) as Record<
        string,
        { schema?: JsonSchema }
      >;
      const body = content['application/json']?.schema ?? Object.values(content)[0]?.schema ?? null;
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => {
            const schema = deref(doc, (p.schema as JsonSchema) ?? {});
            return {
              name: String(p.name),
              required: Boolean(p.required),
              schema,
              example: p.example ?? schema.example,
            };
          }),
        body: body ? deref(doc, body) : null,
      });
    }
  }
  return { operations, doc };
}

export function deref(doc: JsonSchema, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let guard = 0; typeof current.$ref === 'string' && guard < 20; guard++) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce<JsonSchema>((node, part) => (node?.[part] as JsonSchema) ?? {}, doc);
  }
  return current;
}

/** The resource a path parameter names: `role_id` → `roles`, `{id}` after `/cohorts/` → `cohorts`. */
export function resourceOf(path: string, param: string): string {
  if (param === 'organization_id') return 'organizations';
  if (param === 'project_id' || param === 'team_id') return 'projects';
  if (param === 'user_uuid') return 'members';
  const named = /^(.+)_(id|uuid)$/.exec(param);
  if (named) return `${named[1]}s`;
  const segments = path.split('/');
  const index = segments.indexOf(`{${param}}`);
  return index > 0 ? segments[index - 1] : param;
}

export const fillPath = (path: string, values: Record<string, string>) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));

/** Values for fields named after resources, so a generated body points at the tenant under test. */
export type IdValues = Record<string, unknown>;

/**
 * A minimal value the schema accepts: required properties only (all top-level ones when `rich`),
 * the first choice of enums and unions, lengths and bounds respected. Fields named in `ids` take
 * that value, so bodies reference the objects under test instead of random ones.
 */
export function minimalValue(doc: JsonSchema, raw: JsonSchema, ids: IdValues = {}, name = '', rich = false): unknown {
  const schema = deref(doc, raw);
  if (name && name in ids) return ids[name];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema && schema.default !== undefined) return schema.default;
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) {
    const branch = union.find((b) => deref(doc, b).type !== 'null') ?? union[0];
    return minimalValue(doc, branch, ids, name, rich);
  }
  let type = schema.type as string | string[] | undefined;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0];
  if (!type) type = schema.properties ? 'object' : schema.items ? 'array' : 'string';
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(properties)) {
        if (required.has(key) || rich || key in ids) out[key] = minimalValue(doc, child, ids, key, false);
      }
      return out;
    }
    case 'array': {
      const count = Math.max(Number(schema.minItems ?? 0), rich || name in ids ? 1 : 0);
      return Array.from({ length: count }, () => minimalValue(doc, (schema.items as JsonSchema) ?? {}, ids, '', false));
    }
    case 'integer':
    case 'number': {
      const min =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + 1
            : 1;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
      return Math.min(Math.max(min, 1), max);
    }
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return minimalString(schema, name);
  }
}

function minimalString(schema: JsonSchema, name: string): string {
  const unique = crypto.randomBytes(3).toString('hex');
  switch (schema.format) {
    case 'uuid':
      return crypto.randomUUID();
    case 'email':
      return `generated-${unique}@example.com`;
    case 'date-time':
      return new Date().toISOString();
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'uri':
      return 'https://example.com/';
  }
  const min = Number(schema.minLength ?? 1);
  const max = Number(schema.maxLength ?? 200);
  const base = name ? `${name}-${unique}` : `x-${unique}`;
  return base.padEnd(min, 'x').slice(0, Math.max(max, 1));
}

/** Application tables of the public schema: new migrations are included without edits. */
async function tablesOf(db: Db): Promise<string[]> {
  const result = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
    order by table_name`.execute(db);
  return result.rows.map((row) => row.name);
}

export type Snapshot = Record<string, { rows: number; hash: string }>;

/**
 * Row count and an md5 of the sorted rows of every table. `last_used_at` is left out: reading with
 * a key legitimately stamps it (at most once an hour), and it is not tenant data.
 */
export async function snapshotDatabase(db: Db): Promise<Snapshot> {
  // The definitions capture buffered are written first (else a second later, during whatever
  // request runs then): their rows count for the request that captured, the one before this snapshot.
  await flushBufferedDefinitions(db);
  const tables = await tablesOf(db);
  const parts = tables.map(
    (name) => sql`select ${name}::text as name, count(*)::int as rows,
      coalesce(md5(string_agg((to_jsonb(t) - 'last_used_at')::text, ',' order by (to_jsonb(t) - 'last_used_at')::text)), '') as hash
      from ${sql.table(name)} t`,
  );
  // Every shard of every table, on purpose (test/helpers/citus.ts lets it fan out).
  const result = await sql<{
    name: string;
    rows: number;
    hash: string;
  }>`${sql.raw(EVERY_SHARD)} ${sql.join(parts, sql` union all `)}`.execute(db);
  return Object.fromEntries(result.rows.map((row) => [row.name, { rows: Number(row.rows), hash: row.hash }]));
}

/**
 * The same over one tenant's rows only: tables with `team_id` restricted to its projects, tables
 * with `organization_id` to its organization, and its organization row.
 */
export async function snapshotTenant(db: Db, organizationId: string, teamIds: number[]): Promise<Snapshot> {
  const columns = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = 'public' and column_name in ('team_id', 'organization_id') and table_name not like 'kysely_%'`.execute(
    db,
  );
  const byTable = new Map<string, Set<string>>();
  for (const row of columns.rows)
    byTable.set(row.table_name, (byTable.get(row.table_name) ?? new Set()).add(row.column_name));
  const parts = [...byTable.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, cols]) => {
      const where = cols.has('team_id')
        ? sql`t.team_id::bigint = any(${teamIds}::bigint[])`
        : sql`t.organization_id::text = ${organizationId}`;
      return sql`select ${name}::text as name, count(*)::int as rows,
      coalesce(md5(string_agg(to_jsonb(t)::text, ',' order by to_jsonb(t)::text)), '') as hash
      from ${sql.table(name)} t where ${where}`;
    });
  parts.push(sql`select 'organizations'::text as name, count(*)::int as rows, coalesce(md5(string_agg(to_jsonb(t)::text, ',')), '') as hash
    from organizations t where t.id::text = ${organizationId}`);
  const result = await sql<{ name: string; rows: number; hash: string }>`${sql.join(parts, sql` union all `)}`.execute(
    db,
  );
  return Object.fromEntries(result.rows.map((row) => [row.name, { rows: Number(row.rows), hash: row.hash }]));
}

/** The tables whose rows differ between two snapshots. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter(
    (name) => before[name]?.rows !== after[name]?.rows || before[name]?.hash !== after[name]?.hash,
  );
}

export class RequestTimeout extends Error {}

/** `app.inject` that fails instead of hanging: a request that does not answer in time is a bug. */
export async function injectWithin(app: App, options: InjectOptions, ms = 10_000): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new RequestTimeout(`${options.method} ${String(options.url).slice(0, 200)} did not answer in ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([app.inject(options), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `project_id` style parameters that scope a route to a project or an organization. */
export const CONTAINER_RESOURCES = new Set(['organizations', 'projects']);

/**
 * Paths that answer without credentials by design: documentation, probes, and what web pages load
 * (the SDK's scripts, and its config, named by the public project token in the path).
 */
export const PUBLIC_PATH = /^\/(api\/schema|_health|_ready|metrics|array|static)(\/|$)/;
