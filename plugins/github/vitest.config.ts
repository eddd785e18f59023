import { defineConfig } from 'vitest/config';

// Each test makes a bare origin, a clone and worktrees and runs real git merges: a few seconds on
// a busy 2-core machine, more than vitest's default 5 s (a clean-clone CI run timed two out).
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
