import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import jestPlugin from 'eslint-plugin-jest';

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', '.local/**', 'contracts/build/**', '**/*.js', '!eslint.config.js', '!jest.config.js'] },
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
  {
    files: ['shared/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@aws-sdk/*', 'aws-cdk-lib', 'node:*', '../store/*', '../http/*', '../chain/*', '../usecases/*', '../queue/*'], message: 'shared/domain is pure: no I/O, no AWS.' }] }],
    },
  },
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: ['shared/domain/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/infra/local/**'], message: 'The Lambdas bundle shared/ and functions/: the local stack and its dev-only code stay out.' }] }],
    },
  },
  {
    files: ['bench/**/*.ts', 'infra/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/test/**'], message: 'Tests import tools, never the other way: move what both need out of test/.' }] }],
    },
  },
);
