// A typical orange.config.ts: the built-in plugins stay on (tmux, worktree-pool, claude, codex,
// command, github); this file only changes what it names.
import { defineConfig } from '@orange/core';
import { claude } from '@orange/harness-claude';
import { command } from '@orange/harness-command';
import { transitionLog } from '@orange/example-custom-hook-plugin';

export default defineConfig({
  plugins: [
    // Same name as the built-in `claude` plugin, so it replaces it: workers run on Sonnet.
    claude({ model: 'sonnet' }),
    // A second harness for any CLI agent; pick it per task with `orange task create --harness aider`.
    command({ name: 'aider', worker: ['aider', '--yes-always', '--message', '{prompt}'] }),
    // Every transition, auto-advance and failed action, as JSON lines in $ORANGE_HOME/transitions.jsonl.
    transitionLog({ file: 'transitions.jsonl' }),
  ],
  harness: 'claude',
  reviewHarness: 'claude',
  workflow: 'default',
  poolSize: 3,
  logLevel: 'info',
});
