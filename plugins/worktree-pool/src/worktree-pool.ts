import { existsSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  OrangeError,
  type ActionContext,
  type DiffStat,
  type GcResult,
  type Logger,
  type Orange,
  type Project,
  type TaskMeta,
  type TransitionEvent,
  type WorkspaceInfo,
  type WorkspaceProvider,
} from '@orange/core';
import { collectWorktrees, listFiles, resetIfBound } from './clean-up.js';
import { Git } from './git.js';
import type { WorktreePoolOptions } from './options.js';
import { PoolFile, slotNumber } from './pool-file.js';
import type { PoolParts } from './pool-parts.js';
import { ProjectRepo, TASK_LINK } from './project-repo.js';
import { startQueued } from './queue.js';
import { reserve } from './reservation.js';

/** The name the plugin taps the bus and fills the slot with. */
export const PLUGIN_NAME = 'worktree-pool';

/**
 * A per-project pool of git worktrees under `$ORANGE_HOME/workspaces`. The pool file is the
 * only record of who holds what; every change to it happens under the pool lock. Reserving
 * (reservation.ts), giving back (clean-up.ts) and the queue (queue.ts) are its parts.
 */
export class WorktreePool implements WorkspaceProvider, PoolParts {
  readonly name = PLUGIN_NAME;
  readonly file: PoolFile;
  readonly log: Logger;
  private readonly git: Git;
  private readonly repos = new Map<string, ProjectRepo>();

