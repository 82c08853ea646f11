// What the API document says beyond what @fastify/swagger derives from the route schemas: each
// operation's description completed from its docs (`describe()`) and its access rule, every
// response described and given its media types, and every schema named by a PascalCase `title`
// listed once under components.schemas and referenced wherever it appears.
import type { FastifySchema, RouteOptions } from 'fastify';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../wire/page.ts';
import type { RouteDocs } from '../route-docs.ts';
import { RATE_LIMITS, type AccessRule } from './access.ts';

type Json = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'Bad input: `detail` says what is wrong, `attr` names the field or parameter at fault (null when no single one is).',
  401: 'No personal API key, or one that is unknown, deleted or of a deactivated user.',
  403: 'The key lacks the scope or is limited to other organizations or projects, or its user is not a member (or not an admin where one is needed).',
  404: 'No such organization, project or object.',
  405: 'The path exists, but not for this method.',
  409: 'The object is in a state that forbids this (e.g. a task that has already run).',
  413: 'The body is larger than the route accepts (after decompression too).',
  429: 'Over the rate limit: `Retry-After` gives the seconds to wait.',
};

const PAGING = `**Paging:** \`limit\` (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}: larger is clamped) and \`offset\` (default 0). The answer is a page: \`count\` is the exact total, \`next\` and \`previous\` the absolute URLs of the neighbouring pages, null at either end.`;

const CSV =
  "**CSV:** `format=csv` (or `Accept: text/csv`) answers the same records as a CSV attachment: nested objects become dotted columns (`properties.email`), lists indexed ones (`distinct_ids.0`), and the header is the sorted union of every row's columns. `format=json` is the default; any other value is a 400.";

function scopeLine(scopes: string[]): string {
  const named = scopes.map((scope) => `\`${scope}\``).join(' and ');
  const granted = scopes.every((scope) => scope.endsWith(':read'))
    ? `also granted by the \`:write\` scope and by \`*\``
    : 'or `*`';
  return `**${scopes.length > 1 ? 'Scopes' : 'Scope'}:** ${named} (${granted}).`;
}

function whoLine(rule: AccessRule, methods: string[]): string {
  const writes = methods.some((method) => method !== 'GET' && method !== 'HEAD');
  if (rule.organization) {
    const organization = `the organization \`${rule.organization}\` names (its id, or \`@current\`: the key's user's first organization)`;
    return rule.adminWrites && writes
      ? `**Who:** an admin (level 8) or owner (level 15) of ${organization}; a plain member gets 403.`
      : `**Who:** any member of ${organization}.`;
  }
  if (rule.project) {
    return `**Who:** any member of the organization that owns the project \`${rule.project}\` names (its id, or \`@current\`: the first project of the key's user's first organization).`;
  }
  return "**Who:** any user, with their own key: the answer holds only the key's user's own data.";
}

function accessLines(rule: AccessRule | undefined, methods: string[]): string[] {
  if (!rule) return [];
  const lines = [scopeLine(rule.scopes), whoLine(rule, methods)];
  if (rule.tier === 'analytics') {
    const { analytics, default: ordinary } = RATE_LIMITS;
    lines.push(
      `**Rate limit:** ${analytics.burst} requests a minute and ${analytics.sustained} an hour per key for the analytical routes, within the ordinary ${ordinary.burst} and ${ordinary.sustained}.`,
    );
  }
  return lines;
}

function errorsText(errors: RouteDocs['errors']): string | null {
  const entries = Object.entries(errors ?? {});
  if (entries.length === 0) return null;
  return ['**Errors worth knowing:**', ...entries.map(([status, text]) => `- \`${status}\`: ${text}`)].join('\n');
}

function describeResponse(status: string, schema: Json, docs: RouteDocs | undefined): Json {
  const success = status.startsWith('2');
  const errors = (docs?.errors ?? {}) as Record<string, string>;
  const description = success ? docs?.returns : (errors[status] ?? ERROR_DESCRIPTIONS[status] ?? schema.description);
  if (schema.type === 'null') return { ...schema, description: description ?? schema.description };
  // Without a description swagger says "Default Response", which the document's test refuses.
  if (description === undefined) return schema;
  const content: Json = { [(success && docs?.media) || 'application/json']: { schema } };
  if (success && docs?.csv) content['text/csv'] = { schema: { type: 'string' }, example: docs.csv };
  return { description, content };
}

