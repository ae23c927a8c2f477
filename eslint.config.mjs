// ESLint over the hand-written JavaScript (scripts/test.sh, `npm run lint`): `@eslint/js`'s
// recommended rules, over the package, its scripts and tests, the benchmark, the demo page and
// the examples (JSX included). Build outputs (pkg/, written by scripts/build.sh) are ignored; the modules
// they come from are linted instead.
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: [
      'node_modules/', 'pkg/', 'target/', 'docs/', '.tmp/', '**/dist/', 'www/vendor/',
      // The consumer projects are the npm tarball's users, checked by their own compilers.
      'tests/consumers/fixtures/',
    ],
  },
  js.configs.recommended,
  {
    rules: {
      // A leading `_` names a parameter or binding kept for its position (a callback's signature).
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2025, sourceType: 'module', globals: { ...globals.browser, ...globals.node } },
  },
  {
    // The examples' React components (JSX; ESLint's own parser, no React plugin).
    files: ['**/*.jsx'],
    languageOptions: {
      ecmaVersion: 2025, sourceType: 'module', globals: { ...globals.browser },
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { ecmaVersion: 2025, sourceType: 'commonjs', globals: { ...globals.node } },
  },
  // Rooms sized for reading, as in the Rust half: no hand-written module over 700 code lines,
  // no function over 120 (blank lines and comments not counted). The tests are left out: a
  // suite's wrapper and a scripted end-to-end run read best whole.
  {
    files: ['js/**', 'src/**', 'scripts/**', 'bench/**', 'www/*.mjs', 'examples/**'],
    rules: {
      'max-lines': ['error', { max: 700, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
];
