import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each test runs real tmux panes, agents' exit wrappers (node), git and a stand-in gh (node) a few
    // times per monitor pass: slow on a busy 2-core machine.
    testTimeout: 60_000,
    // A cleanup waits (10 s at most) for the box's tmux server, agents and wrappers to exit.
    hookTimeout: 30_000,
    // The files wait on child processes most of the time: two at once, even on 2 cores.
    maxWorkers: 2,
  },
});
