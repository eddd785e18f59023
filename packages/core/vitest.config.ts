import { defineConfig } from 'vitest/config';

// A mutation run of one part (docs/testing.md) tests it with that folder's own tests.
const part = process.env.ORANGE_MUTATION_PART;

export default defineConfig({
  test: {
    // Not the copies a mutation run keeps in its sandbox folders meanwhile.
    include: part ? [`src/${part}/**/*.test.ts`] : ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
