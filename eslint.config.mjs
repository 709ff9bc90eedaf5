// Lint: typescript-eslint's type-aware rules over every TypeScript file (sources and tests, one
// program from tsconfig.test.json), the plain JavaScript rules over the scripts, and Prettier's
// config last so that formatting is left to Prettier alone.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/', '**/node_modules/', 'data/', 'services/gateway/public/', 'openapi/'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Rows from knex and answers of broker.call are `any` until the query or the call names
      // their type; this code names it by asserting the awaited result, which is exactly what the
      // rule's "type arguments may be inferred" check flags, so that check stays off. The no-unsafe
      // family waits for rows typed at the query (knex's table type map), not at each read.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      // A leading underscore names what a destructuring leaves out on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read JSON answers whose shape is the thing under test: `expect` checks them, so an
    // `any` body there is the point rather than a hole in the types.
    files: ['**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // shared is the ground floor: it loads no service, not even by a name made at run time
    // (the import graph's rules, .dependency-cruiser.cjs, see only the imports written out).
    files: ['shared/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@hub/*'], message: 'shared imports no service' }] }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='require'][arguments.0.type='TemplateLiteral']",
          message: 'shared loads no module by a name made at run time',
        },
        {
          selector: "CallExpression[callee.property.name='resolve'][arguments.0.type='TemplateLiteral']",
          message: 'shared loads no module by a name made at run time',
        },
        { selector: 'ImportExpression', message: 'shared loads no module by a name made at run time' },
        {
          selector: "CallExpression[callee.name='require'] > Literal[value=/^@hub\\u002F/]",
          message: 'shared imports no service',
        },
      ],
    },
  },
  {
    // A migration is forward-only and self-contained: what it does is fixed when it is written, so
    // it imports nothing of the project (another migration, its service's code, @hub packages),
    // whose later changes would change what an old migration does. Its SQL sits beside it.
    files: ['services/*/src/migrations/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.{1,2}(/|$)|@hub/)',
              message: 'A migration imports nothing of the project: write what it does in it, or in SQL beside it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { 'no-unused-vars': ['error', { ignoreRestSiblings: true }] },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
  prettier,
);
