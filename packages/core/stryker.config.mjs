// Mutation testing of the core's decisions (`npm run mutation`, docs/testing.md): the engine, the
// task store and the workflows with their guards and gates. StrykerJS 9 (10 needs Node 22) runs
// the package's own vitest tests against each mutant, only the tests that cover it.
//
// ORANGE_MUTATION_PART=engine|store|workflow runs one folder against that folder's own tests
// (vitest.config.ts reads the same variable): a lower bound of its score, since other folders'
// tests may kill more, in a fraction of the time — the engine's and the store's code is covered by
// nearly every core test, and a surviving mutant reruns every test that covers it.
const PARTS = ['engine', 'store', 'workflow'];
const part = process.env.ORANGE_MUTATION_PART || undefined;
if (part !== undefined && !PARTS.includes(part)) {
  throw new Error(`ORANGE_MUTATION_PART must be one of ${PARTS.join(', ')}, not "${part}"`);
}
const report = `reports/mutation/${part ?? 'core'}`;

export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: part ? [`src/${part}/**/*.ts`, '!src/**/*.test.ts'] : ['src/engine/**/*.ts', 'src/store/**/*.ts', 'src/workflow/**/*.ts', '!src/**/*.test.ts'],
  coverageAnalysis: 'perTest',
  // Static mutants (constants read at load time) need every test run again for each: hours more.
  ignoreStatic: true,
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: `${report}.json` },
  htmlReporter: { fileName: `${report}.html` },
  thresholds: { high: 80, low: 60, break: null },
  // One sandbox folder per part, so that two parts can run side by side; none copies another's.
  tempDirName: `.stryker-tmp-${part ?? 'core'}`,
  ignorePatterns: ['.stryker-tmp*', 'reports'],
  cleanTempDir: 'always',
};
