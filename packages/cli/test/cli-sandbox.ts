import { accessSync, constants } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { builtEntryUrl, git, makeOrigin, orangeCli, repoRoot, scriptedAgent, tempDir, TEST_GIT_IDENTITY, TmuxServer, waitFor, type CommandResult } from '@orange/test-support';
import { OrangePaths, parseTaskFile, readHistory, setSection, type HistoryEvent, type Task, type TaskMeta } from '@orange/core';
import { expect } from 'vitest';

/** The monorepo's root and the built CLI (`@orange/test-support`), under the names these tests know them by. */
export const root = repoRoot;
export const CLI = orangeCli;

/** A stack frame line: never on stderr for a user error. */
export const STACK_LINE = /^\s{4}at /m;

/** PATH without any directory holding a `gh`, so the GitHub CLI is certainly missing. */
const PATH_WITHOUT_GH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, 'gh'), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  })
  .join(delimiter);

/**
 * The default config: `idle` (the default harness) is an agent that does nothing harmful for
 * five minutes, so tasks get real tmux windows and worktrees without anything moving them on;
 * `scripted` is the scripted agent of the demo and the e2e suite.
 */
const DEFAULT_CONFIG = [
  `import { command } from ${JSON.stringify(builtEntryUrl('plugins/harness-command'))};`,
  'export default {',
  "  harness: 'idle',",
  "  logLevel: 'debug',",
  '  plugins: [',
  "    command({ name: 'idle', worker: ['sleep', '300'] }),",
  `    command({ name: 'scripted', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(scriptedAgent)}] }),`,
  '  ],',
  '};',
  '',
].join('\n');

/** What a command printed, and how it ended. */
export type CliResult = CommandResult;

export interface RunOptions {
  readonly cwd?: string;
  readonly input?: string;
  readonly env?: Record<string, string>;
}

export interface JsonError {
  readonly error: string;
  readonly code: string;
}

export interface SandboxOptions {
  /** Name of the project registered for the repository (none when null). */
  readonly project?: string | null;
  readonly poolSize?: number;
  /** The orange.config.mjs text (default: the idle and scripted command harnesses). */
  readonly config?: string;
}

/**
 * A throwaway world for the built CLI: its own ORANGE_HOME, HOME, tmux server (socket) and
 * config; a bare `origin` with a clone registered as a project. Every call runs
 * `node bin/run.cjs` as a child process with an argument array and only the environment given.
 */
export class CliSandbox {
  readonly paths: OrangePaths;
  /** `$HOME` of the CLI (where `orange install` writes skills). */
  readonly home: string;
  readonly repo: string;
  readonly origin: string;
  readonly socket: string;
  readonly env: Record<string, string>;
  project = 'demo';
  /** The sandbox's own tmux server, where its agents run. */
  readonly tmuxServer = TmuxServer.fresh('cli');

  private constructor(readonly dir: string) {
    this.paths = new OrangePaths(join(dir, 'orange-home'));
    this.home = join(dir, 'user');
    this.repo = join(dir, 'repo');
    this.origin = join(dir, 'origin.git');
    this.socket = this.tmuxServer.socket;
    this.env = {
      PATH: PATH_WITHOUT_GH,
      HOME: this.home,
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      ORANGE_HOME: this.paths.home,
      ORANGE_TMUX_SOCKET: this.socket,
      ...TEST_GIT_IDENTITY,
      GIT_CONFIG_NOSYSTEM: '1',
    };
  }

  static async create(options: SandboxOptions = {}): Promise<CliSandbox> {
    const box = new CliSandbox(await tempDir('cli'));
    await mkdir(box.home, { recursive: true });
    await writeFile(join(box.dir, 'orange.config.mjs'), options.config ?? DEFAULT_CONFIG);
    await box.makeRepo(box.repo, box.origin);
    if (options.project !== null) {
      box.project = options.project ?? 'demo';
      await box.json(['project', 'add', box.repo, '--name', box.project, '--pool-size', String(options.poolSize ?? 2)]);
    }
    return box;
  }

  /** A bare origin whose default branch is `branch`, and a clone of it with one pushed commit. */
  async makeRepo(repo: string, origin: string, branch = 'main'): Promise<void> {
    await makeOrigin(origin, repo, { branch });
  }

  /** Another repository with its origin, registered as project `name`; returns its path. */
  async addProject(name: string, poolSize = 2): Promise<string> {
    const repo = join(this.dir, `${name}-repo`);
    await this.makeRepo(repo, join(this.dir, `${name}-origin.git`));
    await this.json(['project', 'add', repo, '--name', name, '--pool-size', String(poolSize)]);
    return repo;
  }

