import type { PullRequestCheck, PullRequestFeedback } from '../plugin/index.js';
import type { PullRequestState, Scm } from '../plugin/index.js';
import type { Project } from '../store/index.js';
import type { Task } from '../task/index.js';

/** A task's pull request as it was read (by a monitor pass, `R`, or the dashboard): its state, and an open one's checks. */
export interface PullRequestReading {
  readonly task: string;
  readonly url: string;
  /** Null when the SCM found none. */
  readonly state: PullRequestState | null;
  /** The checks of an open pull request; null when it is not open or the SCM does not read them. */
  readonly checks: readonly PullRequestCheck[] | null;
}

/**
 * Reads a task's pull request with one SCM call: its feedback, which carries the state, where the
 * SCM reads feedback; else its state alone.
 */
export async function readPullRequest(scm: Scm, task: Pick<Task, 'meta'>, project: Project): Promise<{ state: PullRequestState | null; feedback: PullRequestFeedback | null }> {
  if (!scm.pullRequestFeedback) return { state: await scm.pullRequestState(task, project), feedback: null };
  const feedback = await scm.pullRequestFeedback(task, project);
  return { state: feedback?.state ?? null, feedback };
}

/** What a read says for the task's row: the state, and the checks only while it is open. */
export function pullRequestReading(task: Pick<Task, 'meta'>, state: PullRequestState | null, feedback: PullRequestFeedback | null): PullRequestReading {
  return { task: task.meta.id, url: task.meta.pr_url ?? feedback?.url ?? '', state, checks: state === 'open' && feedback ? feedback.checks : null };
}
