import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { ledgerStatus, OrangePaths, readHistory, TaskStore, type HistoryEvent, type Task } from '@orange/core';
import {
  builtEntryUrl,
  git,
  makeOrigin,
  orangeCli,
  processesEnd,
  scriptedAgent,
  signalProcess,
  tempDir,
  TEST_GIT_IDENTITY,
  TmuxServer,
  waitFor,
  type CommandResult,
} from '@orange/test-support';

/** The built CLI (`@orange/test-support`'s `orangeCli`), under the name these tests know it by. */
export const CLI = orangeCli;

export interface SandboxOptions {
  readonly poolSize?: number;
  readonly pollIntervalMs?: number;
  /** More of orange.config.mjs: import lines, plugin expressions, and top-level fields (`notifications: {…}`). */
  readonly config?: { readonly imports?: readonly string[]; readonly plugins?: readonly string[]; readonly fields?: readonly string[] };
}

/** The file URL of a workspace package's built entry, for import lines in a sandbox config. */
export const pluginUrl = builtEntryUrl;

/** What a command printed, and how it ended. */
export type CliResult = CommandResult;

/**
 * A throwaway world: a bare `origin`, a clone registered as project `demo`, its own
 * ORANGE_HOME and its own tmux server, and a config whose harness is the scripted agent.
 */
export class Sandbox {
  readonly paths: OrangePaths;
  readonly repo: string;
  readonly origin: string;
  readonly socket: string;
  readonly env: Record<string, string>;
  /** The sandbox's own tmux server, where its agents run. */
  readonly tmuxServer = TmuxServer.fresh('e2e');

