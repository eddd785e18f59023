import type { AgentRole, TaskMeta } from '@orange/core';

/** Window every worker runs in. */
export const WORKER_WINDOW = 'worker';

/**
 * The tmux session for a task: `<project>/<branch>`. tmux refuses `.` and `:` in session names
 * (they separate window and pane in targets), so both become `_`.
 */
export function sessionName(task: Pick<TaskMeta, 'project' | 'branch'>): string {
  return `${task.project}/${task.branch}`.replace(/[.:]/g, '_');
}

/** The session a task's agents live in now: the recorded one (survives a branch rename), else the computed one. */
export function taskSession(task: Pick<TaskMeta, 'project' | 'branch' | 'tmux_session'>): string {
  return task.tmux_session ?? sessionName(task);
}

/** The window of an agent: `worker`, or `review-<review_round>` for the reviewer. */
export function windowName(task: Pick<TaskMeta, 'review_round'>, role: AgentRole): string {
  return role === 'worker' ? WORKER_WINDOW : `review-${task.review_round}`;
}

/** Exact session target: `=` stops tmux from prefix-matching `a/b` to `a/bc`. */
export function sessionTarget(session: string): string {
  return `=${session}`;
}

/** Exact window target; the second `=` stops `review-1` from matching `review-10`. */
export function windowTarget(session: string, window: string): string {
  return `=${session}:=${window}`;
}
