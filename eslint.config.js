import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code is replayed; it must be deterministic, so it may not touch Node built-ins or I/O.
const banned = [
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
  'undici', 'postgres', '@electric-sql/pglite', 'drizzle-orm', 'minio', 'exceljs', 'csv-stringify', 'hono', 'ws',
  '@temporalio/activity', '@temporalio/worker', '@temporalio/client',
];

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', 'data/', 'dist/', 'console/dist/', 'client/dist/', '.scratch/', 'db/migrations/', '.bench/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read API JSON loosely on purpose: the assertions are the type check.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly' } },
  },
  {
    files: ['workflows/**/*.ts', 'model/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: banned.map((name) => ({ name, message: 'workflows must stay deterministic: do I/O in an activity' })),
          patterns: [{ group: ['**/activities/**', '**/db/**', '**/api/**', '**/app/**', '**/domain/**', '**/platform/**'], message: 'workflows import only model/ (the layering is checked by dependency-cruiser too)' }],
        },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports' }],
      'no-restricted-globals': ['error', { name: 'setTimeout', message: 'use sleep() from @temporalio/workflow' }, { name: 'fetch', message: 'do I/O in an activity' }],
    },
  },
);
