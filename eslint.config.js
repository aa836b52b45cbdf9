// ESLint (flat config) over every JS file of the repository: `npm run lint`
// (scripts/lint.sh), which `npm run test:quick` and `npm test` run too.
// eslint:recommended, plus a few rules that catch real mistakes here; the
// globals follow where each file runs (browser, Node, or both for web/lib,
// which the package ships to both).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['dist/**', 'node_modules/**', 'fuzz/**', 'tests/golden/**'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2025, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': ['error', { destructuring: 'all', ignoreReadBeforeAssign: true }],
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-eval': 'error',
      'no-extend-native': 'error',
    },
  },
  // Ships to browsers and Node alike.
  { files: ['web/lib/**/*.js'], languageOptions: { globals: { ...globals.browser, ...globals.node } } },
  // The widgets and the tutorial run in the page.
  { files: ['web/widgets/**/*.js', 'web/site/**/*.js', 'bench/bare-chart/**/*.js'], languageOptions: { globals: globals.browser } },
  // Node scripts and tests; the browser tests and bench/site.mjs pass functions into the page (page.evaluate).
  { files: ['bin/**', 'scripts/**', 'bench/**', 'tests/**', 'examples/**', 'eslint.config.js'], languageOptions: { globals: globals.node } },
  // tests/jsdom/: Vitest files run in its jsdom environment (a window and a document).
  { files: ['tests/browser/**', 'tests/jsdom/**', 'bench/site.mjs'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
];
