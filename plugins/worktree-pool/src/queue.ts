import { isHeld, isOrangeError, type Logger } from '@orange/core';
import type { PoolParts } from './pool-parts.js';
import { busyWorktrees } from './reservation.js';

// The queue: tasks waiting in their workflow's initial status for a worktree, started oldest first
// whenever one frees (spawn_next, a release, every gc).

/**
 * Starts the project's queued tasks (its workflow's initial status), oldest first, while the pool
 * has room for them; returns the ids started. A task someone else started, changed, removed or
 * is moving meanwhile is skipped; a veto of one task (a plugin's) does not hold up the others.
 */
export async function startQueued(parts: PoolParts, project: string, options: { readonly log?: Logger; readonly except?: string; readonly announce?: boolean } = {}): Promise<string[]> {
  const { log = parts.log, except } = options;
  const { tasks } = await parts.orange.store.list(project);
  // Each task waits in its own workflow's initial status.
  const initial = await Promise.all(tasks.map(async (t) => t.meta.status === (await parts.orange.workflowFor(t.meta)).initial));
  const waiting = tasks
    .filter((t, i) => initial[i] && t.meta.id !== except)
    .sort((a, b) => a.meta.created_at.localeCompare(b.meta.created_at) || a.meta.id.localeCompare(b.meta.id));
  // A task put aside (--no-spawn) is not in the queue: only `orange task spawn` starts it.
  const held = await Promise.all(waiting.map(async (t) => isHeld(await parts.orange.store.history(project, t.meta.id))));
  const queue = waiting.filter((_, i) => !held[i]);
  if (queue.length === 0) {
    // Asked for by a move (spawn_next), an empty queue is worth a line; on every monitor pass it is not.
    if (options.announce) log.info('no pending task to spawn', { project });
    return [];
  }
  const started: string[] = [];
  for (const next of queue) {
    if (!(await hasRoom(parts, project))) {
      log.info('pending tasks wait for a worktree', { project, waiting: queue.length - started.length });
      break;
    }
    try {
      await parts.orange.engine.spawn({ project, id: next.meta.id });
      started.push(next.meta.id);
      log.info('spawned next pending task', { project, task: next.meta.id, ...(except ? { after: except } : {}) });
    } catch (error) {
      // By code, not instanceof: the engine may come from another copy of @orange/core (the CLI's bundle).
      if (isOrangeError(error) && ['E_VETOED', 'E_NOT_ALLOWED', 'E_TASK_NOT_FOUND', 'E_LOCKED', 'E_TAMPERED'].includes(error.code)) {
        log.info('skipping pending task', { project, task: next.meta.id, reason: error.message });
        continue;
      }
      throw error;
    }
  }
  return started;
}

/** True when a task of `project` could be given a worktree now (as `reserve` would decide, without binding one). */
async function hasRoom(parts: PoolParts, project: string): Promise<boolean> {
  const size = (await parts.orange.projects.get(project)).pool_size;
  const mine = (await parts.file.read()).workspaces.filter((e) => e.project === project);
  const unheld = mine.filter((e) => e.task === null);
  if (mine.length - unheld.length >= size) return false;
  if (mine.length < size) return true;
  const busy = await busyWorktrees(parts, unheld);
  return unheld.some((e) => !busy.has(e.path));
}
