import { existsSync } from 'node:fs';
import { isOrangeError, listProcesses, OrangeError, stopProcesses, taskProcessesInside, withAncestors, type GcResult, type Project, type TaskMeta, type WorkspaceInfo, type Workflow } from '@orange/core';
import type { PoolEntry } from './pool-file.js';
import type { PoolParts } from './pool-parts.js';
import { startQueued } from './queue.js';

// Worktrees given back: a task's own release and gc both reset a worktree through `resetIfBound`,
// which acts only while the worktree is still bound to the task it acts for.

/**
 * Frees worktrees bound to tasks that are gone, terminal, or still in the initial status (a
 * reservation whose transition never completed), then starts queued tasks on what is free. A
 * cancelled or deleted task's changes are discarded (logged first); a done task's uncommitted
 * changes keep the worktree bound. A task another process is moving is left for next time
 * (`busy`): under `withoutLockWaits` (the monitor) its lock is not waited for.
 */
export async function collectWorktrees(parts: PoolParts, project?: string): Promise<GcResult> {
  const { workspaces } = await parts.file.read();
  const bound = workspaces.filter((e) => e.task !== null && (project === undefined || e.project === project));
  const freed: WorkspaceInfo[] = [];
  const busy: string[] = [];
  const fetched = new Set<string>();
  const projects = await parts.orange.projects.list();
  for (const name of new Set(bound.map((e) => e.project))) {
    // The listing (an index checked against the files) says which tasks could be done with their
    // worktree; only those are read again, under their lock. Most belong to tasks still at work.
    const { tasks } = await parts.orange.store.list(name);
    const listed = new Map(tasks.map((t) => [t.meta.id, t.meta]));
    const repo = projects.find((p) => p.name === name);
    for (const entry of bound.filter((e) => e.project === name)) {
      const taskId = entry.task as string;
      try {
        if (await collect(parts, entry, taskId, listed.get(taskId), repo, fetched)) freed.push({ ...entry });
      } catch (error) {
        if (isOrangeError(error) && error.code === 'E_LOCKED') busy.push(taskId);
        else parts.log.warn('gc skipped a worktree', { workspace: entry.name, task: taskId, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  const started: string[] = [];
  for (const name of project !== undefined ? [project] : projects.map((p) => p.name)) {
    try {
      started.push(...(await startQueued(parts, name)));
    } catch (error) {
      parts.log.warn('gc could not start queued tasks', { project: name, error: error instanceof Error ? error.message : String(error) });
    }
  }
  if (freed.length > 0 || busy.length > 0 || started.length > 0) {
    parts.log.info('gc done', { freed: freed.map((e) => e.name), ...(busy.length ? { busy } : {}), ...(started.length ? { started } : {}) });
  }
  return { freed, busy, started };
}

/**
 * Frees `entry` if its task is gone, terminal or still initial in its own workflow (`listed`: the
 * task as the listing has it, undefined when it was not listed); false when it is kept.
 */
async function collect(parts: PoolParts, entry: PoolEntry, taskId: string, listed: TaskMeta | undefined, project: Project | undefined, fetched: Set<string>): Promise<boolean> {
  const collectable = (workflow: Workflow, status: string) => workflow.isTerminal(status) || status === workflow.initial;
  if (listed !== undefined && !collectable(await parts.orange.workflowFor(listed), listed.status)) return false;
  if (listed === undefined) {
    // Not listed: deleted, or unreadable (which is not a reason to take its worktree).
    const gone = await parts.orange.store.read(entry.project, taskId).then(
      () => false,
      (error: unknown) => {
        if (isOrangeError(error) && error.code === 'E_TASK_NOT_FOUND') return true;
        throw error;
      },
    );
    if (gone) return gcReset(parts, entry, taskId, project, true, 'its task no longer exists', fetched);
  }
  return parts.orange.store.withTaskLock(entry.project, taskId, async () => {
    // Re-read under the lock: a transition may have moved the task on meanwhile.
    const fresh = await parts.orange.store.read(entry.project, taskId);
    const status = fresh.meta.status;
    const workflow = await parts.orange.workflowFor(fresh.meta);
    if (!collectable(workflow, status)) return false;
    const reason = workflow.isTerminal(status) ? `its task is ${status}` : `its task is still ${status} (stale reservation)`;
    const released = await gcReset(parts, entry, taskId, project, status === 'cancelled', reason, fetched);
    if (released && fresh.meta.workspace !== null) {
      await parts.orange.store.update(entry.project, taskId, { workspace: null });
      await parts.orange.store.appendHistory(entry.project, taskId, { type: 'workspace.released', workspace: entry.path, by: 'gc' });
    }
    return released;
  });
}

/** gc's reset: a refusal (uncommitted changes, a process that survived SIGKILL) is logged and keeps the worktree bound. */
async function gcReset(parts: PoolParts, entry: PoolEntry, taskId: string, project: Project | undefined, discard: boolean, reason: string, fetched: Set<string>): Promise<boolean> {
  try {
    const freed = await resetIfBound(parts, entry, taskId, project, { discard, fetch: project !== undefined && !fetched.has(project.name), reason });
    if (project) fetched.add(project.name);
    if (freed) parts.log.info('gc freed worktree', { workspace: entry.name, task: taskId, reason });
    else parts.log.info('gc left a worktree alone: it is no longer bound to the task it looked at', { workspace: entry.name, task: taskId });
    return freed;
  } catch (error) {
    if (!(isOrangeError(error) && error.code === 'E_WORKSPACE')) throw error;
    parts.log.warn('gc left a worktree bound', { workspace: entry.name, task: taskId, reason: error.message });
    return false;
  }
}

/**
 * The one way a worktree is reset and freed. Under the pool lock it checks that `entry` is still
 * bound to `taskId` — a worktree freed and handed to the next task meanwhile is left alone (false)
 * — then stops the task's own processes in it, refuses uncommitted changes unless `discard`,
 * resets it to the base and frees it (true). While it works the worktree stays bound to `taskId`,
 * so nobody is handed it half reset. Throws E_WORKSPACE (the worktree stays bound) on a refusal.
 */
export async function resetIfBound(
  parts: PoolParts,
  entry: PoolEntry,
  taskId: string,
  project: Project | undefined,
  options: { readonly discard: boolean; readonly fetch: boolean; readonly reason?: string },
): Promise<boolean> {
  const repo = project && existsSync(entry.path) ? parts.repo(project) : null;
  // The network stays outside the pool lock; the reset below only needs the refs fetched.
  if (repo && options.fetch) await repo.fetch();
  return parts.file.mutate(async (state) => {
    const current = state.workspaces.find((e) => e.path === entry.path);
    if (current?.task !== taskId) return { result: false };
    if (repo && existsSync(entry.path)) {
      await stopTaskProcesses(parts, current, taskId);
      const changed = await repo.changedFiles(entry.path);
      if (changed.length > 0 && !options.discard) {
        throw new OrangeError(
          'E_WORKSPACE',
          `worktree ${entry.name} (${entry.path}) has uncommitted changes (${listFiles(changed)}); commit or discard them, then free it with: orange workspace gc`,
          { workspace: entry.path, files: changed },
        );
      }
      if (changed.length > 0) parts.log.warn('gc discarding uncommitted changes', { workspace: entry.name, task: taskId, reason: options.reason, files: changed });
      await repo.reset(entry.path);
    }
    const workspaces = state.workspaces.map((e) => (e.path === entry.path ? { ...e, task: null } : e));
    parts.log.info('worktree freed', { task: taskId, workspace: entry.path });
    return { state: { ...state, workspaces }, result: true };
  });
}

/**
 * Stops the task's own processes working inside the worktree (SIGTERM, then SIGKILL): its agents
 * and what they started, known by the task id in their environment. Never anyone else's — a
 * person's shell, another task's agent, a tmux server — and never the calling process or its
 * ancestors (an agent cancelling its own task must be able to finish the call).
 */
async function stopTaskProcesses(parts: PoolParts, entry: PoolEntry, taskId: string): Promise<void> {
  const owned = await taskProcessesInside(entry.path, taskId);
  if (owned === null) {
    parts.log.debug('cannot read other processes\' environments here; not stopping processes in the worktree', { workspace: entry.name });
    return;
  }
  const caller = withAncestors(await listProcesses());
  const found = owned.filter((p) => !caller.has(p.pid));
  if (found.length === 0) return;
  const keys = new Set(found.map((p) => `${p.pid}:${p.start}`));
  const survivors = await stopProcesses((table) => table.filter((p) => keys.has(`${p.pid}:${p.start}`)), { signalNow: true });
  const stopped = found.filter((p) => !survivors.some((s) => s.pid === p.pid)).map((p) => p.pid);
  if (stopped.length > 0) parts.log.info('stopped processes left in the worktree', { workspace: entry.name, task: taskId, pids: stopped });
  if (survivors.length > 0) {
    const pids = survivors.map((p) => p.pid);
    throw new OrangeError('E_WORKSPACE', `worktree ${entry.name} (${entry.path}) still has running processes after SIGKILL (pid ${pids.join(', ')}); it stays bound to task ${taskId}`, {
      workspace: entry.path,
      pids,
    });
  }
}

/** At most five of the files, then how many more. */
export function listFiles(files: readonly string[]): string {
  const shown = files.slice(0, 5).join(', ');
  return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}
