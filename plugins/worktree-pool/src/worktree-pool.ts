import { existsSync } from 'node:fs';
import {
  OrangeError,
  isHeld,
  isOrangeError,
  listProcesses,
  processesInside,
  stopProcesses,
  taskProcessesInside,
  withAncestors,
  type ActionContext,
  type DiffStat,
  type GcResult,
  type Logger,
  type Orange,
  type Project,
  type TaskMeta,
  type TransitionEvent,
  type Workflow,
  type WorkspaceInfo,
  type WorkspaceProvider,
} from '@orange/core';
import { Git } from './git.js';
import type { WorktreePoolOptions } from './options.js';
import { PoolFile, slotNumber, type PoolEntry, type PoolState } from './pool-file.js';
import { ProjectRepo, TASK_LINK } from './project-repo.js';

/** The name the plugin taps the bus and fills the slot with. */
export const PLUGIN_NAME = 'worktree-pool';

type Reservation = { readonly entry: PoolEntry } | { readonly exhausted: string };

/**
 * A per-project pool of git worktrees under `$ORANGE_HOME/workspaces`. The pool file is the
 * only record of who holds what; every change to it happens under the pool lock.
 */
export class WorktreePool implements WorkspaceProvider {
  readonly name = PLUGIN_NAME;
  private readonly git: Git;
  private readonly file: PoolFile;
  private readonly log: Logger;

  constructor(
    private readonly orange: Orange,
    private readonly options: WorktreePoolOptions,
  ) {
    this.git = new Git(options.gitBin);
    this.file = new PoolFile(orange.paths.poolFile);
    this.log = orange.log.child(PLUGIN_NAME);
  }

  /**
   * `beforeTransition`: a transition that will run `acquire_workspace` reserves a worktree now,
   * so that an exhausted pool refuses the transition (the task stays where it is) instead of
   * failing a hook after the status was written.
   */
  async reserveForTransition(event: TransitionEvent): Promise<string | undefined> {
    const meta = event.task.meta;
    if (!event.transition.hooks.includes('acquire_workspace') || meta.workspace) return undefined;
    const project = await this.orange.projects.get(meta.project);
    const reservation = await this.reserve(meta, project);
    if ('exhausted' in reservation) {
      this.log.info('transition refused: pool exhausted', { task: meta.id, project: meta.project, from: event.from, to: event.to });
      return reservation.exhausted;
    }
    return undefined;
  }

  /** `acquire_workspace`: binds a worktree to the task, puts it on the task's branch, links and hides TASK.md. */
  async acquire(ctx: ActionContext): Promise<void> {
    const meta = ctx.task.meta;
    const project = await this.orange.projects.get(meta.project);
    const repo = this.repo(project);
    // Usually found already reserved by reserveForTransition; created-in-place tasks reserve here.
    const reservation = await this.reserve(meta, project);
    if ('exhausted' in reservation) throw new OrangeError('E_POOL_EXHAUSTED', reservation.exhausted, { project: project.name });
    const path = reservation.entry.path;
    if (meta.workspace !== path) {
      await repo.fetch();
      const how = await repo.switchToBranch(path, meta.branch);
      ctx.log.info('worktree on task branch', { task: meta.id, workspace: path, branch: meta.branch, branchSource: how });
    }
    await repo.linkTask(path, this.orange.paths.taskFile(meta.project, meta.id));
    await repo.exclude(path, this.excludes());
    if (meta.workspace !== path) {
      await ctx.update({ workspace: path });
      await ctx.record({ type: 'workspace.acquired', workspace: path, branch: meta.branch });
    }
  }

