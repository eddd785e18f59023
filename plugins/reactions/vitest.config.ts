import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every monitor pass runs the stand-in gh (a node process) a few times: slow on a busy 2-core machine.
    testTimeout: 60_000,
  },
});