  /** Runs the built CLI; never throws on a non-zero exit, but a stack on stderr fails the test. */
  async orange(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
    const env = { ...this.env, ...options.env };
    const result = await execa(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? this.repo,
      env,
      extendEnv: false,
      reject: false,
      input: options.input ?? '',
      timeout: 30_000,
    });
    const out: CliResult = { code: result.exitCode ?? 1, stdout: String(result.stdout), stderr: String(result.stderr) };
    if (env.ORANGE_DEBUG !== '1') expect(out.stderr, `stack trace from orange ${args.join(' ')}`).not.toMatch(STACK_LINE);
    return out;
  }

  /** Runs `args --json`, expects success, and returns the one JSON object it printed. */
  async json<T = Record<string, unknown>>(args: readonly string[], options: RunOptions = {}): Promise<T> {
    const result = await this.orange([...args, '--json'], options);
    expect(result.code, `orange ${args.join(' ')} failed: ${result.stderr}${result.stdout}`).toBe(0);
    return JSON.parse(result.stdout) as T;
  }

  /** Runs `args --json`, expects a refusal, and returns `{error, code}` with the exit code. */
  async jsonError(args: readonly string[], options: RunOptions = {}): Promise<JsonError & { exit: number }> {
    const result = await this.orange([...args, '--json'], options);
    expect(result.code, `orange ${args.join(' ')} should have failed: ${result.stdout}`).not.toBe(0);
    expect(result.stderr).toBe('');
    const parsed = JSON.parse(result.stdout) as JsonError;
    expect(Object.keys(parsed).sort()).toEqual(['code', 'error']);
    return { ...parsed, exit: result.code };
  }

  /** Creates a task (`--no-spawn` unless `spawn`) and returns its frontmatter. */
  async createTask(args: readonly string[], options: { spawn?: boolean; context?: string; cwd?: string } = {}): Promise<TaskMeta> {
    const flags = [...(options.spawn ? [] : ['--no-spawn']), ...(options.context !== undefined ? ['--context', '-'] : [])];
    const out = await this.json<{ task: TaskMeta }>(['task', 'create', ...args, ...flags], { input: options.context, cwd: options.cwd });
    return out.task;
  }

  /** A task with a worktree and a live (idle) worker in `planning`. */
  async startTask(branch: string, summary = `work on ${branch}`): Promise<TaskMeta> {
    const meta = await this.createTask([branch, summary], { spawn: true });
    expect(meta.status).toBe('planning');
    expect(meta.workspace).toBeTruthy();
    return meta;
  }

  async task(id: string, project = this.project): Promise<Task> {
    const file = this.paths.taskFile(project, id);
    return parseTaskFile(await readFile(file, 'utf8'), file);
  }

  taskText(id: string, project = this.project): Promise<string> {
    return readFile(this.paths.taskFile(project, id), 'utf8');
  }

  history(id: string, project = this.project): Promise<HistoryEvent[]> {
    return readHistory(this.paths.historyFile(project, id));
  }

  /** Writes a `## name` section into TASK.md, as an agent does. */
  async writeSection(id: string, name: string, content: string, project = this.project): Promise<void> {
    const file = this.paths.taskFile(project, id);
    await writeFile(file, setSection(await readFile(file, 'utf8'), name, content));
  }

  /** Plan written and `working` requested from inside the worktree. */
  async toWorking(meta: TaskMeta): Promise<void> {
    await this.writeSection(meta.id, 'Plan', 'APPROACH: change one file\nTOUCHING: notes.md');
    await this.json(['task', 'update', '--status', 'working'], { cwd: meta.workspace as string });
  }

  /** Commits a file in `dir` and returns the commit's subject. */
  async commit(dir: string, file: string, subject: string): Promise<string> {
    await writeFile(join(dir, file), `${subject}\n`);
    await this.git(dir, 'add', file);
    await this.git(dir, 'commit', '-q', '-m', subject);
    return subject;
  }

  /** Runs git in `cwd` with the test identity and no system config; returns its output, trimmed. */
  git(cwd: string, ...args: string[]): Promise<string> {
    return git(cwd, ...args);
  }

  /** Runs a tmux command on the sandbox's server; never throws. */
  tmux(...args: string[]): Promise<CliResult> {
    return this.tmuxServer.run(...args);
  }

  /** `session:window` of every window on this sandbox's tmux server. */
  windows(): Promise<string[]> {
    return this.tmuxServer.windows();
  }

  /** Polls `predicate` until it holds. */
  async waitFor(what: string, predicate: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
    await waitFor(what, predicate, { timeoutMs, everyMs: 100 });
  }

  /**
   * Kills every agent with SIGKILL to its pane's process group before the tmux server goes:
   * an agent ended by SIGHUP would report its exit, and that detached report (which may even
   * start a new reviewer) would recreate files under this directory after it was removed.
   */
  async cleanup(): Promise<void> {
    await this.tmuxServer.killPanes();
    await this.tmuxServer.kill();
    await rm(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/**
 * A config with no plugins at all (`defaults: false` drops every built-in, github included) and
 * a workflow with no actions, which still validates: for refusals that name a missing slot.
 */
export const BARE_CONFIG = [
  'export default {',
  '  defaults: false,',
  '  workflow: {',
  "    name: 'bare', initial: 'pending', start: 'reviewing',",
  '    states: { pending: {}, reviewing: {}, done: { terminal: true }, cancelled: { terminal: true } },',
  "    transitions: [{ from: 'pending', to: 'reviewing', by: ['agent', 'person', 'orange'] }, { from: 'reviewing', to: 'done', by: ['agent', 'person', 'orange'] }, { from: 'pending', to: 'cancelled', by: ['agent', 'person', 'orange'] }],",
  "    exit: { pending: { otherwise: 'mark' }, reviewing: { otherwise: 'mark' } },",
  '    create: { pending: {}, reviewing: {} },',
  '    prompts: {},',
  '  },',
  '};',
  '',
].join('\n');