  private constructor(readonly dir: string) {
    this.paths = new OrangePaths(join(dir, 'home'));
    this.repo = join(dir, 'repo');
    this.origin = join(dir, 'origin.git');
    this.socket = this.tmuxServer.socket;
    const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ...inherited } = process.env;
    this.env = {
      ...(inherited as Record<string, string>),
      ...TEST_GIT_IDENTITY,
      ORANGE_HOME: this.paths.home,
      ORANGE_TMUX_SOCKET: this.socket,
    };
  }

  static async create(options: SandboxOptions = {}): Promise<Sandbox> {
    const box = new Sandbox(await tempDir('e2e'));
    await makeOrigin(box.origin, box.repo);
    await writeFile(
      join(box.dir, 'orange.config.mjs'),
      [
        `import { command } from ${JSON.stringify(pluginUrl('plugins/harness-command'))};`,
        ...(options.config?.imports ?? []),
        'export default {',
        "  harness: 'scripted',",
        `  pollIntervalMs: ${options.pollIntervalMs ?? 30_000},`,
        "  logLevel: 'debug',",
        ...(options.config?.fields ?? []).map((f) => `  ${f},`),
        `  plugins: [command({ name: 'scripted', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(scriptedAgent)}] }), ${(options.config?.plugins ?? []).join(', ')}],`,
        '};',
        '',
      ].join('\n'),
    );
    const added = await box.orange(['project', 'add', box.repo, '--name', 'demo', '--pool-size', String(options.poolSize ?? 2)]);
    if (added.code !== 0) throw new Error(`project add failed: ${added.stderr}`);
    return box;
  }

  /** Runs the built CLI; never throws on a non-zero exit. */
  async orange(args: readonly string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
    const result = await execa(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? this.repo,
      env: { ...this.env, ...options.env },
      extendEnv: false,
      reject: false,
      input: options.input ?? '',
      timeout: 60_000,
    });
    return { code: result.exitCode ?? 1, stdout: String(result.stdout), stderr: String(result.stderr) };
  }

  /** Runs git in `cwd` with the test identity; returns its output, trimmed. */
  git(cwd: string, ...args: string[]): Promise<string> {
    return git(cwd, ...args);
  }

  /** Runs a tmux command on the sandbox's server; never throws. */
  tmux(...args: string[]): Promise<CliResult> {
    return this.tmuxServer.run(...args);
  }

  /** Creates a task through the CLI and returns its id. */
  async createTask(args: readonly string[], context?: string): Promise<string> {
    const result = await this.orange(['task', 'create', ...args, '--json', ...(context ? ['--context', '-'] : [])], { input: context });
    if (result.code !== 0) throw new Error(`task create failed: ${result.stderr || result.stdout}`);
    const json = JSON.parse(result.stdout) as { task?: { id?: string }; id?: string };
    const id = json.task?.id ?? json.id;
    if (!id) throw new Error(`task create printed no id: ${result.stdout}`);
    return id;
  }

  /** The task as the store reads it: fields of record, a TASK.md being rewritten waited out. */
  async task(id: string): Promise<Task> {
    return new TaskStore(this.paths).read('demo', id);
  }

  history(id: string): Promise<HistoryEvent[]> {
    return readHistory(this.paths.historyFile('demo', id));
  }

  async agentLog(id: string): Promise<string> {
    return readFile(join(this.paths.home, 'agent-logs', `${id}.log`), 'utf8').catch(() => '');
  }

  /**
   * Waits until the task reaches `status` (polling the files) and its ledger records it — the
   * status is written just before its `status.changed` line — or throws with its history.
   */
  async waitForStatus(id: string, status: string | readonly string[], timeoutMs = 30_000): Promise<Task> {
    const wanted = typeof status === 'string' ? [status] : status;
    let last: Task | undefined;
    return waitFor(
      `task ${id} to reach ${wanted.join('|')}`,
      async () => {
        last = await this.task(id);
        return wanted.includes(last.meta.status) && ledgerStatus(await this.history(id)) === last.meta.status ? last : null;
      },
      {
        timeoutMs,
        everyMs: 100,
        explain: async () => {
          const history = (await this.history(id)).map((e) => `${e.type} ${JSON.stringify(e)}`).join('\n');
          return `(it is ${last?.meta.status}); history:\n${history}\nagent log:\n${await this.agentLog(id)}`;
        },
      },
    );
  }

  /** Waits until `predicate` holds, polling. */
  async waitFor(what: string, predicate: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    await waitFor(what, predicate, { timeoutMs, everyMs: 100 });
  }

  windows(): Promise<string[]> {
    return this.tmuxServer.windows();
  }

  /** Kills an agent the way a reboot would: no exit report, the window just disappears. */
  async killWithoutReport(session: string, window: string): Promise<void> {
    const pids = await this.tmux('list-panes', '-t', `=${session}:${window}`, '-F', '#{pane_pid}');
    for (const pid of pids.stdout.split('\n').filter(Boolean)) {
      // The pane's process is the exit-reporting wrapper. It dies first, by SIGKILL, so it has no
      // chance to see its agent end and report it; the agent (found before) goes right after.
      const children = (await execa('pgrep', ['-P', pid], { reject: false })).stdout.split('\n').filter(Boolean);
      signalProcess(Number(pid));
      for (const child of children) signalProcess(Number(child));
    }
    await this.waitFor('the window to close', async () => !(await this.windows()).includes(`${session}:${window}`), 10_000);
  }

  /** True while a process whose command line matches `pattern` (an extended regex) runs. */
  async running(pattern: string): Promise<boolean> {
    const result = await execa('pgrep', ['-f', '--', pattern], { reject: false });
    // 0: found, 1: none; anything else (no pgrep at all) must not read as "none".
    if (result.exitCode !== 0 && result.exitCode !== 1) throw new Error(`pgrep failed: ${result.stderr || result.message}`);
    return result.exitCode === 0;
  }

  /**
   * Ends every task before the sandbox goes. Killing the tmux server alone is not an ending: the
   * wrappers report those deaths, the exit rules act on them (a reviewer that left a verdict
   * advances the task and `notify_worker` spawns a worker on a fresh tmux server), and a report
   * still running after the sandbox is removed recreates its home. Cancelled tasks ignore exits.
   * Then it waits until no process of the sandbox runs (a pipeline driver still writing in its
   * task folder made the removal fail with ENOTEMPTY); one still there after the deadline fails
   * the test, named, and is killed so that the next test does not inherit it.
   */
  async cleanup(): Promise<void> {
    // Task ids only: the folder also holds the listing index (.index.json).
    const ids = (await readdir(join(this.paths.home, 'tasks', 'demo')).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
    const unended = new Map<string, string>();
    await this.endTasks(ids, unended);
    await this.tmuxServer.run('kill-server');
    // Notifications (those cancels' too) leave through the outbox's detached deliverer: it must be
    // done before its home goes, or its last writes would bring the home back.
    await this.waitFor('the notification outbox to drain', async () => (await readdir(this.paths.outboxDir).catch(() => [] as string[])).length === 0, 30_000).catch(
      () => undefined,
    );
    // A move in flight when the server was killed (an agent's request, an exit report whose rule
    // spawns a reviewer) starts a new tmux server for its agent: while processes remain, cancel
    // what is still running and kill that server too.
    const left = await processesEnd(this.dir, ids, {
      timeoutMs: CLEANUP_WAIT_MS,
      sweep: async () => {
        await this.endTasks([...unended.keys()], unended);
        await this.tmuxServer.run('kill-server');
      },
    });
    for (const { pid } of left) signalProcess(pid);
    await this.tmuxServer.kill();
    await rm(this.dir, { recursive: true, force: true, maxRetries: left.length > 0 ? 5 : 0 });
    if (left.length > 0) {
      throw new Error(
        `sandbox cleanup: ${left.length} process(es) of the sandbox still ran ${CLEANUP_WAIT_MS / 1000} s after its tmux server was killed (then killed):\n${left.map((p) => `  ${p.pid} ${p.args}`).join('\n')}` +
          (unended.size > 0 ? `\ntasks whose cancel failed: ${[...unended].map(([id, error]) => `${id}: ${error}`).join('; ')}` : ''),
      );
    }
  }

  /** Cancels each task; records in `unended` those whose cancel failed for another reason than being finished. */
  private async endTasks(ids: readonly string[], unended: Map<string, string>): Promise<void> {
    for (const id of ids) {
      const result = await this.orange(['task', 'cancel', id, '--yes']);
      if (result.code === 0 || / is terminal/.test(result.stderr)) unended.delete(id);
      else {
        unended.set(id, result.stderr.trim() || result.stdout.trim() || `exit ${result.code}`);
        // Not a failure by itself (the sweep retries it), but the reason a task lived on.
        console.warn(`sandbox cleanup: task cancel ${id} failed: ${unended.get(id) ?? ''}`);
      }
    }
  }
}

/** How long the cleanup waits for the sandbox's processes to end once its tmux server is gone. */
const CLEANUP_WAIT_MS = 20_000;
