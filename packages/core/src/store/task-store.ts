import { AsyncLocalStorage } from 'node:async_hooks';
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { lstat, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { OrangeError } from '../errors/index.js';
import { TASK_ID_PATTERN, type Task, type TaskMeta } from '../task/index.js';
import { AgentIdentities } from './agent-identities.js';
import { appendHistory, ledgerStatus, readHistory, type HistoryEvent } from './history.js';
import { withLock } from './lock.js';
import { assertProjectName, assertTaskId, projectNameProblem } from './names.js';
import type { OrangePaths } from './paths.js';
import { TaskFiles, sameFile, type TaskChange, type TaskInspection } from './task-files.js';
import { TaskIndex, type IndexEntry } from './task-index.js';

export { TASK_FILE_MAX_BYTES, type TaskChange, type TaskInspection } from './task-files.js';

/** A TASK.md that could not be read, reported by `list` instead of failing the whole listing. */
export interface UnreadableTask {
  readonly project: string;
  readonly id: string;
  readonly error: string;
}

/** A task as `list` gives it: its fields (no body), and the sealed fields TASK.md shows forged. */
export interface ListedTask {
  readonly meta: TaskMeta;
  readonly tampered: readonly string[];
}

export interface TaskStoreOptions {
  /** How long a reader waits for a TASK.md that an editor is rewriting to become whole again. */
  readonly settleMs?: number;
}

/**
 * Reads and writes tasks under `$ORANGE_HOME/tasks`: one task at a time (its two files and the
 * protocol shared with editors are `TaskFiles`'), all of them (the listing, through the index), its
 * ledger, and the locks. Writers hold the task lock (`withTaskLock`).
 */
export class TaskStore {
  private readonly files: TaskFiles;
  private readonly index: TaskIndex;
  /** Each spawned agent's identity (the hash of its secret). */
  readonly identities: AgentIdentities;
  /** The task locks the current async context holds (the same lock taken again would wait for itself). */
  private readonly locksHeld = new AsyncLocalStorage<ReadonlySet<string>>();
  /** False inside `withoutLockWaits`: task locks are tried once, not waited for. */
  private readonly lockWaits = new AsyncLocalStorage<boolean>();

  constructor(
    readonly paths: OrangePaths,
    options: TaskStoreOptions = {},
  ) {
    this.files = new TaskFiles(paths, options.settleMs ?? 1500);
    this.index = new TaskIndex(paths);
    this.identities = new AgentIdentities(paths);
  }

  /** Reads one task. Throws E_TASK_NOT_FOUND, E_FRONTMATTER, E_UNREADABLE, or E_TAMPERED for a file naming another task. */
  async read(project: string, id: string): Promise<Task> {
    return (await this.inspect(project, id)).task;
  }

  /** Reads one task and says which sealed fields TASK.md shows with other values than the state's. */
  async inspect(project: string, id: string, options: { acceptForeign?: boolean } = {}): Promise<TaskInspection> {
    assertProjectName(project);
    assertTaskId(id);
    const state = await this.files.readState(project, id);
    const settled = await this.files.settle(project, id, state);
    try {
      return this.files.view(project, id, state, settled, options);
    } finally {
      await settled.file?.handle.close();
    }
  }

  /** Finds a task by id in any project. */
  async find(id: string): Promise<Task> {
    const ref = await this.locate(id);
    return this.read(ref.project, ref.id);
  }

  /** The project a task id belongs to, without reading the task. */
  async locate(id: string): Promise<{ project: string; id: string }> {
    assertTaskId(id);
    for (const project of this.projectsWithTasks()) {
      const exists = await lstat(this.paths.taskDir(project, id)).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (exists) return { project, id };
    }
    throw new OrangeError('E_TASK_NOT_FOUND', `no task with id ${id}`);
  }

  /**
   * Every task of one project (or of all): fields only, served from a per-project index whose
   * entries are checked against the files' inode, size and mtime on every call, so a hand edit
   * or a write by another process is always seen; only changed tasks are read again.
   */
  async list(project?: string): Promise<{ tasks: ListedTask[]; unreadable: UnreadableTask[] }> {
    const projects = project === undefined ? this.projectsWithTasks() : [assertProjectName(project)];
    const tasks: ListedTask[] = [];
    const unreadable: UnreadableTask[] = [];
    for (const p of projects) {
      const entries = await this.index.entries(p, this.taskIds(p), (id) => this.indexEntry(p, id));
      for (const [id, entry] of entries) {
        if (entry.meta) tasks.push({ meta: entry.meta, tampered: entry.tampered });
        else if (entry.error !== undefined) unreadable.push({ project: p, id, error: entry.error });
      }
    }
    return { tasks, unreadable };
  }

  /** Creates a new task directory, its state, its TASK.md and its first history event. */
  async create(task: Task, options: { readonly held?: boolean } = {}): Promise<Task> {
    const { project, id } = task.meta;
    assertProjectName(project);
    assertTaskId(id);
    // TASK.md's own folder (`agent/`), made with the task's: the task lock stays outside it.
    await mkdir(this.paths.agentDir(project, id), { recursive: true });
    return this.withTaskLock(project, id, async () => {
      await this.files.render(project, id, null, null, task, null, false);
      await this.appendHistory(project, id, { type: 'task.created', status: task.meta.status, branch: task.meta.branch, ...(options.held ? { held: true } : {}) });
      return task;
    });
  }

  /**
   * Writes a task's fields and this exact body, stamping `updated_at`. Caller holds the task lock.
   * Prefer `update`, which keeps what an agent wrote into the body meanwhile.
   */
  async write(task: Task): Promise<Task> {
    return this.files.change(task.meta.project, task.meta.id, () => task);
  }

  /**
   * Patches a task's fields and optionally transforms its body, both applied to what is on disk at
   * the moment of writing (an agent's concurrent edit is kept). Caller holds the task lock.
   */
  async update(project: string, id: string, patch: Partial<TaskMeta>, body?: (current: string) => string): Promise<Task> {
    return this.files.change(project, id, (current) => ({
      meta: { ...current.meta, ...patch } as TaskMeta,
      body: body ? body(current.body) : current.body,
    }));
  }

  /** Applies a frontmatter patch under the task lock and returns the written task. */
  async patch(project: string, id: string, patch: Partial<TaskMeta>): Promise<Task> {
    return this.withTaskLock(project, id, () => this.update(project, id, patch));
  }

  /**
   * Renders TASK.md's front matter from the state again, keeping the body and the free fields as
   * TASK.md has them: undoes hand edits of sealed fields. `status` may be given (the ledger's).
   * Caller holds the task lock.
   */
  async restore(project: string, id: string, status?: string): Promise<Task> {
    return this.files.change(project, id, (current) => ({ meta: status === undefined ? current.meta : { ...current.meta, status }, body: current.body }), {
      acceptForeign: true,
    });
  }

  /**
   * Moves an unreadable `state.json` aside (`state.json.unreadable-<time>`, kept to look at) so the
   * task reads as one from before state files: from TASK.md, its status checked against the ledger.
   * Only `task repair` calls it, holding the task lock. Returns where it went; null when the state
   * reads fine (or there is none).
   */
  async setAsideUnreadableState(project: string, id: string): Promise<string | null> {
    try {
      await this.files.readState(project, id);
      return null;
    } catch (error) {
      if (!(error instanceof OrangeError && error.code === 'E_UNREADABLE')) throw error;
      const file = this.paths.taskStateFile(project, id);
      const aside = `${file}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(file, aside);
      return aside;
    }
  }

  /** Runs `fn` holding the project's task-creation lock (branch uniqueness across concurrent creates). */
  withProjectLock<T>(project: string, fn: () => Promise<T>): Promise<T> {
    return withLock(join(this.paths.projectTasksDir(project), '.create'), `project ${project}`, fn);
  }

  /**
   * Runs `fn` holding the task's exclusive lock. Inside `withoutLockWaits` a busy lock is not
   * waited for: the call throws E_LOCKED at once.
   */
  withTaskLock<T>(project: string, id: string, fn: () => Promise<T>): Promise<T> {
    const lock = this.paths.taskLockFile(project, id);
    const options = this.lockWaits.getStore() === false ? { waitMs: 0 } : {};
    return withLock(lock, `task ${id}`, () => this.locksHeld.run(new Set([...(this.locksHeld.getStore() ?? []), lock]), fn), options);
  }

  /**
   * Runs `fn` so that every task lock it (or anything it calls) takes is tried once, never waited
   * for: a task another process is moving throws E_LOCKED instead. The monitor's passes run this
   * way, so one slow move never stalls a pass; the busy task is taken at the next pass.
   */
  withoutLockWaits<T>(fn: () => Promise<T>): Promise<T> {
    return this.lockWaits.run(false, fn);
  }

  /** True inside `withTaskLock(project, id, …)` (in this async context, not elsewhere in the process). */
  holdsTaskLock(project: string, id: string): boolean {
    return this.locksHeld.getStore()?.has(this.paths.taskLockFile(project, id)) ?? false;
  }

  appendHistory(project: string, id: string, event: Omit<HistoryEvent, 'timestamp'>): Promise<HistoryEvent> {
    return appendHistory(this.paths.historyFile(project, id), event);
  }

  history(project: string, id: string): Promise<HistoryEvent[]> {
    return readHistory(this.paths.historyFile(project, id));
  }

  /** The status of record from the ledger (history), or null for a task with no history. */
  async ledgerStatus(project: string, id: string): Promise<string | null> {
    return ledgerStatus(await this.history(project, id));
  }

  /** Removes a task's directory (TASK.md's `agent/`, state and history). */
  async remove(project: string, id: string): Promise<void> {
    assertProjectName(project);
    assertTaskId(id);
    await rm(this.paths.taskDir(project, id), { recursive: true, force: true });
  }

  /** An index entry computed from the files (the index's cache-miss path). */
  private async indexEntry(project: string, id: string): Promise<IndexEntry> {
    try {
      const state = await this.files.readState(project, id);
      const path = this.paths.taskFile(project, id);
      if (state?.rendered && sameFile(lstatSync(path, { throwIfNoEntry: false }), state.rendered)) {
        return { meta: state.meta, tampered: [] };
      }
      // A TASK.md naming another task is listed as this task, marked forged — never as the other one.
      const { task, tampered } = this.files.viewAtOnce(project, id, state) ?? (await this.inspect(project, id, { acceptForeign: true }));
      return { meta: task.meta, tampered: tampered.map((t) => t.field) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'E_TASK_NOT_FOUND') return { gone: true };
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Directories under `tasks/` that are project names; stray files are skipped. */
  private projectsWithTasks(): string[] {
    return directories(this.paths.tasksDir).filter((name) => projectNameProblem(name) === null);
  }

  private taskIds(project: string): string[] {
    return directories(this.paths.projectTasksDir(project)).filter((name) => TASK_ID_PATTERN.test(name));
  }
}

function directories(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

