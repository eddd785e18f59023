import { readdir, readFile, rm } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { OrangeError } from '../errors.js';
import type { Task, TaskMeta } from '../task.js';
import { writeFileAtomic } from './atomic.js';
import { appendHistory, ledgerStatus, readHistory, type HistoryEvent } from './history.js';
import { withLock } from './lock.js';
import { assertProjectName, assertTaskId } from './names.js';
import type { OrangePaths } from './paths.js';
import { parseTaskFile, serializeTask } from './task-file.js';

/** A TASK.md that could not be read, reported by `list` instead of failing the whole listing. */
export interface UnreadableTask {
  readonly project: string;
  readonly id: string;
  readonly error: string;
}

/** Reads and writes tasks under `$ORANGE_HOME/tasks`. Writers must hold the task lock (`withTaskLock`). */
export class TaskStore {
  constructor(readonly paths: OrangePaths) {}

  /** Reads one task. Throws E_TASK_NOT_FOUND or E_FRONTMATTER. */
  async read(project: string, id: string): Promise<Task> {
    assertProjectName(project);
    assertTaskId(id);
    const file = this.paths.taskFile(project, id);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new OrangeError('E_TASK_NOT_FOUND', `no task ${id} in project ${project}`);
      }
      throw error;
    }
    return parseTaskFile(text, file);
  }

  /** Finds a task by id in any project. */
  async find(id: string): Promise<Task> {
    assertTaskId(id);
    for (const project of await this.projectsWithTasks()) {
      try {
        return await this.read(project, id);
      } catch (error) {
        if (!(error instanceof OrangeError && error.code === 'E_TASK_NOT_FOUND')) throw error;
      }
    }
    throw new OrangeError('E_TASK_NOT_FOUND', `no task with id ${id}`);
  }

  /** Every task of one project (or of all), with the ones that could not be parsed listed apart. */
  async list(project?: string): Promise<{ tasks: Task[]; unreadable: UnreadableTask[] }> {
    const projects = project === undefined ? await this.projectsWithTasks() : [assertProjectName(project)];
    const tasks: Task[] = [];
    const unreadable: UnreadableTask[] = [];
    for (const p of projects) {
      const ids = await readdirOrEmpty(this.paths.projectTasksDir(p));
      const results = await Promise.allSettled(
        ids.filter((id) => /^[0-9A-Za-z]{21}$/.test(id)).map(async (id) => {
          const file = this.paths.taskFile(p, id);
          return parseTaskFile(await readFile(file, 'utf8'), file);
        }),
      );
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') tasks.push(r.value);
        else if ((r.reason as NodeJS.ErrnoException).code !== 'ENOENT') {
          unreadable.push({ project: p, id: ids[i] as string, error: r.reason instanceof Error ? r.reason.message : String(r.reason) });
        }
      });
    }
    return { tasks, unreadable };
  }

  /** Creates a new task directory, its TASK.md and its first history event. */
  async create(task: Task): Promise<Task> {
    const { project, id } = task.meta;
    assertProjectName(project);
    assertTaskId(id);
    await mkdir(this.paths.taskDir(project, id), { recursive: true });
    return this.withTaskLock(project, id, async () => {
      await writeFileAtomic(this.paths.taskFile(project, id), serializeTask(task));
      await this.appendHistory(project, id, { type: 'task.created', status: task.meta.status, branch: task.meta.branch });
      return task;
    });
  }

  /** Writes a task atomically, stamping `updated_at`. Caller holds the task lock. */
  async write(task: Task): Promise<Task> {
    const next: Task = { meta: { ...task.meta, updated_at: new Date().toISOString() }, body: task.body };
    await writeFileAtomic(this.paths.taskFile(next.meta.project, next.meta.id), serializeTask(next));
    return next;
  }

  /** Applies a frontmatter patch under the task lock and returns the written task. */
  async patch(project: string, id: string, patch: Partial<TaskMeta>): Promise<Task> {
    return this.withTaskLock(project, id, async () => {
      const task = await this.read(project, id);
      return this.write({ meta: { ...task.meta, ...patch } as TaskMeta, body: task.body });
    });
  }

  /** Runs `fn` holding the task's exclusive lock. */
  withTaskLock<T>(project: string, id: string, fn: () => Promise<T>): Promise<T> {
    return withLock(this.paths.taskFile(project, id), `task ${id}`, fn);
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

  /** Removes a task's directory (TASK.md and history). */
  async remove(project: string, id: string): Promise<void> {
    assertProjectName(project);
    assertTaskId(id);
    await rm(this.paths.taskDir(project, id), { recursive: true, force: true });
  }

  private async projectsWithTasks(): Promise<string[]> {
    return (await readdirOrEmpty(this.paths.tasksDir)).filter((name) => !name.startsWith('.'));
  }
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

