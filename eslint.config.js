import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.herd/**', 'coverage/**'] },
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
    files: ['src/cli/**', 'bench/**', 'bin/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
);
