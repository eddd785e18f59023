import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, lstat, mkdir, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { OrangePaths } from './paths.js';

/**
 * Moves a task's TASK.md from where older versions kept it (`tasks/<p>/<id>/TASK.md`) into its
 * `agent/` folder, and leaves at the old place a symlink to the new one: an agent started before
 * the upgrade (its worktree's `TASK.md` link names the old place) keeps reading and saving the
 * task's file until its worktree's link is pointed at the new place. Called where TASK.md is not
 * found at the new place, so a listing of tasks already moved never pays for it. Returns true when
 * TASK.md may now be at the new place (look again), false when there was nothing to move.
 *
 * No task lock is needed (reads call this): `link` never replaces a file, so of two processes
 * moving the same task one creates the new name and the other finds it, and a TASK.md Orange
 * renders at the new place meanwhile is never overwritten by a move that started earlier.
 */
export async function moveLegacyTaskFile(paths: OrangePaths, project: string, id: string): Promise<boolean> {
  const legacy = paths.legacyTaskFile(project, id);
  const moved = paths.taskFile(project, id);
  const before = await lstat(legacy).catch(() => null);
  // A symlink there is the one a move left (or something odd): nothing to move.
  if (!before?.isFile()) return false;
  await mkdir(dirname(moved), { recursive: true });
  try {
    await link(legacy, moved);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      // Another process is moving it (the same file under both names), or the new place has its own.
      const now = await lstat(moved).catch(() => null);
      if (now?.ino !== before.ino) return true;
    } else if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
      // A file system without hard links: a copy, never over a file at the new place.
      await copyFile(legacy, moved, constants.COPYFILE_EXCL).catch((copyError: NodeJS.ErrnoException) => {
        if (copyError.code !== 'EEXIST') throw copyError;
      });
    } else {
      throw error;
    }
  }
  await replaceWithLink(legacy, relative(dirname(legacy), moved), before.ino);
  return true;
}

/** Puts a symlink to `target` in place of `path`, by rename, unless `path` is no longer the inode `ino`. */
async function replaceWithLink(path: string, target: string, ino: number): Promise<void> {
  const temp = join(dirname(path), `.${randomBytes(8).toString('hex')}.link`);
  await symlink(target, temp);
  try {
    // Already replaced (by another process moving it, or an editor's save): left as it is.
    if ((await lstat(path).catch(() => null))?.ino !== ino) return;
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}
