/** Jest runs the TypeScript sources as native ES modules, compiled by SWC. */
const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }];

const project = (name, extra = {}) => ({
  displayName: name,
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  ...extra,
});

export default {
  projects: [
    project('unit'),
    project('infra'),
    project('integration', { testTimeout: 60_000 }),
    project('e2e', { testTimeout: 120_000 }),
  ],
};
