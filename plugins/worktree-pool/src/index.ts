import { definePlugin, type OrangePlugin } from '@orange/core';
import { parseWorktreePoolOptions, type WorktreePoolOptionsInput } from './options.js';
import { PLUGIN_NAME, WorktreePool } from './worktree-pool.js';

export { WorktreePoolOptionsSchema, type WorktreePoolOptions, type WorktreePoolOptionsInput } from './options.js';
export { PoolStateSchema, PoolEntrySchema, type PoolState, type PoolEntry } from './pool-file.js';
export { WorktreePool } from './worktree-pool.js';

/**
 * The workspace provider: a per-project pool of git worktrees. Provides the `workspaces` slot and
 * the actions `acquire_workspace`, `release_workspace` and `spawn_next`; vetoes a transition
 * that needs a worktree when the project's pool is exhausted; keeps each worktree's TASK.md link
 * right before an agent starts (`agentCommand`).
 */
export function worktreePool(options: WorktreePoolOptionsInput = {}): OrangePlugin {
  const parsed = parseWorktreePoolOptions(options);
  return definePlugin({
    name: PLUGIN_NAME,
    apply(orange) {
      const pool = new WorktreePool(orange, parsed);
      orange.provide('workspaces', pool);
      // A late stage: reserve only after every other plugin had its chance to veto, so a veto
      // after ours can never strand a reservation.
      orange.hooks.beforeTransition.tapPromise({ name: PLUGIN_NAME, stage: 100 }, (event) => pool.reserveForTransition(event));
      orange.hooks.actions.for('acquire_workspace').tapPromise(PLUGIN_NAME, (ctx) => pool.acquire(ctx));
      orange.hooks.actions.for('release_workspace').tapPromise(PLUGIN_NAME, (ctx) => pool.release(ctx));
      orange.hooks.actions.for('spawn_next').tapPromise(PLUGIN_NAME, (ctx) => pool.spawnNext(ctx));
      // Early: the link is right before a runtime plugin wraps the command (a container mounts what it names).
      orange.hooks.agentCommand.tapPromise({ name: PLUGIN_NAME, stage: -100 }, async (command, event) => {
        await pool.relinkBeforeStart(event.task.meta);
        return command;
      });
    },
  });
}