  /**
   * `release_workspace`: stops the task's own processes still inside the worktree (an agent's
   * background process), refuses a worktree with uncommitted changes; otherwise resets it to the
   * base, unlinks TASK.md and frees it. Once the move is over, the oldest queued tasks of the
   * project are started on what is free (`spawn_next` does the same inside the move).
   */
  async release(ctx: ActionContext): Promise<void> {
    const meta = ctx.task.meta;
    const state = await this.file.read();
    const entry = state.workspaces.find((e) => e.task === meta.id) ?? state.workspaces.find((e) => e.path === meta.workspace);
    if (!entry && !meta.workspace) return;
    const project = (await this.orange.projects.list()).find((p) => p.name === meta.project);
    const freed = entry?.task === meta.id && (await this.resetIfBound(entry, meta.id, project, { discard: false, fetch: true }));
    if (!entry || !freed) {
      // Not bound to this task in the pool (freed by gc, or given to another task since): resetting
      // it could clobber whoever holds it now, so only the task's own field is cleared.
      ctx.log.warn('worktree not held by this task; only clearing its workspace field', { task: meta.id, workspace: meta.workspace, holder: entry?.task ?? null });
      await ctx.update({ workspace: null });
      return;
    }
    if (meta.workspace !== null) await ctx.update({ workspace: null });
    await ctx.record({ type: 'workspace.released', workspace: entry.path });
    ctx.defer(async () => {
      await this.startQueued(meta.project, { log: ctx.log });
    });
  }

  /**
   * `spawn_next`: starts the oldest pending tasks of the same project while worktrees are free.
   * A refusal (pool still exhausted) or an empty queue is not an error: the queue simply waits.
   */
  async spawnNext(ctx: ActionContext): Promise<void> {
    await this.startQueued(ctx.task.meta.project, { log: ctx.log, except: ctx.task.meta.id, announce: true });
  }

  /**
   * Starts the project's queued tasks (its workflow's initial status), oldest first, while the pool
   * has room for them; returns the ids started. A task someone else started, changed, removed or
   * is moving meanwhile is skipped; a veto of one task (a plugin's) does not hold up the others.
   */
  async startQueued(project: string, options: { readonly log?: Logger; readonly except?: string; readonly announce?: boolean } = {}): Promise<string[]> {
    const { log = this.log, except } = options;
    const workflow = await this.orange.workflowForProject(project);
    const { tasks } = await this.orange.store.list(project);
    const waiting = tasks
      .filter((t) => t.meta.status === workflow.initial && t.meta.id !== except)
      .sort((a, b) => a.meta.created_at.localeCompare(b.meta.created_at) || a.meta.id.localeCompare(b.meta.id));
    // A task put aside (--no-spawn) is not in the queue: only `orange task spawn` starts it.
    const held = await Promise.all(waiting.map(async (t) => isHeld(await this.orange.store.history(project, t.meta.id))));
    const queue = waiting.filter((_, i) => !held[i]);
    if (queue.length === 0) {
      // Asked for by a move (spawn_next), an empty queue is worth a line; on every monitor pass it is not.
      if (options.announce) log.info('no pending task to spawn', { project });
      return [];
    }
    const started: string[] = [];
    for (const next of queue) {
      if (!(await this.hasRoom(project))) {
        log.info('pending tasks wait for a worktree', { project, waiting: queue.length - started.length });
        break;
      }
      try {
        await this.orange.engine.spawn({ project, id: next.meta.id });
        started.push(next.meta.id);
        log.info('spawned next pending task', { project, task: next.meta.id, ...(except ? { after: except } : {}) });
      } catch (error) {
        // By code, not instanceof: the engine may come from another copy of @orange/core (the CLI's bundle).
        if (isOrangeError(error) && ['E_VETOED', 'E_NOT_ALLOWED', 'E_TASK_NOT_FOUND', 'E_LOCKED', 'E_TAMPERED'].includes(error.code)) {
          log.info('skipping pending task', { project, task: next.meta.id, reason: error.message });
          continue;
        }
        throw error;
      }
    }
    return started;
  }

  /** True when a task of `project` could be given a worktree now (as `reserve` would decide, without binding one). */
  private async hasRoom(project: string): Promise<boolean> {
    const size = (await this.orange.projects.get(project)).pool_size;
    const mine = (await this.file.read()).workspaces.filter((e) => e.project === project);
    const unheld = mine.filter((e) => e.task === null);
    if (mine.length - unheld.length >= size) return false;
    if (mine.length < size) return true;
    const busy = await this.busyWorktrees(unheld);
    return unheld.some((e) => !busy.has(e.path));
  }

