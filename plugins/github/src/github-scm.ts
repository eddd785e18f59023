import { existsSync } from 'node:fs';
import { OrangeError, type Logger, type MergeOptions, type Orange, type Project, type PullRequestState, type Scm, type Task } from '@orange/core';
import { GhCli } from './gh.js';
import { Git, lastLine } from './git.js';
import { mergeLocally } from './local-merge.js';
import { findPullRequestTemplate, pullRequestBody } from './pull-request-body.js';

export interface GithubScmOptions {
  readonly remote: string;
  readonly ghBin: string;
  readonly gitBin: string;
}

export interface PullRequestInfo {
  readonly state: PullRequestState;
  readonly url: string;
}

/**
 * The SCM slot backed by git and the GitHub CLI. Merging is PR-aware: a merged PR skips the
 * local merge, an open one refuses unless `local`, a closed one refuses. `merge` records
 * nothing itself: the caller (`orange task merge`) records `task.merged` and moves the task on.
 */
export class GithubScm implements Scm {
  readonly name = 'github';
  readonly git: Git;
  readonly gh: GhCli;
  private readonly log: Logger;

  constructor(
    private readonly orange: Orange,
    private readonly options: GithubScmOptions,
  ) {
    this.git = new Git(options.gitBin);
    this.gh = new GhCli(options.ghBin);
    this.log = orange.log.child('github');
  }

  /** Merges the task's branch into the default branch and pushes (see class doc for PR rules). */
  async merge(task: Task, project: Project, options: MergeOptions): Promise<{ merged: boolean; message: string }> {
    const pr = await this.pullRequestForMerge(task, project, options.local);
    if (pr?.state === 'merged') {
      return { merged: true, message: `pull request ${pr.url} is already merged; skipped the local merge` };
    }
    if (pr?.state === 'closed') {
      throw new OrangeError('E_SCM', `pull request ${pr.url} was closed without merging; reopen it, or cancel the task`);
    }
    if (pr?.state === 'open' && !options.local) {
      throw new OrangeError('E_SCM', `task ${task.meta.id} has an open pull request (${pr.url}); merge it on GitHub, or merge locally with orange task merge --local`);
    }
    const result = await mergeLocally(this.git, { task, project, remote: this.options.remote, strategy: options.strategy });
    this.log.info('merged locally', { task: task.meta.id, branch: task.meta.branch, strategy: options.strategy, commit: result.commit, pushed: result.pushed });
    return { merged: result.merged, message: result.message };
  }

  /** Pushes the branch, opens a PR with `gh pr create`, stores `pr_url` and records `pr.created`. */
  async createPullRequest(task: Task, project: Project): Promise<{ url: string }> {
    const { id, branch } = task.meta;
    if (task.meta.pr_url) throw new OrangeError('E_SCM', `task ${id} already has a pull request: ${task.meta.pr_url}`);
    const dir = this.repoDir(task, project);
    // Ask gh first, so a missing or logged-out gh changes nothing (no push).
    await this.gh.run(dir, ['auth', 'status'], 'checking gh authentication');
    if (!(await this.git.hasRef(dir, `refs/heads/${branch}`))) {
      throw new OrangeError('E_SCM', `branch ${branch} does not exist locally; nothing to push`);
    }
    await this.git.run(dir, ['push', '--quiet', '--set-upstream', this.options.remote, `refs/heads/${branch}:refs/heads/${branch}`], `pushing ${branch}`);
    const body = pullRequestBody(task, await findPullRequestTemplate(dir));
    const title = task.meta.summary.trim() || branch;
    const args = ['pr', 'create', '--title', title, '--body', body, '--head', branch, '--base', project.default_branch];
    const result = await this.gh.try(dir, args);
    const output = `${result.stdout}\n${result.stderr}`;
    // An existing PR for the branch is adopted rather than reported as a failure.
    const url = (result.ok || /already exists/i.test(output)) ? pullRequestUrl(output) : null;
    if (!url) throw new OrangeError('E_SCM', `creating the pull request failed: ${lastLine(result.stderr || result.stdout)}`);
    await this.orange.store.withTaskLock(task.meta.project, id, async () => {
      await this.orange.store.update(task.meta.project, id, { pr_url: url });
      await this.orange.store.appendHistory(task.meta.project, id, { type: 'pr.created', url });
    });
    this.log.info('pull request created', { task: id, url });
    return { url };
  }

  /** The task's PR state from `gh pr view` (by `pr_url`, else by branch); null when it has none. */
  async pullRequestState(task: Pick<Task, 'meta'>, project: Project): Promise<PullRequestState | null> {
    return (await this.pullRequest(task, project))?.state ?? null;
  }

  /** The task's PR, or null when there is none (or, without a recorded `pr_url`, when gh cannot tell). */
  async pullRequest(task: Pick<Task, 'meta'>, project: Project): Promise<PullRequestInfo | null> {
    const dir = this.repoDir(task, project);
    const target = task.meta.pr_url ?? task.meta.branch;
    const result = await this.gh.try(dir, ['pr', 'view', target, '--json', 'state,url']);
    if (!result.ok) {
      if (/no pull requests? found/i.test(result.stderr)) return null;
      if (task.meta.pr_url) throw new OrangeError('E_SCM', `reading pull request ${task.meta.pr_url} failed: ${lastLine(result.stderr)}`);
      // No recorded PR and gh cannot look one up (e.g. the remote is not on GitHub): there is none to honour.
      this.log.debug('gh pr view failed; assuming no pull request', { task: task.meta.id, error: lastLine(result.stderr) });
      return null;
    }
    return parsePullRequest(result.stdout, target);
  }

  /**
   * The PR that decides a merge. Without gh (or its login) a task with no recorded PR merges
   * locally; a task with one is refused unless `local`, since its state cannot be checked.
   */
  private async pullRequestForMerge(task: Task, project: Project, local: boolean): Promise<PullRequestInfo | null> {
    try {
      return await this.pullRequest(task, project);
    } catch (error) {
      if (!(error instanceof OrangeError) || error.code !== 'E_SCM') throw error;
      if (task.meta.pr_url && !local) throw error;
      this.log.info('pull request state unknown; merging locally', { task: task.meta.id, reason: error.message });
      return null;
    }
  }

  /** Where to run git/gh for a task: its worktree when it still has one, else the project's repository. */
  repoDir(task: Pick<Task, 'meta'>, project: Project): string {
    return task.meta.workspace && existsSync(task.meta.workspace) ? task.meta.workspace : project.path;
  }
}

const STATES: Record<string, PullRequestState> = { OPEN: 'open', MERGED: 'merged', CLOSED: 'closed' };

function parsePullRequest(stdout: string, target: string): PullRequestInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new OrangeError('E_SCM', `gh pr view ${target} did not print JSON`);
  }
  const { state, url } = (parsed ?? {}) as { state?: unknown; url?: unknown };
  const known = typeof state === 'string' ? STATES[state.toUpperCase()] : undefined;
  if (!known) throw new OrangeError('E_SCM', `gh pr view ${target} reported an unknown state ${JSON.stringify(state)}`);
  return { state: known, url: typeof url === 'string' ? url : target };
}

/** The last pull request URL gh printed. */
export function pullRequestUrl(output: string): string | null {
  const matches = output.match(/https?:\/\/\S+\/pull\/\d+/g);
  return matches?.at(-1) ?? null;
}
