// What every operation of the API document must carry, as a list of findings (empty: documented).
// Used on the real document and on a deliberately undocumented route, so the check is known to bite.
type Json = Record<string, unknown>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const filled = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/** A parameter whose description says its value is JSON-encoded: "a JSON list", "JSON: …", "JSON `{…}`", "(JSON)". */
const TAKES_JSON = /\bJSON( list| object|:| `)|\(JSON\)/;

export function deref(doc: Json, schema: unknown): Json {
  let current = isObject(schema) ? schema : {};
  for (let guard = 0; typeof current.$ref === 'string' && guard < 20; guard++) {
    const parts = current.$ref.replace(/^#\//, '').split('/');
    current = parts.reduce<Json>((node, part) => (isObject(node[part]) ? (node[part] as Json) : {}), doc);
  }
  return current;
}

export interface DocOperation {
  label: string;
  method: string;
  path: string;
  operation: Json;
}

export function operationsOf(doc: Json): DocOperation[] {
  const out: DocOperation[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      if (isObject(item[method]))
        out.push({ label: `${method.toUpperCase()} ${path}`, method, path, operation: item[method] as Json });
    }
  }
  return out;
}

function successFindings(doc: Json, label: string, status: string, response: Json): string[] {
  const findings: string[] = [];
  const content = isObject(response.content) ? response.content : {};
  const media = Object.entries(content) as [string, Json][];
  if (status === '204') return media.length > 0 ? [`${label}: ${status} has a body`] : [];
  if (media.length === 0) findings.push(`${label}: ${status} has no schema`);
  for (const [type, entry] of media) {
    const schema = isObject(entry.schema) ? entry.schema : {};
    if (type === 'application/json') {
      const ref = typeof schema.$ref === 'string' ? schema.$ref : '';
      if (!ref.startsWith('#/components/schemas/')) findings.push(`${label}: ${status} answers an unnamed schema`);
      else if (Object.keys(deref(doc, schema)).length === 0)
        findings.push(`${label}: ${status} names a missing schema ${ref}`);
    } else if (deref(doc, schema).type !== 'string') {
      findings.push(`${label}: ${status} ${type} is not text`);
    }
    if (type === 'text/csv' && !filled(entry.example)) findings.push(`${label}: ${status} text/csv has no example`);
  }
  return findings;
}

/** A success answer that holds a list (a root array, or `results`/`result`) must say how it pages, or that it does not. */
function pagingFindings(doc: Json, label: string, operation: Json, response: Json): string[] {
  const content = isObject(response.content) ? response.content : {};
  const schema = deref(
    doc,
    isObject(content['application/json']) ? (content['application/json'] as Json).schema : undefined,
  );
  const properties = isObject(schema.properties) ? schema.properties : {};
  const isList = (value: unknown): boolean => {
    const resolved = deref(doc, value);
    return resolved.type === 'array' || (Array.isArray(resolved.anyOf) && resolved.anyOf.every(isList));
  };
  const list =
    isList(schema) || ['results', 'result'].some((name) => properties[name] !== undefined && isList(properties[name]));
  return list && !/\*\*Paging:\*\*/.test(String(operation.description ?? ''))
    ? [`${label}: answers a list but does not say how it pages`]
    : [];
}

function parameterFindings(label: string, parameter: Json): string[] {
  const where = `${label}: ${String(parameter.in)} parameter ${String(parameter.name)}`;
  if (!filled(parameter.description)) return [`${where} has no description`];
  const example = parameterExample(parameter);
  if (example === undefined)
    return TAKES_JSON.test(String(parameter.description)) ? [`${where} takes JSON but shows no example`] : [];
  if (typeof example === 'string' && /^[[{]/.test(example)) {
    try {
      JSON.parse(example);
    } catch {
      return [`${where} has an example that is not JSON`];
    }
  }
  return [];
}

function bodyFindings(doc: Json, label: string, operation: Json): string[] {
  const body = deref(doc, operation.requestBody);
  const findings: string[] = [];
  for (const [type, entry] of Object.entries(isObject(body.content) ? body.content : {})) {
    const schema = deref(doc, (entry as Json).schema);
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const [name, property] of Object.entries(properties)) {
      if (!filled(deref(doc, property).description))
        findings.push(`${label}: body field ${name} (${type}) has no description`);
    }
    if (Object.keys(properties).length === 0 && !filled(schema.description))
      findings.push(`${label}: body (${type}) has no description`);
  }
  return findings;
}

/** Every finding of the document: an operation, parameter, body field, response or schema left unexplained. */
export function undocumented(doc: Json): string[] {
  const findings: string[] = [];
  const declared = new Map(((doc.tags as Json[] | undefined) ?? []).map((tag) => [String(tag.name), tag.description]));
  for (const { label, operation } of operationsOf(doc)) {
    if (!filled(operation.summary)) findings.push(`${label}: no summary`);
    // The scope, membership and rate-limit lines are generated from the access rule: they do not count.
    const written = String(operation.description ?? '')
      .split('\n\n')
      .filter((part) => !/^\*\*(Scopes?|Who|Rate limit):\*\*/.test(part));
    if (!written.some(filled)) findings.push(`${label}: no description`);
    const tags = (operation.tags as string[] | undefined) ?? [];
    if (tags.length === 0) findings.push(`${label}: no tag`);
    for (const tag of tags)
      if (!filled(declared.get(tag))) findings.push(`${label}: tag ${tag} is not declared with a description`);
    // Operations under the document's security take a personal API key: they say which scope.
    const keyed = operation.security === undefined && Array.isArray(doc.security) && doc.security.length > 0;
    if (keyed && !/\*\*Scopes?:\*\*/.test(String(operation.description ?? '')))
      findings.push(`${label}: does not state its scope`);
    for (const parameter of (operation.parameters as Json[] | undefined) ?? [])
      findings.push(...parameterFindings(label, deref(doc, parameter)));
    findings.push(...bodyFindings(doc, label, operation));
    for (const [status, value] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
      const response = deref(doc, value);
      if (!filled(response.description) || response.description === 'Default Response')
        findings.push(`${label}: ${status} has no description`);
      if (status.startsWith('2'))
        findings.push(
          ...successFindings(doc, label, status, response),
          ...pagingFindings(doc, label, operation, response),
        );
    }
  }
  for (const [name, schema] of Object.entries(
    ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>,
  )) {
    if (!filled(schema.description)) findings.push(`schema ${name}: no description`);
  }
  return findings;
}

/** The example of a parameter, wherever the document put it. */
export function parameterExample(parameter: Json): unknown {
  if (parameter.example !== undefined) return parameter.example;
  const examples = parameter.examples;
  if (isObject(examples)) return (Object.values(examples)[0] as Json | undefined)?.value;
  const schema = isObject(parameter.schema) ? parameter.schema : {};
  return Array.isArray(schema.examples) ? schema.examples[0] : schema.example;
}
