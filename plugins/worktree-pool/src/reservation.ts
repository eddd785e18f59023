import { existsSync } from 'node:fs';
import { processesInside, type Project, type TaskMeta } from '@orange/core';
import { slotNumber, type PoolEntry } from './pool-file.js';
import type { PoolParts } from './pool-parts.js';

/** A worktree bound to a task, or why none could be (the pool is exhausted). */
export type Reservation = { readonly entry: PoolEntry } | { readonly exhausted: string };

/**
 * Binds a worktree to the task: the one it already holds, else a free one (the task's recorded
 * workspace first), else a new one while the project is below pool_size. The choice is made and
 * written under the pool lock; a worktree that must be created is created after it (git takes
 * seconds on a large repository, and every acquire of every project waits on that lock). Bound
 * to the task before it exists, it is handed to no one else meanwhile; if creating it fails, the
 * binding is undone.
 */
export async function reserve(parts: PoolParts, meta: TaskMeta, project: Project): Promise<Reservation> {
  const reservation = await parts.file.mutate<Reservation & { readonly fresh?: boolean }>(async (state) => {
    const held = state.workspaces.find((e) => e.task === meta.id);
    if (held) return { result: { entry: held } };
    const mine = state.workspaces.filter((e) => e.project === project.name);
    const inUse = mine.filter((e) => e.task !== null).length;
    if (inUse >= project.pool_size) {
      return {
        result: {
          exhausted: `workspace pool for project ${project.name} is exhausted (${inUse} of ${project.pool_size} in use); the task stays ${meta.status}`,
        },
      };
    }
    const unheld = mine.filter((e) => e.task === null).sort((a, b) => slotNumber(a) - slotNumber(b));
    // A worktree something still runs in (a previous task's leftover process) is never handed out.
    const busy = await busyWorktrees(parts, unheld);
    const free = unheld.filter((e) => !busy.has(e.path));
    if (free.length === 0 && mine.length >= project.pool_size) {
      return {
        result: {
          exhausted: `workspace pool for project ${project.name} is exhausted (${inUse} of ${project.pool_size} in use, ${busy.size} more with processes still running in them); the task stays ${meta.status}`,
        },
      };
    }
    const chosen = free.find((e) => e.path === meta.workspace) ?? free[0] ?? newEntry(parts, project, mine);
    const entry: PoolEntry = { ...chosen, task: meta.id };
    const fresh = !state.workspaces.some((e) => e.path === chosen.path);
    const workspaces = fresh ? [...state.workspaces, entry] : state.workspaces.map((e) => (e.path === chosen.path ? entry : e));
    return { state: { ...state, workspaces }, result: { entry, fresh } };
  });
  if (!('entry' in reservation)) return reservation;
  const { entry, fresh } = reservation;
  // Already the task's (reserved before the move, acquired in it): made then.
  if (fresh === undefined) return { entry };
  try {
    // Also a worktree the pool lists but someone deleted by hand: it is made again.
    await parts.repo(project).addWorktree(entry.path);
  } catch (error) {
    await parts.file.mutate(async (state) => {
      const still = state.workspaces.find((e) => e.path === entry.path && e.task === meta.id);
      if (!still) return { result: undefined };
      const workspaces = fresh ? state.workspaces.filter((e) => e !== still) : state.workspaces.map((e) => (e === still ? { ...e, task: null } : e));
      return { state: { ...state, workspaces }, result: undefined };
    });
    throw error;
  }
  parts.log.info('worktree reserved', { task: meta.id, workspace: entry.name });
  return { entry };
}

/** The worktrees among `entries` that some process still works in (none when this system cannot tell). */
export async function busyWorktrees(parts: PoolParts, entries: readonly PoolEntry[]): Promise<Set<string>> {
  const paths = entries.map((e) => e.path).filter((p) => existsSync(p));
  if (paths.length === 0) return new Set();
  const inside = await processesInside(paths);
  if (inside === null) {
    parts.log.debug('cannot see process working directories (no /proc, no lsof); not checking worktrees for processes');
    return new Set();
  }
  const busy = new Set([...inside].filter(([, procs]) => procs.length > 0).map(([path]) => path));
  for (const path of busy) parts.log.info('worktree skipped: processes still running in it', { workspace: path, pids: inside.get(path)!.map((p) => p.pid) });
  return busy;
}

function newEntry(parts: PoolParts, project: Project, existing: readonly PoolEntry[]): PoolEntry {
  const used = new Set(existing.map(slotNumber));
  let n = 1;
  while (used.has(n)) n++;
  return { name: `${project.name}--${n}`, project: project.name, path: parts.orange.paths.workspaceDir(project.name, n), task: null };
}