  constructor(
    readonly orange: Orange,
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
    const reservation = await reserve(this, meta, project);
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
    const reservation = await reserve(this, meta, project);
    if ('exhausted' in reservation) throw new OrangeError('E_POOL_EXHAUSTED', reservation.exhausted, { project: project.name });
    const path = reservation.entry.path;
    if (meta.workspace !== path) {
      await repo.fetch();
      const how = await repo.switchToBranch(path, meta.branch);
      // Nothing the last task left (an untracked APPROVED file, build output) reaches this one.
      await repo.clean(path, this.options.keep);
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
   * `agentCommand` (before every agent starts, in a terminal or headless): points the worktree's
   * TASK.md link at the task file's place if it names another. A task that acquired its worktree
   * before an upgrade moved TASK.md into the task's `agent/` folder keeps a link to the old place,
   * and `acquire` does not run again while the task holds its worktree. One `readlink` when the
   * link is right; a start is not refused for a link that cannot be made (the acquire reported it).
   */
  async relinkBeforeStart(meta: TaskMeta): Promise<void> {
    const worktree = meta.workspace;
    if (!worktree) return;
    const taskFile = this.orange.paths.taskFile(meta.project, meta.id);
    if ((await readlink(join(worktree, TASK_LINK)).catch(() => null)) === taskFile) return;
    const { workspaces } = await this.file.read();
    // Only a worktree of this pool that this task holds: never a link in someone else's.
    if (!workspaces.some((e) => e.path === worktree && e.task === meta.id)) return;
    try {
      await this.repo(await this.orange.projects.get(meta.project)).linkTask(worktree, taskFile);
      this.log.info('TASK.md link pointed at the task file', { task: meta.id, workspace: worktree });
    } catch (error) {
      this.log.warn('TASK.md link could not be made', { task: meta.id, workspace: worktree, error: error instanceof Error ? error.message : String(error) });
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
    // No fetch: the next acquire fetches before it uses the base, and a fleet saves one per task.
    const freed = entry?.task === meta.id && (await resetIfBound(this, entry, meta.id, project, { discard: false, fetch: false }));
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
      await startQueued(this, meta.project, { log: ctx.log });
    });
  }

  /**
   * `spawn_next`: starts the oldest pending tasks of the same project while worktrees are free.
   * A refusal (pool still exhausted) or an empty queue is not an error: the queue simply waits.
   */
  async spawnNext(ctx: ActionContext): Promise<void> {
    await startQueued(this, ctx.task.meta.project, { log: ctx.log, except: ctx.task.meta.id, announce: true });
  }

  /**
   * Starts the project's queued tasks (its workflow's initial status), oldest first, while the pool
   * has room for them; returns the ids started. A task someone else started, changed, removed or
   * is moving meanwhile is skipped; a veto of one task (a plugin's) does not hold up the others.
   */
  async startQueued(project: string, options: { readonly log?: Logger; readonly except?: string; readonly announce?: boolean } = {}): Promise<string[]> {
    return startQueued(this, project, options);
  }

  /**
   * `orange task update --branch [name]`: renames the branch checked out in the task's worktree
   * (`git branch -m`), or with `null` reports the branch an agent already switched to.
   */
  async renameBranch(task: TaskMeta, to: string | null): Promise<string> {
    const worktree = task.workspace;
    const project = await this.orange.projects.get(task.project);
    if (!worktree || !existsSync(worktree)) {
      if (to === null) throw new OrangeError('E_WORKSPACE', `task ${task.id} has no worktree to read the branch from; name it: --branch NAME`);
      await this.refuseTaken(project, to);
      return to;
    }
    const current = (await this.git.run(worktree, ['branch', '--show-current'])).trim();
    if (current === '') throw new OrangeError('E_WORKSPACE', `the worktree of task ${task.id} (${worktree}) is not on a branch (detached HEAD)`);
    if (to === current) return current;
    if (to === null) {
      // Adopting a branch the agent switched to with git: it must be a new one, not someone else's
      // (a task's branch is deleted on the remote when it is merged).
      if (current !== task.branch) {
        const taken = await this.repo(project).branchTaken(current, worktree, { remotesOnly: true });
        if (taken) throw new OrangeError('E_WORKSPACE', `the worktree of task ${task.id} is on branch ${current}, which exists already (${taken}); a task's branch must be its own: git branch -m ${current} <new name>, then orange task update --branch`);
      }
      return current;
    }
    await this.refuseTaken(project, to, worktree);
    await this.git.run(worktree, ['branch', '-m', current, to]);
    this.log.info('branch renamed', { task: task.id, from: current, to });
    return to;
  }

  /** `branchTaken` of the slot: where a branch of that name exists already, or null. */
  async branchTaken(projectName: string, name: string): Promise<string | null> {
    return this.repo(await this.orange.projects.get(projectName)).branchTaken(name);
  }

  /** Refuses a new branch name that exists already, locally or on a remote. */
  private async refuseTaken(project: Project, name: string, dir?: string): Promise<void> {
    const taken = await this.repo(project).branchTaken(name, dir);
    if (taken) throw new OrangeError('E_WORKSPACE', `a branch named ${name} already exists (${taken}); pick another name`);
  }

  /**
   * The task's worktree against the default branch (the dashboard's AHEAD and CHANGES): commits
   * since the merge base, and lines changed including what is not committed yet.
   */
  async diffStat(task: TaskMeta): Promise<DiffStat | null> {
    const base = await this.diffBase(task);
    if (!base) return null;
    const { worktree, from } = base;
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

  async diff(task: TaskMeta, maxBytes = 4 * 1024 * 1024): Promise<string | null> {
    const base = await this.diffBase(task);
    if (!base) return null;
    const text = await this.git.run(base.worktree, ['diff', '--no-color', '--no-ext-diff', '--no-renames', base.from]);
    return Buffer.byteLength(text) > maxBytes ? `${Buffer.from(text).subarray(0, maxBytes).toString('utf8')}\n[cut at ${maxBytes} bytes]\n` : text;
  }

  /** The task's worktree and where its branch left the default branch (the commit both diffs start from); null without a worktree. */
  private async diffBase(task: TaskMeta): Promise<{ readonly worktree: string; readonly from: string } | null> {
    const worktree = task.workspace;
    if (!worktree || !existsSync(worktree)) return null;
    const project = await this.orange.projects.get(task.project);
    const base = await this.repo(project).baseRef();
    const mergeBase = await this.git.attempt(worktree, ['merge-base', base, 'HEAD']);
    return mergeBase.ok ? { worktree, from: mergeBase.stdout.trim() } : null;
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
      // The repository's git settings as Orange found them (one project per repository: project add refuses a second).
      if (existsSync(project.path)) await repo.removeExcludes();
      const workspaces = state.workspaces.filter((e) => e.project !== project.name);
      return { state: { ...state, workspaces }, result: mine.map((e) => ({ ...e })) };
    });
  }

  /** What the project's worktrees start from: `<remote>/<default>`, or the local default branch without a remote; E_WORKSPACE when neither exists. */
  async baseRef(project: Project): Promise<string> {
    return this.repo(project).baseRef();
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
    return collectWorktrees(this, project);
  }

  private excludes(): string[] {
    return [TASK_LINK, ...[...this.orange.harnesses.values()].flatMap((h) => h.excludes)];
  }

  /** One per project (as registered now) for the life of this instance: what it remembers (the remote, a fetch under way) is shared. */
  repo(project: Project): ProjectRepo {
    const key = JSON.stringify([project.name, project.path, project.default_branch]);
    let repo = this.repos.get(key);
    if (!repo) {
      repo = new ProjectRepo(project, this.git, this.options.remote, this.log);
      this.repos.set(key, repo);
    }
    return repo;
  }
}
