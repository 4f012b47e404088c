/** Jest runs the TypeScript sources as native ES modules, compiled by SWC. */
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' }, experimental: { keepImportAttributes: true } }, module: { type: 'es6' } },
];

const project = (name, extra = {}) => ({
  displayName: name,
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  ...extra,
});

/** A DynamoDB Local per Jest worker for the run, each test file a table of its own on its worker's (test/support/shared-dynamodb.js). */
const sharedDynamoDb = {
  globalSetup: '<rootDir>/test/support/shared-dynamodb-setup.js',
  globalTeardown: '<rootDir>/test/support/shared-dynamodb-teardown.js',
};

export default {
  // Integration and end-to-end tests start real servers (DynamoDB Local, anvil) on a shared machine.
  testTimeout: 120_000,
  projects: [project('unit'), project('infra'), project('integration', sharedDynamoDb), project('e2e', sharedDynamoDb)],
};
