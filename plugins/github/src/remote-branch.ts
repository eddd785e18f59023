import { OrangeError, type Logger } from '@orange/core';
import { lastLine, type Git } from './git.js';

export type RemoteBranchDeletion = 'deleted' | 'already-gone' | 'no-remote';

export interface RemoteBranchDeletionOptions {
  /** The project's default branch: the branch's tip must be in `<remote>/<default>` or the local `<default>`. */
  readonly defaultBranch: string;
  /**
   * Whether the task's pull request is known to be merged: a squash or rebase merge leaves the
   * branch's own commits outside the default branch. Asked only when the tip is not contained.
   */
  readonly pullRequestMerged: () => Promise<boolean>;
}

/**
 * Deletes `branch` on `remote` from the repository at `dir`, but only when nothing would be lost:
 * its tip is contained in `<remote>/<default>` or the local default branch, or its pull request
 * is merged. Otherwise (a merge that failed or never ran) it refuses with E_SCM and deletes
 * nothing. The deletion is leased to the tip that was checked, so a push made meanwhile is not
 * deleted either. Idempotent: a branch already gone is success; a repository without that remote
 * is logged and skipped.
 */
export async function deleteRemoteBranch(
  git: Git,
  dir: string,
  remote: string,
  branch: string,
  log: Logger,
  options: RemoteBranchDeletionOptions,
): Promise<RemoteBranchDeletion> {
  if (!(await git.try(dir, ['remote', 'get-url', remote])).ok) {
    log.info('no such remote; remote branch not deleted', { dir, remote, branch });
    return 'no-remote';
  }
  // One fetch brings the branch's tip (pushed from elsewhere, perhaps) and the remote default branch,
  // and no other ref of the remote.
  const target = options.defaultBranch;
  const fetched = await fetchRefs(git, dir, remote, [branch, target]);
  if (fetched === branch) return alreadyGone(git, dir, remote, branch);
  // No default branch on the remote: the tip is checked against the local one alone.
  if (fetched === target && (await fetchRefs(git, dir, remote, [branch])) === branch) return alreadyGone(git, dir, remote, branch);
  const tip = await git.run(dir, ['rev-parse', '--verify', `refs/remotes/${remote}/${branch}^{commit}`], `reading ${remote}/${branch}`);
  const contained = (await isAncestor(git, dir, tip, `refs/remotes/${remote}/${target}`)) || (await isAncestor(git, dir, tip, `refs/heads/${target}`));
  if (!contained && !(await options.pullRequestMerged().catch(() => false))) {
    throw new OrangeError(
      'E_SCM',
      `not deleting ${remote}/${branch}: its commits (${tip.slice(0, 7)}) are in neither ${remote}/${target} nor ${target} and no merged pull request is known, so they would be lost; merge the branch, or delete it yourself: git push ${remote} --delete ${branch}`,
      { remote, branch, tip },
    );
  }
  const result = await git.try(dir, ['push', `--force-with-lease=refs/heads/${branch}:${tip}`, remote, '--delete', branch]);
  if (result.ok) {
    log.info('remote branch deleted', { remote, branch, tip });
    return 'deleted';
  }
  if (/remote ref does not exist/i.test(result.stderr)) return alreadyGone(git, dir, remote, branch);
  if (/stale info/i.test(result.stderr)) {
    throw new OrangeError('E_SCM', `not deleting ${remote}/${branch}: it moved past ${tip.slice(0, 7)} while it was being checked; run the deletion again once its commits are merged`, { remote, branch, tip });
  }
  throw new OrangeError('E_SCM', `deleting ${remote}/${branch} failed: ${lastLine(result.stderr)}`);
}

/**
 * Fetches `branches` of `remote` into their remote-tracking refs (forced: a remote branch may have
 * been rewritten). Null once fetched; the branch the remote does not have (git names the first it
 * misses), without fetching any; E_SCM for any other failure.
 */
async function fetchRefs(git: Git, dir: string, remote: string, branches: readonly string[]): Promise<string | null> {
  const specs = branches.map((b) => `+refs/heads/${b}:refs/remotes/${remote}/${b}`);
  const result = await git.try(dir, ['fetch', '--quiet', '--no-tags', remote, ...specs]);
  if (result.ok) return null;
  const missing = /couldn't find remote ref (\S+)/i.exec(result.stderr)?.[1];
  const branch = branches.find((b) => missing === `refs/heads/${b}`);
  if (branch !== undefined) return branch;
  throw new OrangeError('E_SCM', `fetching ${branches.join(' and ')} from ${remote} failed: ${lastLine(result.stderr)}`);
}

/** Someone (a merged PR's "delete branch" button, an earlier run) got there first. */
async function alreadyGone(git: Git, dir: string, remote: string, branch: string): Promise<'already-gone'> {
  await git.try(dir, ['branch', '--delete', '--remotes', `${remote}/${branch}`]);
  return 'already-gone';
}

/** True when commit `tip` is reachable from `ref` (false too when `ref` does not exist). */
async function isAncestor(git: Git, dir: string, tip: string, ref: string): Promise<boolean> {
  return (await git.try(dir, ['merge-base', '--is-ancestor', tip, ref])).ok;
}
