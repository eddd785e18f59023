import { OrangeError } from '../errors/index.js';
import { Logger } from '../log/index.js';
import type { HistoryEvent } from '../store/index.js';
import { ledgerStatus } from '../store/index.js';
import type { OrangePaths } from '../store/index.js';
import { ProjectStore, type Project } from '../store/index.js';
import { TaskStore, type ListedTask, type TaskInspection, type UnreadableTask } from '../store/index.js';
import type { Task, TaskMeta } from '../task/index.js';

/**
 * A task store held in memory, for running the engine without a disk (`orange workflow simulate`).
 * One process, one caller at a time: the locks only run the function.
 */
export class MemoryTaskStore extends TaskStore {
  private readonly tasks = new Map<string, Task>();
  private readonly events = new Map<string, HistoryEvent[]>();
  private clock = 0;

  constructor(paths: OrangePaths) {
    super(paths);
  }

  override async read(project: string, id: string): Promise<Task> {
    const task = this.tasks.get(key(project, id));
    if (!task) throw new OrangeError('E_TASK_NOT_FOUND', `no task ${id} in project ${project}`);
    return task;
  }

  override async inspect(project: string, id: string): Promise<TaskInspection> {
    return { task: await this.read(project, id), tampered: [], hasState: true };
  }

  override async find(id: string): Promise<Task> {
    const ref = await this.locate(id);
    return this.read(ref.project, ref.id);
  }

  override async locate(id: string): Promise<{ project: string; id: string }> {
    for (const task of this.tasks.values()) if (task.meta.id === id) return { project: task.meta.project, id };
    throw new OrangeError('E_TASK_NOT_FOUND', `no task with id ${id}`);
  }

  override async list(project?: string): Promise<{ tasks: ListedTask[]; unreadable: UnreadableTask[] }> {
    const tasks = [...this.tasks.values()].filter((t) => project === undefined || t.meta.project === project).map((t) => ({ meta: t.meta, tampered: [] }));
    return { tasks, unreadable: [] };
  }

  override async create(task: Task): Promise<Task> {
    const stamped = this.stamp(task);
    this.tasks.set(key(task.meta.project, task.meta.id), stamped);
    await this.appendHistory(task.meta.project, task.meta.id, { type: 'task.created', status: task.meta.status, branch: task.meta.branch });
    return stamped;
  }

  override async write(task: Task): Promise<Task> {
    const stamped = this.stamp(task);
    this.tasks.set(key(task.meta.project, task.meta.id), stamped);
    return stamped;
  }

  override async update(project: string, id: string, patch: Partial<TaskMeta>, body?: (current: string) => string): Promise<Task> {
    const current = await this.read(project, id);
    return this.write({ meta: { ...current.meta, ...patch } as TaskMeta, body: body ? body(current.body) : current.body });
  }

  override async patch(project: string, id: string, patch: Partial<TaskMeta>): Promise<Task> {
    return this.update(project, id, patch);
  }

  override async restore(project: string, id: string, status?: string): Promise<Task> {
    return status === undefined ? this.read(project, id) : this.update(project, id, { status });
  }

  override withTaskLock<T>(_project: string, _id: string, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  override withProjectLock<T>(_project: string, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  override async appendHistory(project: string, id: string, event: Omit<HistoryEvent, 'timestamp'>): Promise<HistoryEvent> {
    const full = { ...event, timestamp: this.now() } as HistoryEvent;
    const list = this.events.get(key(project, id)) ?? [];
    list.push(full);
    this.events.set(key(project, id), list);
    return full;
  }

  override async history(project: string, id: string): Promise<HistoryEvent[]> {
    return [...(this.events.get(key(project, id)) ?? [])];
  }

  override async ledgerStatus(project: string, id: string): Promise<string | null> {
    return ledgerStatus(await this.history(project, id));
  }

  override async remove(project: string, id: string): Promise<void> {
    this.tasks.delete(key(project, id));
    this.events.delete(key(project, id));
  }

  private stamp(task: Task): Task {
    return { meta: { ...task.meta, updated_at: this.now() }, body: task.body };
  }

  /** A clock that always moves forward (a simulation runs in well under a millisecond per step). */
  private now(): string {
    this.clock = Math.max(this.clock + 1, Date.now());
    return new Date(this.clock).toISOString();
  }
}

/** A fixed list of projects, in memory. */
export class MemoryProjectStore extends ProjectStore {
  constructor(
    paths: OrangePaths,
    private readonly fixed: readonly Project[],
  ) {
    super(paths);
  }

  override async list(): Promise<Project[]> {
    return [...this.fixed];
  }
}

/** A logger that writes nothing (a simulation leaves no trace on disk). */
export class SilentLogger extends Logger {
  constructor() {
    super('/dev/null', 'error', 'simulation');
  }

  override child(): Logger {
    return this;
  }

  override debug(): void {}
  override info(): void {}
  override warn(): void {}
  override error(): void {}
}

function key(project: string, id: string): string {
  return `${project}/${id}`;
}
