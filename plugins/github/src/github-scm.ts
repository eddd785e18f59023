import { existsSync } from 'node:fs';
import {
  OrangeError,
  type Logger,
  type MergeOptions,
  type Orange,
  type Project,
  type PullRequestCheck,
  type PullRequestFeedback,
  type PullRequestReview,
  type PullRequestState,
  type Scm,
  type Task,
} from '@orange/core';
import { GhCli } from './gh.js';
import { Git, lastLine } from './git.js';
import { mergeLocally } from './local-merge.js';
import { findPullRequestTemplate, pullRequestBody } from './pull-request-body.js';
import { actionsRun, commentsByReview, FEEDBACK_FIELDS, ghJson, ghPages, parseFeedback, parseReview, pullRequestCoordinates } from './pull-request-feedback.js';

export interface GithubScmOptions {
  readonly remote: string;
  readonly ghBin: string;
  readonly gitBin: string;
  /** How `mergePullRequest` merges: `gh pr merge --merge | --squash | --rebase`. */
  readonly mergeMethod: 'merge' | 'squash' | 'rebase';
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
      throw new OrangeError('E_SCM', `task ${task.meta.id} has an open pull request (${pr.url}); merge it on GitHub, or merge locally with orange task merge --local (m in the dashboard)`);
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
    if (!(await this.git.hasRef(project.path, `refs/heads/${branch}`))) {
      throw new OrangeError('E_SCM', `branch ${branch} does not exist locally; nothing to push`);
    }
    // From the repository itself (a worktree shares its branches): a remote given as a relative
    // path (`../origin.git`) means the same there and nowhere else.
    await this.git.run(project.path, ['push', '--quiet', '--set-upstream', this.options.remote, `refs/heads/${branch}:refs/heads/${branch}`], `pushing ${branch}`);
    const tracker = this.orange.maybeSlot('tracker');
    const body = pullRequestBody(task, await findPullRequestTemplate(dir), tracker ? (ref) => tracker.closingLine({ ref }) : undefined);
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
   * The task's PR in one `gh pr view`: its state, checks and reviews; for an open one whose changes
   * are requested, also the reviews and their inline comments from the REST API (the comments are
   * what the agent needs). Null without a recorded `pr_url`.
   */
  async pullRequestFeedback(task: Pick<Task, 'meta'>, project: Project): Promise<PullRequestFeedback | null> {
    if (!task.meta.pr_url) return null;
    const dir = this.repoDir(task, project);
    const url = task.meta.pr_url;
    const view = ghJson<Record<string, unknown>>(await this.gh.run(dir, ['pr', 'view', url, '--json', FEEDBACK_FIELDS], `reading pull request ${url}`), `gh pr view ${url}`);
    const feedback = parseFeedback(view, knownState(view.state, url));
    if (feedback.state !== 'open') return feedback;
    const coordinates = pullRequestCoordinates(url);
    const asked = feedback.reviewDecision === 'changes_requested' || feedback.reviews.some((r) => r.state === 'changes_requested');
    if (!asked || !coordinates) return feedback;
    const base = `repos/${coordinates.owner}/${coordinates.repo}/pulls/${coordinates.number}`;
    // Every page: a pull request with more than 30 reviews or inline comments is not rare.
    const listing = (path: string, what: string) => this.gh.run(dir, ['api', '--paginate', `${base}/${path}?per_page=100`], what);
    const rawReviews = ghPages<Record<string, unknown>>(await listing('reviews', 'reading the reviews'), 'gh api reviews');
    const rawComments = ghPages<Record<string, unknown>>(await listing('comments', 'reading the review comments'), 'gh api comments');
    const comments = commentsByReview(rawComments);
    const reviews = rawReviews.map((r) => parseReview(r, comments.get(String(r.id)) ?? [])).filter((r): r is PullRequestReview => r !== null);
    return { ...feedback, reviews };
  }

  /** The last `lines` lines of a failed GitHub Actions check's log (`gh run view --log-failed`); null for other checks. */
  async checkLog(task: Pick<Task, 'meta'>, project: Project, check: PullRequestCheck, lines: number): Promise<string | null> {
    const run = actionsRun(check.url);
    const coordinates = task.meta.pr_url ? pullRequestCoordinates(task.meta.pr_url) : null;
    if (!run) return null;
    const args = ['run', 'view', ...(run.job ? ['--job', run.job] : [run.run]), '--log-failed', ...(coordinates ? ['-R', `${coordinates.owner}/${coordinates.repo}`] : [])];
    const result = await this.gh.try(this.repoDir(task, project), args);
    if (!result.ok) {
      this.log.warn('reading a check log failed', { task: task.meta.id, check: check.name, error: lastLine(result.stderr) });
      return null;
    }
    return result.stdout.split('\n').slice(-lines).join('\n');
  }

  /** Merges the task's open PR with `gh pr merge` (the approved-and-green reaction with `auto: true`). */
  async mergePullRequest(task: Pick<Task, 'meta'>, project: Project): Promise<{ message: string }> {
    const url = task.meta.pr_url;
    if (!url) throw new OrangeError('E_SCM', `task ${task.meta.id} has no pull request to merge`);
    await this.gh.run(this.repoDir(task, project), ['pr', 'merge', url, `--${this.options.mergeMethod}`], `merging pull request ${url}`);
    this.log.info('pull request merged', { task: task.meta.id, url, method: this.options.mergeMethod });
    return { message: `merged pull request ${url} (${this.options.mergeMethod})` };
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
  return { state: knownState(state, target), url: typeof url === 'string' ? url : target };
}

/** The state `gh pr view` printed, or E_SCM for one it does not know. */
function knownState(state: unknown, target: string): PullRequestState {
  const known = typeof state === 'string' ? STATES[state.toUpperCase()] : undefined;
  if (!known) throw new OrangeError('E_SCM', `gh pr view ${target} reported an unknown state ${JSON.stringify(state)}`);
  return known;
}

/** The last pull request URL gh printed. */
export function pullRequestUrl(output: string): string | null {
  const matches = output.match(/https?:\/\/\S+\/pull\/\d+/g);
  return matches?.at(-1) ?? null;
}
