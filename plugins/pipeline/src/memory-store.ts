import { lstat, mkdir, readdir, realpath, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GIT_SAFETY_ARGS, openRegularFile, OrangeError, writeFileAtomic, type Orange, type Task } from '@orange/core';
import { execa } from 'execa';
import { MEMORY_DIR, memoryEntryOf, parseMemoryEntry, type MemoryEntry } from './memory.js';
import type { PipelineSettings } from './options.js';

/**
 * The project's memory on disk: `.orange/memory/<completed_at>-<task id>.json` in the repository,
 * one file per completed task. One file each, not one shared file: tasks run side by side on
 * branches of their own, and two branches that each appended a line to one file would conflict
 * when the second is merged; two new files never do. Entries are written and committed on the
 * task's own branch, so they reach the default branch with the task's work, reviewed with it.
 */

/** An entry file larger than this is not read (an agent may have written anything there). */
const ENTRY_MAX_BYTES = 64 * 1024;

/** The driver reads at most the newest this-many entries; `orange memory list` reads them all. */
export const DRIVER_ENTRIES = 200;

/** An entry as read from a checkout: its file (relative to the checkout) and what it says. */
export interface StoredMemory {
  readonly file: string;
  readonly entry: MemoryEntry;
}

export interface MemoryListing {
  /** Oldest first. */
  readonly entries: readonly StoredMemory[];
  /** Files of `.orange/memory/` that are not entries (not JSON, no intent, not a regular file). */
  readonly unreadable: readonly { readonly file: string; readonly error: string }[];
}

/** The entry's file name: its completion time first, so names sort oldest first. */
export function entryFileName(entry: Pick<MemoryEntry, 'completed_at' | 'task'>): string {
  return `${entry.completed_at.replace(/[:.]/g, '-')}-${entry.task}.json`;
}

async function entryNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}

/** The memory of the checkout at `root` (a repository or a worktree), oldest first; `newest` reads only that many files. */
export async function readMemory(root: string, options: { readonly newest?: number } = {}): Promise<MemoryListing> {
  const dir = join(root, MEMORY_DIR);
  const names = await entryNames(dir);
  const chosen = options.newest === undefined ? names : names.slice(-options.newest);
  const entries: StoredMemory[] = [];
  const unreadable: { file: string; error: string }[] = [];
  for (const name of chosen) {
    const file = `${MEMORY_DIR}/${name}`;
    try {
      const opened = await openRegularFile(join(dir, name), { maxBytes: ENTRY_MAX_BYTES, within: null, what: `memory entry ${file}` });
      if (!opened) continue;
      await opened.handle.close();
      const parsed = parseMemoryEntry(opened.text);
      if ('entry' in parsed) entries.push({ file, entry: parsed.entry });
      else unreadable.push({ file, error: parsed.error });
    } catch (error) {
      unreadable.push({ file, error: error instanceof Error ? error.message : String(error) });
    }
  }
  entries.sort((a, b) => (a.entry.completed_at < b.entry.completed_at ? -1 : a.entry.completed_at > b.entry.completed_at ? 1 : a.file < b.file ? -1 : 1));
  return { entries, unreadable };
}

/**
 * The entry `key` names in a listing: its number in `orange memory list` (1 is the oldest) or its
 * task id. E_INVALID_INPUT names what exists.
 */
export function selectMemory(listing: MemoryListing, key: string, project: string): { readonly n: number; readonly stored: StoredMemory } {
  const count = listing.entries.length;
  const range = count === 0 ? `project ${project} has no memory entries` : `project ${project} has entries 1–${count}`;
  if (/^\d+$/.test(key)) {
    const n = Number(key);
    const stored = listing.entries[n - 1];
    if (n >= 1 && stored) return { n, stored };
    throw new OrangeError('E_INVALID_INPUT', `no memory entry ${key}: ${range} (see orange memory list)`);
  }
  const index = listing.entries.findIndex((s) => s.entry.task === key);
  const stored = listing.entries[index];
  if (stored) return { n: index + 1, stored };
  throw new OrangeError('E_INVALID_INPUT', `no memory entry "${key.slice(0, 60)}": give its number from orange memory list or a task id (${range})`);
}

