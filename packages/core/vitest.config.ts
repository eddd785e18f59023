import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Not the copies a mutation run (npm run mutation) keeps in its sandbox folders meanwhile.
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
