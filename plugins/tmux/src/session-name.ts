import type { AgentRole, TaskMeta } from '@orange/core';

/** Window every worker runs in. */
export const WORKER_WINDOW = 'worker';

/**
 * The tmux session for a task: `<project>/<task id>`. Built only from characters tmux takes
 * literally everywhere: a branch name (which git lets contain `$`, `;`, `#`, quotes, `%`, `{}`)
 * would be escaped by tmux when stored (`feat$x` becomes `feat\$x`) or split as a command
 * (`fix;`), so targeting it could miss. Task ids are `[0-9A-Za-z]`; project names add `.`, `_`
 * and `-`, and tmux refuses `.` (and `:`) in session names, so those become `_`.
 */
export function sessionName(task: Pick<TaskMeta, 'project' | 'id'>): string {
  return `${task.project}/${task.id}`.replace(/[.:]/g, '_');
}

/** The session a task's agents live in now: the recorded one (kept from spawn time), else the computed one. */
export function taskSession(task: Pick<TaskMeta, 'project' | 'id' | 'tmux_session'>): string {
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
