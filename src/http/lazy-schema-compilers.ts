// Fastify's own schema compilers (Ajv for validation, fast-json-stringify for responses), deferred
// to a route's first request. Fastify compiles every route's schemas while the app starts — about
// a third of a cold start's CPU, for well over a hundred routes (each GET twice, with its HEAD) of
// which a server answers a few; a route that is never asked for never pays. The compiled function
// is the same one Fastify would have built, so validation errors and output are unchanged. The
// compilers themselves wait for that first compile too: their packages (Ajv, fast-json-stringify,
// about 120 modules) are loaded then, and an Ajv instance (its formats, the meta-schema that checks
// each shared schema as it is added) is made then; at start they were 0.2–0.4 s of CPU.
import { createRequire } from 'node:module';
import type ajvCompiler from '@fastify/ajv-compiler';
import type serializerCompiler from '@fastify/fast-json-stringify-compiler';

// Synchronous: the first compile happens inside a request's validation or serialization.
const requireOnFirstCompile = createRequire(import.meta.url);

type ValidatorFactory = ReturnType<typeof ajvCompiler>;
type SerializerFactory = ReturnType<typeof serializerCompiler>;
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };

function deferredValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined;
  const real = () => (compiled ??= compile());
  const validate: Validate = (...args) => {
    const fn = real();
    const result = fn(...args);
    // Fastify reads the errors from the function it called, after the call.
    validate.errors = fn.errors;
    return result;
  };
  // Fastify hands Ajv's own functions the request as parent data (so coercion can write back).
  Object.defineProperty(validate, 'schemaEnv', { get: () => real().schemaEnv });
  return validate;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isEmptySchema = (value: unknown) => value === true || (isPlainObject(value) && Object.keys(value).length === 0);

/**
 * The schema with each free-form object (any keys, any values: captured properties) as a schema of
 * any value. fast-json-stringify writes such an object key by key, testing each against the
 * pattern: twice the time of JSON.stringify, which it uses for a schema of any value (a page of
 * 100 persons: 400 µs against 245). The JSON written is the same.
 */
export function freeFormAsAny(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(freeFormAsAny);
  if (!isPlainObject(schema)) return schema;
  const { type, properties, patternProperties, additionalProperties, ...rest } = schema;
  const patterns = isPlainObject(patternProperties) ? Object.entries(patternProperties) : [];
  const freeForm =
    type === 'object' &&
    (properties === undefined || isEmptySchema(properties)) &&
    rest.required === undefined &&
    (patterns.length === 0
      ? isEmptySchema(additionalProperties)
      : patterns.length === 1 &&
        patterns[0][0] === '^.*$' &&
        isEmptySchema(patterns[0][1]) &&
        additionalProperties === undefined);
  if (freeForm)
    return Object.fromEntries(Object.entries(rest).filter(([key]) => key === 'description' || key === 'title'));
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, freeFormAsAny(value)]));
}

/** Per app, as Fastify makes its own: each keeps a pool of compilers by shared schemas and options. */
export function lazySchemaCompilers(): { buildValidator: ValidatorFactory; buildSerializer: SerializerFactory } {
  let validators: ValidatorFactory | undefined;
  let serializers: SerializerFactory | undefined;
  const validatorsOf = () => (validators ??= (requireOnFirstCompile('@fastify/ajv-compiler') as typeof ajvCompiler)());
  const serializersOf = () =>
    (serializers ??= (requireOnFirstCompile('@fastify/fast-json-stringify-compiler') as typeof serializerCompiler)());
  // Fastify hands each factory a copy of its shared schemas: later additions reach a later call.
  const buildValidator: ValidatorFactory = (externalSchemas, options) => {
    let compilerOf: ((route: unknown) => Validate) | undefined;
    const compile = (route: unknown) =>
      (compilerOf ??= validatorsOf()(externalSchemas, options) as unknown as (route: unknown) => Validate)(route);
    return ((route: unknown) => deferredValidator(() => compile(route))) as unknown as ReturnType<ValidatorFactory>;
  };
  const buildSerializer: SerializerFactory = (externalSchemas, options) => {
    let compilerOf: ReturnType<SerializerFactory> | undefined;
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) =>
        (serialize ??= (compilerOf ??= serializersOf()(externalSchemas, options))({
          ...route,
          schema: freeFormAsAny(route.schema),
        }))(data);
    };
  };
  return { buildValidator, buildSerializer };
}
