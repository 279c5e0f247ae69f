// One Jest run, four projects selected by file suffix (see HOUSE-STYLE.md):
// unit (pure deciders), contract (port suites per adapter), int (Nest/HTTP on embedded drivers), e2e (whole platform);
// e2e-split runs the e2e specs listed in split-suite.js again, against the split topology (one process per service).
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);
const swcrc = JSON.parse(require('fs').readFileSync(`${__dirname}/.swcrc`, 'utf8'));
delete swcrc.$schema;

const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.unit.spec.ts'] },
    { ...base, displayName: 'contract', testMatch: ['<rootDir>/{apps,libs}/**/*.contract.spec.ts'] },
    {
      ...base,
      displayName: 'int',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int.spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/tools/jest/slow-test-timeout.js'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{apps,libs}/**/*.e2e.spec.ts'],
      globalSetup: '<rootDir>/tools/jest/build-platform.js',
      setupFilesAfterEnv: ['<rootDir>/tools/jest/slow-test-timeout.js'],
    },
    {
      ...base,
      displayName: 'e2e-split',
      testMatch: require('./apps/platform/src/testing/split-suite.js').ported.map(
        (spec) => `<rootDir>/${spec}`,
      ),
      globalSetup: '<rootDir>/tools/jest/build-platform.js',
      setupFilesAfterEnv: [
        '<rootDir>/tools/jest/slow-test-timeout.js',
        '<rootDir>/tools/jest/split-topology.js',
      ],
    },
  ],
};
