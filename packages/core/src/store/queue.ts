import type { HistoryEvent } from './history.js';

/**
 * True for a task that waits in its initial status because a person put it aside (`task create
 * --no-spawn`), not for a worktree: nothing starts it but `orange task spawn`. A task created to
 * start now, or asked to start since (`task.queued`), is in the queue a freed worktree takes from.
 */
export function isHeld(history: readonly HistoryEvent[]): boolean {
  let held = false;
  for (const event of history) {
    if (event.type === 'task.created') held = event.held === true;
    else if (event.type === 'task.queued') held = false;
  }
  return held;
}
