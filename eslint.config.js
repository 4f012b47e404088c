import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import jestPlugin from 'eslint-plugin-jest';
import { readdirSync } from 'node:fs';

/** One Lambda per folder of functions/: none may import another. */
const FUNCTION_FOLDERS = readdirSync('functions', { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'cdk.out/**',
      '.local/**',
      'contracts/build/**',
      'clients/typescript/dist/**',
      '**/*.js',
      '!eslint.config.js',
      '!jest.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-ignore': true, 'ts-expect-error': 'allow-with-description' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['test/**/*.ts'],
    plugins: { jest: jestPlugin },
    rules: {
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/expect-expect': 'error',
    },
  },
  // zod's named `z` (and its default) is the whole namespace object: a bundle keeps all of zod with it, every locale
  // included; `import * as z` keeps only what the module uses.
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)",
          message: "Use import * as z from 'zod' (bundles keep only what is used).",
        },
      ],
    },
  },
  // Imports point one way (DESIGN section 2): functions -> usecases -> domain; store, chain, queue and the other
  // adapters implement the use cases' ports (type imports of them); shared/runtime wires; nothing shipped imports
  // infra/, test/, bench/ or scripts/. One block per layer: a later block's rule would replace an earlier one's.
  {
    files: ['shared/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../*', '!./*', '@aws-sdk/*', 'aws-cdk-lib', 'node:*'], message: 'shared/domain is pure: it imports only itself (no I/O, no AWS).' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/usecases/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            // Adapters implement the ports the use cases declare, so they sit above them: not even a type comes back down.
            {
              group: ['**/store/**', '**/chain/**', '**/config/config.js', '**/queue/**', '**/webhooks/*.js', '!**/usecases/webhooks/*.js'],
              message: 'Use cases declare their ports and import no adapter (store, chain, queue, senders) or configuration: shared/runtime wires them.',
            },
            // SDKs are adapters' business: a use case may name their types, never hold their values (encoding call data,
            // building a transaction, a client call go through a port whose adapter is in shared/chain).
            {
              group: ['ethers', 'ethers/*', 'tronweb', 'tronweb/*', '@solana/*', '@aws-sdk/*'],
              allowTypeImports: true,
              message: 'No SDK value in a use case (ethers, tronweb, @solana/*, the AWS SDK): go through a port.',
            },
            {
              group: ['**/http/**', '**/runtime/**', '**/functions/**', '**/infra/**', '**/test/**', '**/bench/**', '**/scripts/**'],
              message: 'Use cases do not know the edge: HTTP, wiring, infrastructure.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'shared/store/**/*.ts',
      'shared/chain/**/*.ts',
      'shared/queue/**/*.ts',
      'shared/webhooks/**/*.ts',
      'shared/rates/**/*.ts',
      'shared/security/**/*.ts',
      'shared/net/**/*.ts',
      'shared/observability/**/*.ts',
      'shared/config/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/usecases/**'],
              allowTypeImports: true,
              message: "Adapters implement ports: they may import the use cases' port types, never their code.",
            },
            {
              group: ['**/http/**', '**/runtime/**', '**/functions/**', '**/infra/**', '**/test/**', '**/bench/**', '**/scripts/**'],
              message: 'Adapters do not know the edge or the wiring.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/http/**/*.ts', 'shared/runtime/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/functions/**', '**/infra/**', '**/test/**', '**/bench/**', '**/scripts/**'],
              message: 'Nothing shipped imports infra/, test/, bench/ or scripts/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['functions/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/store/**', '@aws-sdk/*'], allowTypeImports: true, message: 'Handlers reach the table through use cases and shared/runtime.' },
            {
              group: ['**/infra/**', '**/test/**', '**/bench/**', '**/scripts/**', ...FUNCTION_FOLDERS.map((f) => `../${f}/*`)],
              message: 'A function imports shared/ and its own folder: never another function, infra/ or test/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['bench/**/*.ts', 'infra/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/test/**'], message: 'Tests import tools, never the other way: move what both need out of test/.' }] },
      ],
    },
  },
);
