import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrangeError, type Project, type Task } from '@orange/core';
import { lastLine, type Git } from './git.js';

export interface LocalMergeInput {
  readonly task: Task;
  readonly project: Project;
  readonly remote: string;
  readonly strategy: 'ff' | 'merge';
}

export interface LocalMergeResult {
  readonly merged: true;
  readonly message: string;
  /** The new tip of `<remote>/<default>`. */
  readonly commit: string;
  /** False when the branch was already contained in the default branch (nothing pushed). */
  readonly pushed: boolean;
}

/**
 * Merges the task's branch into `<remote>/<default>` and pushes it, without touching the
 * user's checkout: in the task's worktree when it has one, else in a temporary detached
 * worktree. On success the task's worktree is left detached at the new `<remote>/<default>`
 * (clean, so releasing it to the pool works); on failure it is put back where it was.
 */
export async function mergeLocally(git: Git, input: LocalMergeInput): Promise<LocalMergeResult> {
  const { task, project, remote, strategy } = input;
  const { branch } = task.meta;
  const target = project.default_branch;
  const upstream = `${remote}/${target}`;
  if (!(await git.try(project.path, ['remote', 'get-url', remote])).ok) {
    throw new OrangeError('E_SCM', `project ${project.name} has no remote "${remote}", so there is nowhere to merge into`);
  }
  await git.run(project.path, ['fetch', '--quiet', remote], `fetching ${remote}`);
  if (!(await git.hasRef(project.path, `refs/remotes/${upstream}`))) {
    throw new OrangeError('E_SCM', `${upstream} does not exist; check the project's default branch (orange project update)`);
  }
  const source = await branchRef(git, project.path, remote, branch);

  const workspace = task.meta.workspace && existsSync(task.meta.workspace) ? task.meta.workspace : null;
  const temp = workspace ? null : await mkdtemp(join(tmpdir(), 'orange-merge-'));
  const dir = workspace ?? join(temp as string, 'worktree');
  try {
    let restore: string | null = null;
    if (workspace) {
      const dirty = (await git.run(dir, ['status', '--porcelain'], 'checking the worktree')).trim();
      if (dirty) {
        throw new OrangeError('E_SCM', `the task's worktree ${dir} has uncommitted changes; commit or discard them before merging`);
      }
      restore = (await git.try(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout || (await git.run(dir, ['rev-parse', 'HEAD'], 'reading HEAD'));
      await git.run(dir, ['checkout', '--quiet', '--detach', upstream], `checking out ${upstream}`);
    } else {
      await git.run(project.path, ['worktree', 'add', '--quiet', '--detach', dir, upstream], 'creating a temporary worktree');
    }
    try {
      const before = await git.run(dir, ['rev-parse', 'HEAD'], 'reading HEAD');
      await mergeInto(git, dir, { branch, source, upstream, strategy, summary: task.meta.summary });
      const after = await git.run(dir, ['rev-parse', 'HEAD'], 'reading HEAD');
      if (after === before) {
        return { merged: true, message: `${branch} is already contained in ${upstream}; nothing to push`, commit: after, pushed: false };
      }
      // Pushed from the repository itself: a remote given as a relative path (`../origin.git`)
      // means the same there, not in a worktree elsewhere; the commit is in the shared store.
      const push = await git.try(project.path, ['push', '--quiet', remote, `${after}:refs/heads/${target}`]);
      if (!push.ok) {
        throw new OrangeError('E_SCM', `pushing the merge to ${upstream} was refused (${lastLine(push.stderr)}); fetch and run the merge again`);
      }
      const how = strategy === 'ff' ? 'fast-forward' : 'merge commit';
      return { merged: true, message: `merged ${branch} into ${upstream} (${how}, ${after.slice(0, 7)})`, commit: after, pushed: true };
    } catch (error) {
      if (restore) await git.try(dir, ['checkout', '--quiet', '--force', restore]);
      throw error;
    }
  } finally {
    if (temp) {
      await git.try(project.path, ['worktree', 'remove', '--force', dir]);
      await rm(temp, { recursive: true, force: true });
      await git.try(project.path, ['worktree', 'prune']);
    }
  }
}

/** The branch to merge: the local one when it exists (the agent committed there), else the remote one. */
async function branchRef(git: Git, repo: string, remote: string, branch: string): Promise<string> {
  for (const ref of [`refs/heads/${branch}`, `refs/remotes/${remote}/${branch}`]) if (await git.hasRef(repo, ref)) return ref;
  throw new OrangeError('E_SCM', `branch ${branch} exists neither locally nor on ${remote}; nothing to merge`);
}

interface MergeStep {
  readonly branch: string;
  readonly source: string;
  readonly upstream: string;
  readonly strategy: 'ff' | 'merge';
  readonly summary: string;
}

async function mergeInto(git: Git, dir: string, step: MergeStep): Promise<void> {
  const { branch, source, upstream } = step;
  if (step.strategy === 'ff') {
    const result = await git.try(dir, ['merge', '--quiet', '--ff-only', source]);
    if (!result.ok) {
      throw new OrangeError('E_SCM', `${branch} has diverged from ${upstream} and cannot be fast-forwarded; use orange task merge --strategy merge, or rebase the branch`);
    }
    return;
  }
  const message = `Merge ${branch}: ${step.summary.trim() || branch}`;
  const result = await git.try(dir, ['merge', '--quiet', '--no-ff', '--no-edit', '-m', message, source]);
  if (!result.ok) {
    await git.try(dir, ['merge', '--abort']);
    const conflict = /conflict/i.test(`${result.stdout}\n${result.stderr}`);
    throw new OrangeError(
      'E_SCM',
      conflict
        ? `${branch} conflicts with ${upstream}; rebase the branch on ${upstream} and resolve the conflicts, then merge again`
        : `merging ${branch} into ${upstream} failed: ${lastLine(result.stderr || result.stdout)}`,
    );
  }
}
