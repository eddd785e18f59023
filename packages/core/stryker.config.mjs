// Mutation testing of the core's decisions (`npm run mutation`, docs/testing.md): the engine, the
// task store and the workflows with their guards and gates. StrykerJS 9 (10 needs Node 22) runs
// the package's own vitest tests against each mutant, only the tests that cover it.
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: ['src/engine/**/*.ts', 'src/store/**/*.ts', 'src/workflow/**/*.ts', '!src/**/*.test.ts'],
  coverageAnalysis: 'perTest',
  // Static mutants (constants read at load time) need every test run again for each: hours more.
  ignoreStatic: true,
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  thresholds: { high: 80, low: 60, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
