import { lstat, mkdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { OrangeError } from '@orange/core';

/** One bind mount of a host path at the same path in the container. */
export interface BindMount {
  readonly source: string;
  readonly target: string;
  readonly readonly: boolean;
}

const bind = (path: string, readonly: boolean): BindMount => ({ source: path, target: path, readonly });

/**
 * What a container needs of the task's worktree to edit, commit and see its history, each at the
 * host's own path (the worktree's `.git` file and git's own files name absolute paths):
 *
 * - the worktree, read-write; its `.git` file read-only, so that the agent cannot point it at a
 *   repository of its own making, whose config Orange's next git call in that worktree would obey;
 * - the repository's common folder (objects, refs), read-write: commits go there;
 * - over it, read-only: `config`, `hooks/`, `info/`, `modules/` (anything there runs or is obeyed
 *   on the host: the folders are made first where missing, so that the agent cannot create them)
 *   and `worktrees/` (the other worktrees' HEADs and indexes), with this worktree's own folder
 *   read-write again but its `commondir` and `gitdir` read-only, for the same reason as `.git`.
 *
 * Other worktrees' files are not mounted at all.
 */
export async function workspaceMounts(worktree: string): Promise<BindMount[]> {
  const dotGit = join(worktree, '.git');
  const pointer = await readFile(dotGit, 'utf8').catch(() => null);
  const match = pointer === null ? null : /^gitdir: (.+)$/m.exec(pointer);
  if (!match) {
    throw new OrangeError('E_RUNTIME', `docker: ${worktree} is not a git worktree (its .git is not a "gitdir:" file); the docker runtime needs the worktree pool's worktrees`);
  }
  const gitDir = resolve(worktree, match[1]!.trim());
  const commonPointer = (await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => null))?.trim();
  if (!commonPointer) throw new OrangeError('E_RUNTIME', `docker: ${gitDir} has no commondir; is ${worktree} a linked worktree?`);
  const common = isAbsolute(commonPointer) ? commonPointer : resolve(gitDir, commonPointer);
  if (dirname(gitDir) !== join(common, 'worktrees')) {
    throw new OrangeError('E_RUNTIME', `docker: the worktree's git folder ${gitDir} is not under ${join(common, 'worktrees')}`);
  }
  const exists = async (path: string) => (await lstat(path).catch(() => null)) !== null;
  const mounts: BindMount[] = [bind(worktree, false), bind(dotGit, true), bind(common, false)];
  mounts.push(bind(join(common, 'config'), true), bind(join(common, 'worktrees'), true));
  for (const name of ['hooks', 'info', 'modules']) {
    const path = join(common, name);
    await mkdir(path, { recursive: true });
    mounts.push(bind(path, true));
  }
  mounts.push(bind(gitDir, false));
  for (const name of ['commondir', 'gitdir']) {
    const path = join(gitDir, name);
    if (await exists(path)) mounts.push(bind(path, true));
  }
  return mounts;
}
