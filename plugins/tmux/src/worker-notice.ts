import type { TaskMeta } from '@orange/core';

/**
 * The one-line message typed into the worker's window after a status change. One line, because
 * a newline would submit a half-typed message in most agent TUIs.
 */
export function workerNotice(
  from: string | null,
  to: string,
  task: Pick<TaskMeta, 'review_round'>,
  move: { readonly cause?: string; readonly reason?: string } = {},
): string {
  if (from === 'agent-review' && to === 'working') {
    return `[orange] Review round ${task.review_round} FAILED. Read ## Review in TASK.md, fix every issue, commit, update ## Handoff, then run: orange task update --status agent-review`;
  }
  if (from === 'agent-review' && to === 'reviewing') {
    return '[orange] Review PASSED; the task now waits for a human (status reviewing). Nothing more to do unless a human asks for changes.';
  }
  if (from === 'reviewing' && to === 'working' && move.cause === 'auto') {
    // Orange moved it (a pull request reaction: CI failed, a reviewer asked for changes): saying a
    // human did would send the worker looking for notes nobody wrote.
    return `[orange] Back to working: ${move.reason ?? 'Orange moved the task'}. Read TASK.md (## Feedback, ## Review and ## Notes), make the changes, commit, update ## Handoff, then run: orange task update --status agent-review`;
  }
  if (from === 'reviewing' && to === 'working') {
    return '[orange] A human requested changes (status working). Read TASK.md (## Review and ## Notes), make the changes, commit, update ## Handoff, then run: orange task update --status agent-review';
  }
  if (to === 'stuck') {
    return '[orange] The task is STUCK (review failed twice or repeated crashes). Read ## Review, ## Plan and ## Handoff in TASK.md, summarize what went wrong for the human, and wait for their input before changing anything.';
  }
  return `[orange] Task status is now ${to}. Read TASK.md and continue accordingly.`;
}