  /**
   * `orange task update --branch [name]`: renames the branch checked out in the task's worktree
   * (`git branch -m`), or with `null` reports the branch an agent already switched to.
   */
  async renameBranch(task: TaskMeta, to: string | null): Promise<string> {
    const worktree = task.workspace;
    if (!worktree || !existsSync(worktree)) {
      if (to === null) throw new OrangeError('E_WORKSPACE', `task ${task.id} has no worktree to read the branch from; name it: --branch NAME`);
      return to;
    }
    const current = (await this.git.run(worktree, ['branch', '--show-current'])).trim();
    if (current === '') throw new OrangeError('E_WORKSPACE', `the worktree of task ${task.id} (${worktree}) is not on a branch (detached HEAD)`);
    if (to === null || to === current) return current;
    if (await this.git.hasRef(worktree, `refs/heads/${to}`)) {
      throw new OrangeError('E_WORKSPACE', `a branch named ${to} already exists in the repository; pick another name`);
    }
    await this.git.run(worktree, ['branch', '-m', current, to]);
    this.log.info('branch renamed', { task: task.id, from: current, to });
    return to;
  }

  /**
   * The task's worktree against the default branch (the dashboard's AHEAD and CHANGES): commits
   * since the merge base, and lines changed including what is not committed yet.
   */
  async diffStat(task: TaskMeta): Promise<DiffStat | null> {
    const worktree = task.workspace;
    if (!worktree || !existsSync(worktree)) return null;
    const project = await this.orange.projects.get(task.project);
    const base = await this.repo(project).baseRef();
    const mergeBase = await this.git.attempt(worktree, ['merge-base', base, 'HEAD']);
    if (!mergeBase.ok) return null;
    const from = mergeBase.stdout.trim();
    const [ahead, numstat] = await Promise.all([
      this.git.run(worktree, ['rev-list', '--count', `${from}..HEAD`]),
      this.git.run(worktree, ['diff', '--numstat', '--no-renames', from]),
    ]);
    const files = numstat
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [added = '0', removed = '0', ...path] = line.split('\t');
        // Binary files are counted "-": no lines.
        return { path: path.join('\t'), added: Number(added) || 0, removed: Number(removed) || 0 };
      });
    return {
      ahead: Number(ahead.trim()) || 0,
      added: files.reduce((n, f) => n + f.added, 0),
      removed: files.reduce((n, f) => n + f.removed, 0),
      files,
    };
  }

  /** Creates every worktree of the project's pool (`orange workspace init`). */
  async init(project: Project): Promise<WorkspaceInfo[]> {
    const repo = this.repo(project);
    await repo.fetch();
    await this.file.mutate(async (state) => {
      const workspaces = [...state.workspaces];
      for (let n = 1; n <= project.pool_size; n++) {
        const path = this.orange.paths.workspaceDir(project.name, n);
        await repo.addWorktree(path);
        if (!workspaces.some((e) => e.project === project.name && e.path === path)) {
          workspaces.push({ name: `${project.name}--${n}`, project: project.name, path, task: null });
        }
      }
      return { state: { ...state, workspaces }, result: undefined };
    });
    return this.list(project.name);
  }

  /**
   * Removes every worktree of a project that is being unregistered (`orange project remove`).
   * Refused, with nothing removed, while a worktree is held by a task or has uncommitted changes.
   */
  async remove(project: Project): Promise<WorkspaceInfo[]> {
    const repo = this.repo(project);
    return this.file.mutate(async (state) => {
      const mine = state.workspaces.filter((e) => e.project === project.name);
      const held = mine.find((e) => e.task !== null);
      if (held) {
        throw new OrangeError('E_WORKSPACE', `worktree ${held.name} is still held by task ${held.task}; free it first with: orange workspace gc`, { workspace: held.path });
      }
      for (const entry of mine) {
        const changed = existsSync(entry.path) ? await repo.changedFiles(entry.path) : [];
        if (changed.length > 0) {
          throw new OrangeError('E_WORKSPACE', `worktree ${entry.name} (${entry.path}) has uncommitted changes (${listFiles(changed)}); commit or discard them first`, {
            workspace: entry.path,
            files: changed,
          });
        }
      }
      for (const entry of mine) await repo.removeWorktree(entry.path);
      const workspaces = state.workspaces.filter((e) => e.project !== project.name);
      return { state: { ...state, workspaces }, result: mine.map((e) => ({ ...e })) };
    });
  }

  /** The pool's worktrees (of one project, or all), in slot order. */
  async list(project?: string): Promise<WorkspaceInfo[]> {
    const { workspaces } = await this.file.read();
    return workspaces
      .filter((e) => project === undefined || e.project === project)
      .sort((a, b) => a.project.localeCompare(b.project) || slotNumber(a) - slotNumber(b))
      .map((e) => ({ ...e }));
  }

  /**
   * Frees worktrees bound to tasks that are gone, terminal, or still in the initial status (a
   * reservation whose transition never completed), then starts queued tasks on what is free. A
   * cancelled or deleted task's changes are discarded (logged first); a done task's uncommitted
   * changes keep the worktree bound. A task another process is moving is left for next time
   * (`busy`): under `withoutLockWaits` (the monitor) its lock is not waited for.
   */
  async gc(project?: string): Promise<GcResult> {
    const { workspaces } = await this.file.read();
    const bound = workspaces.filter((e) => e.task !== null && (project === undefined || e.project === project));
    const freed: WorkspaceInfo[] = [];
    const busy: string[] = [];
    const fetched = new Set<string>();
    const projects = await this.orange.projects.list();
    for (const name of new Set(bound.map((e) => e.project))) {
      // The listing (an index checked against the files) says which tasks could be done with their
      // worktree; only those are read again, under their lock. Most belong to tasks still at work.
      const { tasks } = await this.orange.store.list(name);
      const statuses = new Map(tasks.map((t) => [t.meta.id, t.meta.status]));
      const workflow = await this.orange.workflowForProject(name);
      const repo = projects.find((p) => p.name === name);
      for (const entry of bound.filter((e) => e.project === name)) {
        const taskId = entry.task as string;
        try {
          if (await this.collect(entry, taskId, statuses.get(taskId), workflow, repo, fetched)) freed.push({ ...entry });
        } catch (error) {
          if (isOrangeError(error) && error.code === 'E_LOCKED') busy.push(taskId);
          else this.log.warn('gc skipped a worktree', { workspace: entry.name, task: taskId, error: error instanceof Error ? error.message : String(error) });
        }
      }
    }
    const started: string[] = [];
    for (const name of project !== undefined ? [project] : projects.map((p) => p.name)) {
      try {
        started.push(...(await this.startQueued(name)));
      } catch (error) {
        this.log.warn('gc could not start queued tasks', { project: name, error: error instanceof Error ? error.message : String(error) });
      }
    }
    if (freed.length > 0 || busy.length > 0 || started.length > 0) {
      this.log.info('gc done', { freed: freed.map((e) => e.name), ...(busy.length ? { busy } : {}), ...(started.length ? { started } : {}) });
    }
    return { freed, busy, started };
  }

  /**
   * Frees `entry` if its task is gone, terminal or still initial (`listed`: its status in the
   * listing, undefined when it was not listed); false when it is kept.
   */
  private async collect(entry: PoolEntry, taskId: string, listed: string | undefined, workflow: Workflow, project: Project | undefined, fetched: Set<string>): Promise<boolean> {
    const collectable = (status: string) => workflow.isTerminal(status) || status === workflow.initial;
    if (listed !== undefined && !collectable(listed)) return false;
    if (listed === undefined) {
      // Not listed: deleted, or unreadable (which is not a reason to take its worktree).
      const gone = await this.orange.store.read(entry.project, taskId).then(
        () => false,
        (error: unknown) => {
          if (isOrangeError(error) && error.code === 'E_TASK_NOT_FOUND') return true;
          throw error;
        },
      );
      if (gone) return this.gcReset(entry, taskId, project, true, 'its task no longer exists', fetched);
    }
    return this.orange.store.withTaskLock(entry.project, taskId, async () => {
      // Re-read under the lock: a transition may have moved the task on meanwhile.
      const fresh = await this.orange.store.read(entry.project, taskId);
      const status = fresh.meta.status;
      if (!collectable(status)) return false;
      const reason = workflow.isTerminal(status) ? `its task is ${status}` : `its task is still ${status} (stale reservation)`;
      const released = await this.gcReset(entry, taskId, project, status === 'cancelled', reason, fetched);
      if (released && fresh.meta.workspace !== null) {
        await this.orange.store.update(entry.project, taskId, { workspace: null });
        await this.orange.store.appendHistory(entry.project, taskId, { type: 'workspace.released', workspace: entry.path, by: 'gc' });
      }
      return released;
    });
  }

  /** gc's reset: a refusal (uncommitted changes, a process that survived SIGKILL) is logged and keeps the worktree bound. */
  private async gcReset(entry: PoolEntry, taskId: string, project: Project | undefined, discard: boolean, reason: string, fetched: Set<string>): Promise<boolean> {
    try {
      const freed = await this.resetIfBound(entry, taskId, project, { discard, fetch: project !== undefined && !fetched.has(project.name), reason });
      if (project) fetched.add(project.name);
      if (freed) this.log.info('gc freed worktree', { workspace: entry.name, task: taskId, reason });
      else this.log.info('gc left a worktree alone: it is no longer bound to the task it looked at', { workspace: entry.name, task: taskId });
      return freed;
    } catch (error) {
      if (!(isOrangeError(error) && error.code === 'E_WORKSPACE')) throw error;
      this.log.warn('gc left a worktree bound', { workspace: entry.name, task: taskId, reason: error.message });
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
  private async resetIfBound(
    entry: PoolEntry,
    taskId: string,
    project: Project | undefined,
    options: { readonly discard: boolean; readonly fetch: boolean; readonly reason?: string },
  ): Promise<boolean> {
    const repo = project && existsSync(entry.path) ? this.repo(project) : null;
    // The network stays outside the pool lock; the reset below only needs the refs fetched.
    if (repo && options.fetch) await repo.fetch();
    return this.file.mutate(async (state) => {
      const current = state.workspaces.find((e) => e.path === entry.path);
      if (current?.task !== taskId) return { result: false };
      if (repo && existsSync(entry.path)) {
        await this.stopTaskProcesses(current, taskId);
        const changed = await repo.changedFiles(entry.path);
        if (changed.length > 0 && !options.discard) {
          throw new OrangeError(
            'E_WORKSPACE',
            `worktree ${entry.name} (${entry.path}) has uncommitted changes (${listFiles(changed)}); commit or discard them, then free it with: orange workspace gc`,
            { workspace: entry.path, files: changed },
          );
        }
        if (changed.length > 0) this.log.warn('gc discarding uncommitted changes', { workspace: entry.name, task: taskId, reason: options.reason, files: changed });
        await repo.reset(entry.path);
      }
      const workspaces = state.workspaces.map((e) => (e.path === entry.path ? { ...e, task: null } : e));
      this.log.info('worktree freed', { task: taskId, workspace: entry.path });
      return { state: { ...state, workspaces }, result: true };
    });
  }

  /**
   * Binds a worktree to the task under the pool lock: the one it already holds, else a free one
   * (the task's recorded workspace first), else a new one while the project is below pool_size.
   */
  private async reserve(meta: TaskMeta, project: Project): Promise<Reservation> {
    return this.file.mutate<Reservation>(async (state) => {
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
      const busy = await this.busyWorktrees(unheld);
      const free = unheld.filter((e) => !busy.has(e.path));
      if (free.length === 0 && mine.length >= project.pool_size) {
        return {
          result: {
            exhausted: `workspace pool for project ${project.name} is exhausted (${inUse} of ${project.pool_size} in use, ${busy.size} more with processes still running in them); the task stays ${meta.status}`,
          },
        };
      }
      const chosen = free.find((e) => e.path === meta.workspace) ?? free[0] ?? this.newEntry(project, mine);
      // Created (or re-created, if deleted by hand) under the lock so no one is handed a half-made worktree.
      await this.repo(project).addWorktree(chosen.path);
      const entry: PoolEntry = { ...chosen, task: meta.id };
      const workspaces = state.workspaces.some((e) => e.path === chosen.path)
        ? state.workspaces.map((e) => (e.path === chosen.path ? entry : e))
        : [...state.workspaces, entry];
      this.log.info('worktree reserved', { task: meta.id, workspace: entry.name });
      return { state: { ...state, workspaces }, result: { entry } };
    });
  }

  /** The worktrees among `entries` that some process still works in (none when this system cannot tell). */
  private async busyWorktrees(entries: readonly PoolEntry[]): Promise<Set<string>> {
    const paths = entries.map((e) => e.path).filter((p) => existsSync(p));
    if (paths.length === 0) return new Set();
    const inside = await processesInside(paths);
    if (inside === null) {
      this.log.debug('cannot see process working directories (no /proc, no lsof); not checking worktrees for processes');
      return new Set();
    }
    const busy = new Set([...inside].filter(([, procs]) => procs.length > 0).map(([path]) => path));
    for (const path of busy) this.log.info('worktree skipped: processes still running in it', { workspace: path, pids: inside.get(path)!.map((p) => p.pid) });
    return busy;
  }

  /**
   * Stops the task's own processes working inside the worktree (SIGTERM, then SIGKILL): its agents
   * and what they started, known by the task id in their environment. Never anyone else's — a
   * person's shell, another task's agent, a tmux server — and never the calling process or its
   * ancestors (an agent cancelling its own task must be able to finish the call).
   */
  private async stopTaskProcesses(entry: PoolEntry, taskId: string): Promise<void> {
    const owned = await taskProcessesInside(entry.path, taskId);
    if (owned === null) {
      this.log.debug('cannot read other processes\' environments here; not stopping processes in the worktree', { workspace: entry.name });
      return;
    }
    const caller = withAncestors(await listProcesses());
    const found = owned.filter((p) => !caller.has(p.pid));
    if (found.length === 0) return;
    const keys = new Set(found.map((p) => `${p.pid}:${p.start}`));
    const survivors = await stopProcesses((table) => table.filter((p) => keys.has(`${p.pid}:${p.start}`)), { signalNow: true });
    const stopped = found.filter((p) => !survivors.some((s) => s.pid === p.pid)).map((p) => p.pid);
    if (stopped.length > 0) this.log.info('stopped processes left in the worktree', { workspace: entry.name, task: taskId, pids: stopped });
    if (survivors.length > 0) {
      const pids = survivors.map((p) => p.pid);
      throw new OrangeError('E_WORKSPACE', `worktree ${entry.name} (${entry.path}) still has running processes after SIGKILL (pid ${pids.join(', ')}); it stays bound to task ${taskId}`, {
        workspace: entry.path,
        pids,
      });
    }
  }

  private newEntry(project: Project, existing: readonly PoolEntry[]): PoolEntry {
    const used = new Set(existing.map(slotNumber));
    let n = 1;
    while (used.has(n)) n++;
    return { name: `${project.name}--${n}`, project: project.name, path: this.orange.paths.workspaceDir(project.name, n), task: null };
  }

  private excludes(): string[] {
    return [TASK_LINK, ...[...this.orange.harnesses.values()].flatMap((h) => h.excludes)];
  }

  private repo(project: Project): ProjectRepo {
    return new ProjectRepo(project, this.git, this.options.remote, this.log);
  }
}

function listFiles(files: readonly string[]): string {
  const shown = files.slice(0, 5).join(', ');
  return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}
