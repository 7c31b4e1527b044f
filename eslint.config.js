import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettierConfig from 'eslint-config-prettier';

const hostModules = [
  'electron',
  'fs',
  'fs/promises',
  'path',
  'os',
  'child_process',
  'worker_threads',
  'net',
  'http',
  'https',
  'crypto',
  'stream',
  'readline',
  'better-sqlite3',
  'react',
  'react-dom',
  'zustand',
  'recharts',
];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test/fixtures/**', 'bench-results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Browser e2e specs run code inside the page through page.evaluate.
    files: ['test/e2e/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The engine is pure: no Electron, no Node built-ins, no DOM, no UI libraries.
    files: ['src/core/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: hostModules.map((name) => ({ name, message: 'src/core is pure: no host modules (see docs/architecture.md).' })),
          patterns: [
            { group: ['node:*'], message: 'src/core is pure: no Node built-ins (see docs/architecture.md).' },
            { group: ['**/main/**', '**/renderer/**', '**/preload/**', '**/cli/**'], message: 'src/core must not import from hosts.' },
            {
              group: ['**/shared/**'],
              message: 'src/core must not import the contract: it is built on the engine (view models live in src/core/view).',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'process', 'require', 'Buffer', 'navigator', 'localStorage', '__dirname'],
    },
  },
  // Last: switches off the stylistic rules the formatter owns (npm run lint runs prettier --check).
  prettierConfig,
);
