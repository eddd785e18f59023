import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The one place that knows where things live under `$ORANGE_HOME`. */
export class OrangePaths {
  readonly home: string;

  constructor(home: string) {
    this.home = resolve(home);
  }

  /** `$ORANGE_HOME`, default `~/orange`. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): OrangePaths {
    const home = env.ORANGE_HOME && env.ORANGE_HOME.trim() !== '' ? env.ORANGE_HOME : join(homedir(), 'orange');
    return new OrangePaths(home);
  }

  get projectsFile(): string {
    return join(this.home, 'projects.json');
  }

  get logFile(): string {
    return join(this.home, 'orange.log');
  }

  get workspacesDir(): string {
    return join(this.home, 'workspaces');
  }

  get poolFile(): string {
    return join(this.home, 'workspaces', '.pool.json');
  }

  /** Where the runtime drops exit reports and other run-time state. */
  get runDir(): string {
    return join(this.home, 'run');
  }

  get tasksDir(): string {
    return join(this.home, 'tasks');
  }

  workspaceDir(project: string, n: number): string {
    return join(this.home, 'workspaces', `${project}--${n}`);
  }

  projectTasksDir(project: string): string {
    return join(this.home, 'tasks', project);
  }

  taskDir(project: string, id: string): string {
    return join(this.home, 'tasks', project, id);
  }

  taskFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, 'TASK.md');
  }

  /** The engine's fields of record for a task (TASK.md's front matter is rendered from it). */
  taskStateFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, 'state.json');
  }

  /** The per-project listing index (a cache checked against the task files on every read). */
  taskIndexFile(project: string): string {
    return join(this.home, 'tasks', project, '.index.json');
  }

  historyFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, 'history.jsonl');
  }
}
