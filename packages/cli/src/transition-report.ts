import { inlineText, type TransitionResult } from '@orange/core';

/** What a status change command prints and returns as JSON. */
export function transitionJson(result: TransitionResult): object {
  return { task: result.task.meta, from: result.from, to: result.to, changed: result.changed, failedHooks: result.failedHooks };
}

/** One safe line for people (a status is read from TASK.md), plus a warning when actions failed after the status was written. */
export function transitionLines(result: TransitionResult): string[] {
  const { id } = result.task.meta;
  const lines = [result.changed ? `task ${id}: ${result.from} → ${result.to}` : `task ${id}: already ${result.task.meta.status}`];
  if (result.failedHooks.length > 0) {
    lines.push(`warning: the status changed but ${result.failedHooks.join(', ')} failed; the task is flagged for attention (see orange log)`);
  }
  return lines.map(inlineText);
}
