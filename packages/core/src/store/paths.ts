import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { OrangeError } from '../errors/index.js';
import { GATEWAY_SOCKETS, orangeHomeFor } from '../gateway/index.js';

const TASK_FILE = 'TASK.md';
const AGENT_DIR = 'agent';
const STATE_FILE = 'state.json';
const HISTORY_FILE = 'history.jsonl';

/** The one place that knows where things live under `$ORANGE_HOME`. */
export class OrangePaths {
  readonly home: string;
  private homeChecked: Promise<void> | undefined;

  constructor(home: string) {
    this.home = resolve(home);
  }

  /** `$ORANGE_HOME`, default `~/orange`. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): OrangePaths {
    return new OrangePaths(orangeHomeFor(env));
  }

  /**
   * Throws E_HOME unless the home is a writable directory, or missing with a writable directory
   * to create it in (it is created when first written, as before). Checked once per instance:
   * without it a home that is a file surfaces later as an ENOTDIR from whichever store touches it first.
   */
  checkHome(): Promise<void> {
    this.homeChecked ??= checkHomeDirectory(this.home);
    return this.homeChecked;
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

  /**
   * The socket a long-running Orange answers agents' calls on (docs/architecture.md, "The agent
   * gateway"). Alone in its folder, so that a container can be given it and nothing else of the home.
   */
  get gatewaySocket(): string {
    return join(this.home, ...GATEWAY_SOCKETS.agent);
  }

  /** The socket the same Orange answers a person's scripted calls on (`task create`, `task merge`, …); never given to an agent. */
  get peopleSocket(): string {
    return join(this.home, ...GATEWAY_SOCKETS.person);
  }

  /** Who runs the monitor's poll or stands by to (`orange monitor`, dashboards), with each one's scope. */
  get monitorLeaseFile(): string {
    return join(this.home, 'run', 'monitor.json');
  }

  /** Notifications raised by one-shot CLI calls, waiting for the deliverer (docs/notifications.md). */
  get outboxDir(): string {
    return join(this.home, 'outbox');
  }

  /** One outbox entry: `outbox/<name>` (names come from `NotificationOutbox`, never from input). */
  outboxEntryFile(name: string): string {
    return join(this.home, 'outbox', name);
  }

  /** Locked (`outbox/.deliver.lock/`) while a process delivers the outbox, so that only one does. */
  get outboxDeliveryLock(): string {
    return join(this.home, 'outbox', '.deliver');
  }

  /** Locked (`withLock`) while a monitor pass runs, in whichever process: no two passes overlap. */
  get monitorPassFile(): string {
    return join(this.home, 'run', 'monitor-pass');
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

  /**
   * The only folder of a task an agent's container may mount read-write: TASK.md (written by
   * rename, so its folder is mounted, not the file) and the headless runs' result files. Nothing
   * else of Orange's (state, ledger, identities, logs, the task lock) may ever be put here.
   */
  agentDir(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, AGENT_DIR);
  }

  taskFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, AGENT_DIR, TASK_FILE);
  }

  /** Where TASK.md lived before it had `agent/` (a home from an older version; moved on first read, see task-layout.ts). */
  legacyTaskFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, TASK_FILE);
  }

  /** The task lock's path (`withLock`): its lock dir `task.lock/` is in the task's folder, out of an agent's reach in `agent/`. */
  taskLockFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, 'task');
  }

  /** The engine's fields of record for a task (TASK.md's front matter is rendered from it). */
  taskStateFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, STATE_FILE);
  }

  /** TASK.md, state.json and history.jsonl of a task from one path join (the listing index stats them for 10,000 tasks). */
  taskFiles(project: string, id: string): { readonly task: string; readonly state: string; readonly history: string } {
    const dir = `${this.taskDir(project, id)}${sep}`;
    return { task: `${dir}${AGENT_DIR}${sep}${TASK_FILE}`, state: dir + STATE_FILE, history: dir + HISTORY_FILE };
  }

  /** The per-project listing index (a cache checked against the task files on every read). */
  taskIndexFile(project: string): string {
    return join(this.home, 'tasks', project, '.index.json');
  }

  /** Agent transcripts of a task (removed with the task's directory). */
  taskLogsDir(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, 'logs');
  }

  /** The terminal output of one agent spawn: `logs/<role>-<spawn>.log` (`.1` holds the rotated part). */
  transcriptFile(project: string, id: string, role: string, spawn: string): string {
    return join(this.home, 'tasks', project, id, 'logs', `${role}-${spawn}.log`);
  }

  historyFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, HISTORY_FILE);
  }

  /** The hashes of the secrets each spawned agent of a task was given (its identity). */
  agentIdentitiesFile(project: string, id: string): string {
    return join(this.home, 'tasks', project, id, 'identities.json');
  }
}

async function checkHomeDirectory(home: string): Promise<void> {
  const refuse = (why: string) => new OrangeError('E_HOME', `ORANGE_HOME ${home} ${why} (set ORANGE_HOME to a writable directory)`, { home });
  // The home may not exist yet: then the nearest existing ancestor is what must be a writable directory.
  let dir = home;
  for (;;) {
    const info = await stat(dir).catch((error: NodeJS.ErrnoException) => error);
    if (info instanceof Error) {
      if (info.code === 'ENOENT' && dirname(dir) !== dir) {
        dir = dirname(dir);
        continue;
      }
      if (info.code === 'ENOTDIR') throw refuse('is not a directory: a part of its path is a file');
      throw refuse(`cannot be used (${info.code ?? info.message})`);
    }
    if (!info.isDirectory()) throw refuse(dir === home ? 'is not a directory' : `cannot be created: ${dir} is not a directory`);
    const writable = await access(dir, constants.W_OK | constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!writable) throw refuse(dir === home ? 'is not writable' : `cannot be created: ${dir} is not writable`);
    return;
  }
}