/** The `transform` of @fastify/swagger: a route's schema as the document shows it (the route itself is untouched). */
export function documentRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  if (!schema || schema.hide) return { schema, url };
  const { 'x-docs': docs, ...rest } = schema;
  const methods = [route.method].flat().map(String);
  const paging = docs?.paging === true ? PAGING : docs?.paging ? `**Paging:** ${docs.paging}` : null;
  const parts = [
    rest.description,
    ...accessLines(route.config?.access, methods),
    paging,
    docs?.csv ? CSV : null,
    errorsText(docs?.errors),
  ];
  const description = parts.filter((part) => part).join('\n\n');
  const response = rest.response
    ? Object.fromEntries(
        Object.entries(rest.response as Json).map(([status, value]) => [
          status,
          describeResponse(status, value as Json, docs),
        ]),
      )
    : undefined;
  const documented: FastifySchema = { ...rest, ...(description && { description }), ...(response && { response }) };
  if (!rest.body && docs?.body) documented.body = docs.body;
  return { schema: documented, url };
}

const SCHEMA_NAME = /^[A-Z][A-Za-z0-9]*$/;
const SCHEMA_MAPS = ['properties', 'patternProperties'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_SLOTS = ['items', 'additionalProperties', 'not'];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Replaces the named schemas inside `schema` (and `schema` itself unless it is a root) by references. */
function hoist(schema: unknown, schemas: Record<string, Json>, root: boolean): unknown {
  if (!isObject(schema)) return schema;
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (isObject(map)) for (const name of Object.keys(map)) map[name] = hoist(map[name], schemas, false);
  }
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) schema[key] = list.map((item) => hoist(item, schemas, false));
  }
  for (const key of SCHEMA_SLOTS) if (isObject(schema[key])) schema[key] = hoist(schema[key], schemas, false);
  const name = schema.title;
  if (root || typeof name !== 'string' || !SCHEMA_NAME.test(name)) return schema;
  const known = schemas[name];
  if (known && JSON.stringify(known) !== JSON.stringify(schema))
    throw new Error(`Two different schemas are named ${name} in the API document`);
  schemas[name] = schema;
  return { $ref: `#/components/schemas/${name}` };
}

/** Every schema of an operation: its parameters', its body's, its responses'. */
function* operationSchemaSlots(operation: Json): Generator<Json> {
  for (const parameter of (operation.parameters as Json[] | undefined) ?? []) yield parameter;
  const bodies = [operation.requestBody, ...Object.values((operation.responses as Json | undefined) ?? {})];
  for (const holder of bodies) {
    if (!isObject(holder) || !isObject(holder.content)) continue;
    for (const media of Object.values(holder.content)) if (isObject(media)) yield media;
  }
}

/**
 * The `transformObject` of @fastify/swagger: named schemas listed once under components, the
 * declared tags narrowed to those in use.
 */
export function nameSchemas(generated: { openapiObject: object } | { swaggerObject: object }): Json {
  // A copy: the document must share no object with the route schemas Fastify serializes with.
  const document = structuredClone(
    'openapiObject' in generated ? generated.openapiObject : generated.swaggerObject,
  ) as Json;
  const components = (document.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Record<string, Json>;
  for (const schema of Object.values(schemas)) hoist(schema, schemas, true);
  const used = new Set<string>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item)) {
      if (!isObject(operation)) continue;
      for (const tag of (operation.tags as string[] | undefined) ?? []) used.add(tag);
      for (const slot of operationSchemaSlots(operation)) slot.schema = hoist(slot.schema, schemas, false);
    }
  }
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  if (Array.isArray(document.tags))
    document.tags = (document.tags as Json[]).filter((tag) => used.has(String(tag.name)));
  return document;
}
