// A typical orange.config.ts: the built-in plugins stay on (tmux, worktree-pool, claude, codex,
// command, github); this file only changes what it names.
// It stands alone: the CLI provides @orange/* to a config, so nothing needs installing to copy it.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineConfig, definePlugin } from '@orange/core';
import { claude } from '@orange/harness-claude';
import { command } from '@orange/harness-command';

// A plugin of your own, inline: every transition as a JSON line in $ORANGE_HOME/transitions.jsonl.
// A fuller one, in a package of its own with options and tests: examples/custom-hook-plugin.
const transitionLog = definePlugin({
  name: 'transition-log',
  apply(orange) {
    const file = join(orange.paths.home, 'transitions.jsonl');
    orange.hooks.afterTransition.tapPromise('transition-log', async ({ task, from, to, cause }) => {
      await appendFile(file, `${JSON.stringify({ time: new Date().toISOString(), task: task.meta.id, from, to, cause })}\n`);
    });
  },
});

export default defineConfig({
  plugins: [
    // Same name as the built-in `claude` plugin, so it replaces it: workers run on Sonnet.
    claude({ model: 'sonnet' }),
    // A second harness for any CLI agent; pick it per task with `orange task create --harness aider`.
    command({ name: 'aider', worker: ['aider', '--yes-always', '--message', '{prompt}'] }),
    transitionLog,
  ],
  harness: 'claude',
  reviewHarness: 'claude',
  workflow: 'default',
  poolSize: 3,
  logLevel: 'info',
});
