import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.herd/**', 'coverage/**', 'console/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', performance: 'readonly', fetch: 'readonly', Blob: 'readonly', Response: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', URLSearchParams: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    // Migrations are frozen in time and typed against no schema.
    files: ['src/db/migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/cli/**', 'bench/**', 'bin/**', 'test/**', 'console/build.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // The console runs in the browser, and everything it shows may come from a tracked site's
    // visitors: markup is never built from strings.
    files: ['console/src/**'],
    languageOptions: {
      globals: { window: 'readonly', document: 'readonly', location: 'readonly', sessionStorage: 'readonly', addEventListener: 'readonly', removeEventListener: 'readonly', ResizeObserver: 'readonly', HTMLElement: 'readonly', HTMLDivElement: 'readonly', Event: 'readonly' },
    },
    rules: {
      'no-restricted-properties': ['error',
        { property: 'innerHTML', message: 'Render captured values as text.' },
        { property: 'outerHTML', message: 'Render captured values as text.' },
        { property: 'insertAdjacentHTML', message: 'Render captured values as text.' },
        { object: 'document', property: 'write', message: 'Render captured values as text.' },
        { object: 'localStorage', message: 'The key lives in sessionStorage only.' },
      ],
      'no-restricted-syntax': ['error', { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render captured values as text.' }],
    },
  },
);