/** Removes entry files (paths from a listing of `root`); a file already gone is not an error. */
export async function forgetMemory(root: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    if (!file.startsWith(`${MEMORY_DIR}/`) || file.slice(MEMORY_DIR.length + 1).includes('/')) throw new OrangeError('E_INVALID_INPUT', `${file} is not a memory entry`);
    await unlink(join(root, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

const IDENTITY_MISSING = /Please tell me who you are|unable to auto-detect email address|empty ident name/i;

/**
 * Writes `entry` into the worktree's `.orange/memory/` and commits that one file on the branch it
 * is on (other changes in the worktree are left as they are). Again for the same task (a driver
 * resumed after a kill) it commits the file written before, or does nothing when that is committed.
 * The commit skips the repository's hooks (a memory file is not the task's code), and uses an
 * Orange identity only when git has none.
 */
export async function recordMemory(worktree: string, entry: MemoryEntry): Promise<{ readonly file: string; readonly commit: string | null }> {
  const dir = join(worktree, MEMORY_DIR);
  // The agent wrote in this worktree: `.orange` or its `memory` must not lead out of it, so each is
  // looked at before anything is made through it.
  for (const part of ['.orange', MEMORY_DIR]) {
    const path = join(worktree, part);
    const stat = await lstat(path).catch(() => null);
    if (stat?.isSymbolicLink()) throw new OrangeError('E_WORKSPACE', `${part} in ${worktree} is a symlink; memory is written only into the worktree itself`);
    if (stat && !stat.isDirectory()) throw new OrangeError('E_WORKSPACE', `${part} in ${worktree} is not a directory`);
    if (!stat) await mkdir(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  const inside = relative(await realpath(worktree), await realpath(dir));
  if (inside.startsWith('..') || inside.startsWith(sep)) throw new OrangeError('E_WORKSPACE', `${MEMORY_DIR} leads out of ${worktree}`);
  const name = (await entryNames(dir)).find((n) => n.endsWith(`-${entry.task}.json`)) ?? entryFileName(entry);
  const file = `${MEMORY_DIR}/${name}`;
  if (!(await entryNames(dir)).includes(name)) await writeFileAtomic(join(dir, name), `${JSON.stringify(entry, null, 2)}\n`);
  // The worktree holds what an agent wrote: git runs there as Orange runs it in every worktree (GIT_SAFETY_ARGS).
  const git = (args: string[]) => execa('git', [...GIT_SAFETY_ARGS, ...args], { cwd: worktree, reject: false, stdin: 'ignore' });
  const added = await git(['add', '--', file]);
  if (added.exitCode !== 0) {
    const why = /ignored/.test(String(added.stderr)) ? `${MEMORY_DIR} is ignored by git (a .gitignore); un-ignore it to keep the project's memory` : String(added.stderr).trim();
    throw new OrangeError('E_WORKSPACE', `memory entry ${file} not committed: ${why}`);
  }
  // Exit 0: nothing of this file is staged, so it was committed before.
  if ((await git(['diff', '--cached', '--quiet', '--', file])).exitCode === 0) return { file, commit: null };
  const message = `orange: memory of task ${entry.task} (${entry.intent}, passed at ${entry.tier || 'the default model'})`;
  let commit = await git(['commit', '--quiet', '--no-verify', '-m', message, '--', file]);
  if (commit.exitCode !== 0 && IDENTITY_MISSING.test(String(commit.stderr))) {
    commit = await git(['-c', 'user.name=Orange', '-c', 'user.email=orange@localhost', 'commit', '--quiet', '--no-verify', '-m', message, '--', file]);
  }
  if (commit.exitCode !== 0) throw new OrangeError('E_WORKSPACE', `memory entry ${file} not committed: ${String(commit.stderr).trim() || `git commit exited ${commit.exitCode}`}`);
  const head = await git(['rev-parse', 'HEAD']);
  return { file, commit: String(head.stdout).trim() || null };
}

/**
 * `save_memory` (verifying → completed): the task's entry, from its fields, body and history,
 * written and committed in its worktree. Nothing when memory is off.
 */
export async function saveTaskMemory(orange: Orange, settings: PipelineSettings, task: Task): Promise<{ readonly file: string; readonly commit: string | null } | null> {
  if (!settings.memory) return null;
  const worktree = task.meta.workspace;
  if (!worktree) {
    orange.log.warn('memory not recorded: the task has no worktree', { task: task.meta.id });
    return null;
  }
  const history = await orange.store.history(task.meta.project, task.meta.id);
  return recordMemory(worktree, memoryEntryOf(task, history));
}

/**
 * The memory a running task's prompts and route read: its worktree's (the default branch's as its
 * branch was made from it, plus what the branch added). Null when memory is off; unreadable
 * entries are logged and left out.
 */
export async function taskMemory(orange: Orange, settings: PipelineSettings, task: Task): Promise<MemoryEntry[] | null> {
  if (!settings.memory) return null;
  const root = task.meta.workspace;
  if (!root) return [];
  try {
    const listing = await readMemory(root, { newest: DRIVER_ENTRIES });
    for (const bad of listing.unreadable) orange.log.warn('memory entry skipped', { task: task.meta.id, file: bad.file, error: bad.error });
    return listing.entries.map((s) => s.entry);
  } catch (error) {
    orange.log.warn('memory not read', { task: task.meta.id, error: error instanceof Error ? error.message : String(error) });
    return [];
  }
}
