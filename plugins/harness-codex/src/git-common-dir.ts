import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The shared git dir of a linked worktree (where its objects and refs live), read from the
 * worktree's `.git` file without spawning git; null for a main checkout or anything unreadable.
 */
export function gitCommonDir(worktree: string): string | null {
  try {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(resolve(worktree, '.git'), 'utf8'));
    if (!pointer?.[1]) return null;
    const gitDir = resolve(worktree, pointer[1].trim());
    return resolve(gitDir, readFileSync(resolve(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return null;
  }
}
