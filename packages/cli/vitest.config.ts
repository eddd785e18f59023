import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Every file drives the built CLI with its own tmux server and worktrees: one file at a
    // time keeps a two-core machine from turning timing into flakiness.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
