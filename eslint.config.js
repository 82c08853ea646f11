import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers of src/, highest first (docs/architecture.md). A file may import its own layer and any
// layer below it, never one above: each layer's block forbids the folders of every layer above it.
// `pattern` matches a relative import that lands in the layer, from anywhere in src/.
const LAYERS = [
  {
    name: 'entry points (server.ts, fleet.ts, app.ts, cli/)',
    files: ['src/server.ts', 'src/fleet.ts', 'src/app.ts', 'src/cli/**'],
    pattern: '(cli/|server\\.ts$|fleet\\.ts$|app\\.ts$)',
  },
  { name: 'http/', files: ['src/http/**'], pattern: 'http/' },
  { name: 'jobs/', files: ['src/jobs/**'], pattern: 'jobs/' },
  { name: 'query/', files: ['src/query/**'], pattern: 'query/' },
  { name: 'analytics/', files: ['src/analytics/**'], pattern: 'analytics/' },
  { name: 'modules/', files: ['src/modules/**'], pattern: 'modules/' },
  { name: 'ingestion/', files: ['src/ingestion/**'], pattern: 'ingestion/' },
  {
    name: 'filters/',
    files: ['src/filters/**'],
    pattern: 'filters/',
    // Parse and compile only: whatever needs the database (cohort lookups) is resolved above.
    also: [
      {
        regex: '^\\.\\./db/database\\.ts$',
        message: 'filters/ holds no database access; resolve what needs it in the cohorts module.',
      },
    ],
  },
  // The HogQL front end: text → tree → SQL, pure (no database, no other layer but the base).
  { name: 'hogql/', files: ['src/hogql/**'], pattern: 'hogql/' },
  { name: 'wire/', files: ['src/wire/**'], pattern: 'wire/' },
  { name: 'deps.ts', files: ['src/deps.ts'], pattern: 'deps\\.ts$' },
  { name: 'db/', files: ['src/db/**'], pattern: 'db/' },
  {
    name: 'the base (errors, config, log, json-shape, utc-date)',
    files: ['src/errors.ts', 'src/config.ts', 'src/log.ts', 'src/json-shape.ts', 'src/utc-date.ts'],
    pattern: null,
  },
];

const relativeInto = (pattern) => `^\\.\\.?/(\\.\\./)*${pattern}`;

// Only the HTTP layer (and the entry points that build it) may know Fastify.
const FASTIFY = {
  group: ['fastify', '@fastify/*'],
  message: 'Fastify belongs to http/: modules and the layers below take plain values.',
};

function forbiddenFor(index) {
  const layer = LAYERS[index];
  const patterns = LAYERS.slice(0, index).map((higher) => ({
    regex: relativeInto(higher.pattern),
    message: `${layer.name} sits below ${higher.name} and may not import it (docs/architecture.md, "Layers").`,
  }));
  return [...patterns, ...(index > 1 ? [FASTIFY] : []), ...(layer.also ?? [])];
}

const restrict = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });

const layerRules = LAYERS.map((layer, index) => restrict(layer.files, forbiddenFor(index)));

// Route files are imported by routes/index.ts; importing it back would make a circle. (A later block
// replaces the rule's options, so it repeats the http/ layer's own.)
const ROUTE_INDEX = { regex: '^\\./index\\.ts$', message: 'Take App and RouteModule from ../route-module.ts.' };
const routeRules = restrict(['src/http/routes/*.routes.ts'], [...forbiddenFor(1), ROUTE_INDEX]);

export default tseslint.config(
  { ignores: ['node_modules/**', '.herd/**', 'coverage/**', 'console/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        Blob: 'readonly',
        Response: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  ...layerRules,
  routeRules,
  {
    // Migrations are frozen in time: typed against no schema, importing nothing of the app.
    files: ['src/db/migrations/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\.\\./', message: 'A migration imports nothing of the app (it must run the same in a year).' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**', 'bench/**', 'bin/**', 'test/**', 'scripts/**', 'console/build.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // The console runs in the browser, and everything it shows may come from a tracked site's
    // visitors: markup is never built from strings.
    files: ['console/src/**'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        sessionStorage: 'readonly',
        addEventListener: 'readonly',
        removeEventListener: 'readonly',
        ResizeObserver: 'readonly',
        HTMLElement: 'readonly',
        HTMLDivElement: 'readonly',
        Event: 'readonly',
      },
    },
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Render captured values as text.' },
        { property: 'outerHTML', message: 'Render captured values as text.' },
        { property: 'insertAdjacentHTML', message: 'Render captured values as text.' },
        { object: 'document', property: 'write', message: 'Render captured values as text.' },
        { object: 'localStorage', message: 'The key lives in sessionStorage only.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render captured values as text.' },
      ],
    },
  },
);
