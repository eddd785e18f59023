import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { isRunning } from '../process/index.js';

/** The temp file's name beside `path`: `.<name>.<pid>.<random>.tmp` (the pid tells whether its writer lives). */
function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** A temp file written and fsynced beside its target, with its identity (inode, size, mtime). */
export interface TempFile {
  readonly path: string;
  readonly stat: { readonly ino: number; readonly size: number; readonly mtimeMs: number };
}

/**
 * Writes `content` to a new temp file beside `path` (not yet renamed over it). `sync: false` skips
 * the fsync: a killed process still leaves the old or the new file, only a power cut could not.
 * `backdate: true` sets its mtime a millisecond before the write, for an identity that is kept to
 * tell later writes apart: file times can move in coarse ticks (a 4 ms jiffy on Linux before 6.13's
 * fine-grained times), so a write into the file within the same tick would otherwise keep inode,
 * size and mtime alike (git's "racy" case).
 */
export async function writeTemp(path: string, content: string, options: { sync?: boolean; backdate?: boolean } = {}): Promise<TempFile> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPath(path);
  // 'wx': the folder may be an agent's (TASK.md's), so a link it planted under this name is never followed.
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(content, 'utf8');
    if (options.backdate) {
      const written = await handle.stat();
      await handle.utimes(written.atime, new Date(Math.floor(written.mtimeMs) - 1));
    }
    if (options.sync !== false) await handle.sync();
    const { ino, size, mtimeMs } = await handle.stat();
    return { path: temp, stat: { ino, size, mtimeMs } };
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file so that a reader (or a crash) sees the old content or the new, never a torn one:
 * write a temp file beside it, fsync, rename over. Rename is atomic within a directory on POSIX.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = await writeTemp(path, content);
  try {
    await rename(temp.path, path);
  } catch (error) {
    await rm(temp.path, { force: true });
    throw error;
  }
}

const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** Removes temp files in `dir` left by writers that were killed (their pid no longer runs). */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1] ?? Number.NaN);
    if (Number.isNaN(pid) || pid === process.pid || isRunning(pid)) continue;
    await rm(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}
