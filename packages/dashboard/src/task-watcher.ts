import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { TASK_ID_PATTERN, type OrangePaths } from '@orange/core';

/** Called with the task whose files changed (or which appeared or went away). */
export type TaskChanged = (project: string, id: string) => void;

/** How many task folders are set up per turn of the event loop, so drawing is never held up long. */
const BATCH = 500;

/**
 * Watches `$ORANGE_HOME/tasks` with one `fs.watch` per folder: the tasks folder (new projects),
 * each project's folder (tasks created or deleted), each task's folder (its state.json and
 * history.jsonl are written there, by rename or append) and the task's `agent/` folder (TASK.md,
 * by rename or in place). No file is read or stat'ed: the feed reads the task itself, so watching
 * 10,000 tasks costs 20,000 inotify watches and no I/O.
 * When the system refuses more watches, `onOverflow` is called once (the feed then polls).
 */
export class TaskWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;
  private overflowed = false;

  constructor(
    private readonly paths: OrangePaths,
    private readonly onChange: TaskChanged,
    private readonly onOverflow: () => void,
  ) {}

  /** Starts watching one project, or every project; resolves once every folder is watched. */
  async start(project?: string): Promise<void> {
    // A folder that does not exist yet cannot be watched: made now, as the store would on the first task.
    await mkdir(project === undefined ? this.paths.tasksDir : this.paths.projectTasksDir(project), { recursive: true });
    if (project !== undefined) {
      await this.watchProject(project);
      return;
    }
    this.add(this.paths.tasksDir, (name) => {
      // A project that appears now may hold a task already (the store makes both folders at once,
      // before this watch can see into the new one): its tasks are reported as found.
      if (name && !name.startsWith('.')) void this.watchProject(name, true);
    });
    for (const name of await names(this.paths.tasksDir)) if (!name.startsWith('.')) await this.watchProject(name);
  }

  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  /** Watches a project's folder and its tasks' folders; `announce` reports the tasks already there (a project that just appeared). */
  private async watchProject(project: string, announce = false): Promise<void> {
    const dir = this.paths.projectTasksDir(project);
    if (this.watchers.has(dir)) return;
    this.add(dir, (name) => {
      if (!name || !TASK_ID_PATTERN.test(name)) return;
      this.watchTask(project, name);
      this.onChange(project, name);
    });
    const ids = (await names(dir)).filter((name) => TASK_ID_PATTERN.test(name));
    for (let i = 0; i < ids.length; i += BATCH) {
      for (const id of ids.slice(i, i + BATCH)) {
        this.watchTask(project, id);
        if (announce) this.onChange(project, id);
      }
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) return;
    }
  }

  /** The task's folder (state.json, history.jsonl) and its `agent/` folder (TASK.md, renamed in there by Orange and by editors). */
  private watchTask(project: string, id: string): void {
    const agentDir = this.paths.agentDir(project, id);
    this.add(this.paths.taskDir(project, id), (name) => {
      // `agent/` made after the task's folder was watched (a task being created, or moved from an older layout).
      if (name === basename(agentDir)) this.add(agentDir, () => this.onChange(project, id));
      this.onChange(project, id);
    });
    this.add(agentDir, () => this.onChange(project, id));
  }

  private add(dir: string, listener: (name: string | null) => void): void {
    if (this.closed || this.watchers.has(dir)) return;
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => listener(name === null ? null : String(name)));
      // The folder went away (a deleted task): its watch ends; the project's watch reports the deletion.
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, watcher);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOSPC' || code === 'EMFILE') && !this.overflowed) {
        this.overflowed = true;
        this.onOverflow();
      }
      // ENOENT: created and deleted before it could be watched; nothing to follow.
    }
  }
}

async function names(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

