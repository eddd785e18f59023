import { OrangeError, type Logger } from '@orange/core';
import { lastLine, type Git } from './git.js';

export type RemoteBranchDeletion = 'deleted' | 'already-gone' | 'no-remote';

/**
 * Deletes `branch` on `remote` from the repository at `dir`. Idempotent: a branch that is
 * already gone is success; a repository without that remote is logged and skipped.
 */
export async function deleteRemoteBranch(git: Git, dir: string, remote: string, branch: string, log: Logger): Promise<RemoteBranchDeletion> {
  if (!(await git.try(dir, ['remote', 'get-url', remote])).ok) {
    log.info('no such remote; remote branch not deleted', { dir, remote, branch });
    return 'no-remote';
  }
  const result = await git.try(dir, ['push', remote, '--delete', branch]);
  if (result.ok) {
    log.info('remote branch deleted', { remote, branch });
    return 'deleted';
  }
  if (/remote ref does not exist/i.test(result.stderr)) {
    // Someone (a merged PR's "delete branch" button, an earlier run) got there first.
    await git.try(dir, ['branch', '--delete', '--remotes', `${remote}/${branch}`]);
    return 'already-gone';
  }
  throw new OrangeError('E_SCM', `deleting ${remote}/${branch} failed: ${lastLine(result.stderr)}`);
}
