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

/**
 * The window of an agent: `worker`, or `review-<review_round>-<spawn>` for a reviewer. The spawn
 * id makes every reviewer's window its own, even in a workflow that never counts rounds: a new
 * reviewer never takes the name of one still being killed, and an exact target never hits the
 * wrong one. A reviewer's window is found by its spawn (`isReviewerWindow`), not rebuilt from
 * the round, which a workflow may change after the spawn.
 */
export function windowName(task: Pick<TaskMeta, 'review_round' | 'reviewer_spawn'>, role: AgentRole, spawn: string | null = task.reviewer_spawn): string {
  return role === 'worker' ? WORKER_WINDOW : `review-${task.review_round}-${spawn ?? 'none'}`;
}

const REVIEWER_WINDOW = /^review-\d+-([0-9A-Za-z]+)$/;

/** True for a reviewer's window: of the spawn `spawn`, or of any reviewer when `spawn` is null. */
export function isReviewerWindow(window: string, spawn: string | null): boolean {
  const match = REVIEWER_WINDOW.exec(window);
  return match !== null && (spawn === null || match[1] === spawn);
}

/** True when `window` is the window of the task's agent of `role` (any reviewer's when none is recorded). */
export function isAgentWindow(window: string, task: Pick<TaskMeta, 'reviewer_spawn'>, role: AgentRole): boolean {
  return role === 'worker' ? window === WORKER_WINDOW : isReviewerWindow(window, task.reviewer_spawn);
}

/** Exact session target: `=` stops tmux from prefix-matching `a/b` to `a/bc`. */
export function sessionTarget(session: string): string {
  return `=${session}`;
}

/** Exact window target; the second `=` stops `review-1` from matching `review-10`. */
export function windowTarget(session: string, window: string): string {
  return `=${session}:=${window}`;
}
