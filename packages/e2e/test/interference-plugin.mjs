// Test-only plugins that force an interleaving the end-to-end tests need to see: they run inside
// the real `orange` processes (loaded from the sandbox's orange.config.mjs), on real tmux, worktrees
// and a bare origin. Nothing here ships.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * In `orange monitor` processes only: a listing of one project's tasks waits while
 * `<dir>/hold-<project>` exists, after writing `<dir>/held-<project>` (so the test knows the pass
 * got there). The pass itself lists every project; the worktree clean-up (the pool's gc) reads the
 * pool first, then lists the project whose worktrees it looks at: holding that listing lets a
 * merge run in between.
 */
export function holdMonitorListing({ dir }) {
  return {
    name: 'test-hold-monitor-listing',
    apply(orange) {
      if (!process.argv.includes('monitor')) return;
      const store = orange.store;
      const list = store.list.bind(store);
      store.list = async (project) => {
        if (project !== undefined && existsSync(join(dir, `hold-${project}`))) {
          writeFileSync(join(dir, `held-${project}`), String(process.pid));
          const deadline = Date.now() + 60_000;
          while (existsSync(join(dir, `hold-${project}`)) && Date.now() < deadline) await sleep(20);
        }
        return list(project);
      };
    },
  };
}

/** An action that takes `ms` before the real one runs on the move `from → to`: a loaded machine, on demand. */
export function slowAction({ action, from, to, ms }) {
  return {
    name: 'test-slow-action',
    apply(orange) {
      orange.hooks.actions.for(action).tapPromise({ name: 'test-slow-action', stage: -10 }, async (ctx) => {
        if (ctx.from === from && ctx.to === to) await sleep(ms);
      });
    },
  };
}
