import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { inlineText, OrangePaths, readHistory, TaskStore, type HistoryEvent, type TaskMeta } from '@orange/core';
import { table } from '../output/render.js';
import { runningCommandLines } from '../startup/running-commands.js';
import { agentLogTime, ProgressLog } from './progress-log.js';

/** One scripted task of the demo: what it is about and how its agents behave. */
interface DemoTask {
  readonly label: string;
  readonly summary: string;
  /** `## Context` lines: requirements for a human reader plus the scripted agent's directives. */
  readonly context: string;
}

const DEFAULT_TASKS: readonly DemoTask[] = [
  {
    label: 'A',
    summary: 'Add a greeting section to the README',
    context: 'Keep it to two sentences.\n\nagent.reviews: PASS\nagent.pace: 700\n',
  },
  {
    label: 'B',
    summary: 'Write a CONTRIBUTING guide',
    context: 'Explain how to run the tests.\n\nagent.reviews: FAIL,PASS\nagent.pace: 700\n',
  },
  {
    label: 'C',
    summary: 'Start a CHANGELOG',
    context: 'Use Keep a Changelog headings.\n\nagent.reviews: PASS\nagent.worker: skip-handoff-first\nagent.pace: 700\n',
  },
];

/** The pipeline demo (seed 002): one clean task, one retried and escalated, one stopped by its budget and resumed. */
const PIPELINE_TASKS: readonly DemoTask[] = [
  { label: 'A', summary: 'Fix the greeting typo in the README', context: 'agent.intent: bugfix 0.9\nagent.cost: 0.02\n' },
  { label: 'B', summary: 'Fix the broken link in the README', context: 'agent.intent: bugfix 0.9\nagent.fix: fail,fail,ok\nagent.cost: 0.02\n' },
  { label: 'C', summary: 'Add a usage section to the README', context: 'agent.intent: feature 0.85\nagent.cost: 0.05\n' },
];

/** The demo's pipeline settings: a $0.10 budget per task, so task C stops and is resumed with more. */
const PIPELINE_SETTINGS = { attempts: 2, breaker: 3, budgetUsd: 0.1, verify: [['git', 'diff', '--quiet', 'HEAD']] };

export interface DemoOptions {
  /** `default` (plan, work, review, merge) or `pipeline` (classify, phases, verify, retry, escalate, budget). */
  readonly workflow?: 'default' | 'pipeline';
  /** Absolute path of the orange CLI entry (bin/run.cjs). */
  readonly cliEntry: string;
  /** Keep the sandbox (repo, ORANGE_HOME) instead of deleting it. */
  readonly keep: boolean;
  /** Give up after this long. */
  readonly timeoutMs: number;
  readonly print: (line: string) => void;
  /**
   * Open the dashboard on the sandbox in this terminal while the tasks run (`demo --dash`); the
   * progress lines are held until it is closed (q, Ctrl-C), and printed live from then on.
   */
  readonly dashboard?: boolean;
  /**
   * Serve the fleet to a browser (`demo --web`): `orange web` runs instead of `orange monitor` (it
   * polls as the monitor does), its URL is printed and opened; once every task is finished the page
   * stays up until Ctrl-C, which then ends the demo as a success.
   */
  readonly web?: boolean;
  /**
   * Aborted, with the name of the signal as its reason (`SIGINT`, …), when the user interrupts the
   * run: it takes no more steps and tears down exactly as at its end.
   */
  readonly signal?: AbortSignal;
}

export interface DemoResult {
  readonly ok: boolean;
  readonly sandbox: string;
  readonly rows: ReadonlyArray<Record<string, string>>;
  /** Why the run stopped early (a failed step or an unexpected error); absent when it ran to the end. */
  readonly error?: string;
  /** The end of the sandbox's orange.log when the run failed: what the engine and plugins did. */
  readonly log?: string;
  /** The signal that interrupted the run (the reason `signal` was aborted with); absent when it was not. */
  readonly interrupted?: NodeJS.Signals;
}

/** How many lines of orange.log a failed run reports. */
const LOG_TAIL_LINES = 60;
/** How long the agents' wrappers and exit reports get to finish after the tmux server is killed. */
const SETTLE_MS = 15_000;
/** Consecutive scans (100 ms apart) that must find no process of the demo's tasks. */
const CLEAR_SCANS = 5;
/** How many times the demo's "human" tries to merge a task in reviewing before it leaves it there. */
const MERGE_ATTEMPTS = 3;
/** While some remain: how often the teardown cancels again and kills a tmux server a late spawn started. */
const SWEEP_MS = 1_000;
/**
 * How long after its timestamp an event may still be on its way into a history file (the writer
 * takes the time, then opens and appends): progress lines that recent wait for the next poll.
 */
const WRITE_MS = 250;

/** The demo's first line: what it does and how long it takes. */
const INTRO = {
  default:
    'Orange demo: three scripted tasks run in parallel in a throwaway repository (plan, work, review, merge) with real git and tmux; no AI agent is called. It takes about 15–30 s.',
  pipeline:
    'Orange demo (pipeline): three scripted tasks run in parallel in a throwaway repository (classify, phases, verify, escalate, budget) with real git and tmux; no AI agent is called. It takes about 15–30 s.',
} as const;

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Orange Demo',
  GIT_AUTHOR_EMAIL: 'demo@orange.invalid',
  GIT_COMMITTER_NAME: 'Orange Demo',
  GIT_COMMITTER_EMAIL: 'demo@orange.invalid',
};

/**
 * Orange's main job, end to end, on its built-in plugins: a sandbox repository with a bare
 * origin, three tasks run in parallel by scripted agents through planning, work, review (one
 * failing once), then merged by the "human" (this process) until every task is done.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  // While the dashboard has the terminal, progress lines wait for it to close.
  let dashboard: ResultPromise | undefined;
  let dashboardClosed: Promise<void> = Promise.resolve();
  let dashboardOpen = false;
  const held: string[] = [];
  const print = (line: string) => (dashboardOpen ? held.push(line) : options.print(line));
  const closeDashboard = async () => {
    dashboard?.kill('SIGTERM');
    await dashboardClosed;
  };
  const interrupt = options.signal;
  const interrupted = new Promise<void>((resolve) => interrupt?.addEventListener('abort', () => resolve(), { once: true }));
  // Checked between steps: a step under way (a merge, a cancel) is finished, the next one not taken.
  const stopIfInterrupted = () => {
    if (interrupt?.aborted) throw new DemoInterrupted();
  };
  // Set once --web's page was left up after the end: the Ctrl-C that closes it is no interruption.
  let lingered = false;
  const pipeline = options.workflow === 'pipeline';
  const TASKS = pipeline ? PIPELINE_TASKS : DEFAULT_TASKS;
  for (const tool of ['git', 'tmux']) {
    const found = await execa(tool, ['-V'], { reject: false }).catch(() => ({ exitCode: 127 }));
    if (tool === 'git' && found.exitCode !== 0) {
      const git = await execa('git', ['--version'], { reject: false }).catch(() => ({ exitCode: 127 }));
      if (git.exitCode !== 0) throw new DemoError('git is not installed; install git and run the demo again');
    } else if (tool === 'tmux' && found.exitCode !== 0) {
      throw new DemoError('tmux is not installed; install tmux (e.g. apt-get install tmux) and run the demo again');
    }
  }

  const sandbox = await mkdtemp(join(tmpdir(), 'orange-demo-'));
  const paths = new OrangePaths(join(sandbox, 'home'));
  const repo = join(sandbox, 'repo');
  const origin = join(sandbox, 'origin.git');
  const socket = `orange-demo-${process.pid}`;
  const started = Date.now();
  const elapsed = (at = Date.now()) => `+${((at - started) / 1000).toFixed(1).padStart(5)}s`;
  // Every timed line goes through here, stamped with when it happened, and is printed in that order.
  const progress = new ProgressLog();
  const say = (task: DemoTask, text: string, at = Date.now()) => progress.add(at, `task ${task.label}${text}`);
  const printProgress = (upTo: number) => {
    for (const line of progress.take(upTo)) print(`${elapsed(line.at)}  ${line.text}`);
  };
  const { TMUX: _tmux, TMUX_PANE: _pane, ORANGE_TASK_ID: _id, ORANGE_PROJECT: _project, ...inherited } = process.env;
  const env: Record<string, string> = {
    ...(inherited as Record<string, string>),
    ...GIT_IDENTITY,
    ORANGE_HOME: paths.home,
    ORANGE_TMUX_SOCKET: socket,
  };
  const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd, env });
  // Detached (a process group of their own): a Ctrl-C in the terminal reaches the demo alone, which
  // lets the step under way finish, so neither a merge nor the teardown's cancels die half done.
  const orange = (args: string[], input = '') =>
    execa(process.execPath, [options.cliEntry, ...args], { cwd: repo, env, extendEnv: false, reject: false, input, detached: true });
  let monitor: ResultPromise | undefined;
  const ids = new Map<string, DemoTask>();
  const seen = new Map<string, number>();
  const seenLog = new Map<string, number>();
  /**
   * Reads what each task's history and agent log gained since the last read into the progress log
   * (printed later, in the order it happened); returns each task's fields and its status as of
   * that history. The ledger is written after a move's actions, so the status of record can be
   * ahead of it: acting on the history's status, the demo's "human" never merges a task before
   * the line that says it is in review.
   */
  const readTasks = async () => {
    const tasks = new Map<string, { readonly status: string; readonly meta: TaskMeta }>();
    for (const [id, task] of ids) {
      const history = await readHistory(paths.historyFile('sandbox', id));
      for (const event of history.slice(seen.get(id) ?? 0)) {
        const line = describe(event);
        if (line) say(task, `  ${inlineText(line)}`, Date.parse(event.timestamp) || Date.now());
      }
      seen.set(id, history.length);
      const agentLines = (await readFile(join(paths.home, 'agent-logs', `${id}.log`), 'utf8').catch(() => '')).split('\n');
      for (const line of agentLines.slice(seenLog.get(id) ?? 0)) {
        if (line.includes('refused:')) say(task, `    the agent was told: ${inlineText(line.replace(/^.*refused: /, ''))}`, agentLogTime(line, Date.now()) ?? Date.now());
      }
      seenLog.set(id, Math.max(agentLines.length - 1, 0));
      // Read after the history: a stop the history shows has its reason here.
      const meta = (await new TaskStore(paths).read('sandbox', id)).meta;
      const moved = history.findLast((event) => event.type === 'status.changed');
      tasks.set(id, { meta, status: moved ? String(moved.to) : meta.status });
    }
    return tasks;
  };
  /** Reads every task and prints what happened up to the start of the read (all of it with `all`). */
  const catchUp = async (all = false) => {
    const readFrom = Date.now();
    const tasks = await readTasks();
    printProgress(all ? Number.POSITIVE_INFINITY : readFrom - WRITE_MS);
    return tasks;
  };

  try {
    stopIfInterrupted();
    print(INTRO[pipeline ? 'pipeline' : 'default']);
    print(`Sandbox: ${sandbox}`);
    await git(sandbox, 'init', '-q', '--bare', '-b', 'main', origin);
    await git(sandbox, 'clone', '-q', origin, repo);
    await git(repo, 'checkout', '-q', '-b', 'main');
    await writeFile(join(repo, 'README.md'), '# Sandbox project\n\nA repository for the Orange demo.\n');
    await git(repo, 'add', 'README.md');
    await git(repo, 'commit', '-q', '-m', 'initial commit');
    await git(repo, 'push', '-q', '-u', 'origin', 'main');
    await git(repo, 'remote', 'set-head', 'origin', 'main');

    // Built-in plugins (tmux, worktree pool, github, …) plus a command harness running the scripted agent.
    const agent = join(dirname(options.cliEntry), '..', 'agents', 'scripted-agent.mjs');
    const headlessAgent = join(dirname(options.cliEntry), '..', 'agents', 'pipeline-agent.mjs');
    const scripted = {
      name: 'scripted',
      worker: [process.execPath, agent],
      ...(pipeline ? { headless: [process.execPath, headlessAgent, '{phase}', '{model}', '{prompt}'], tiers: ['haiku', 'sonnet', 'opus'] } : {}),
    };
    await writeFile(
      join(sandbox, 'orange.config.mjs'),
      [
        // The CLI's own instances (docs/configuration.md: imports a config shares with the CLI).
        "import { command } from '@orange/harness-command';",
        ...(pipeline ? ["import { pipeline } from '@orange/plugin-pipeline';"] : []),
        '',
        'export default {',
        "  harness: 'scripted',",
        ...(pipeline ? ["  workflow: 'pipeline',"] : []),
        `  plugins: [command(${JSON.stringify(scripted)})${pipeline ? `, pipeline(${JSON.stringify(PIPELINE_SETTINGS)})` : ''}],`,
        '  pollIntervalMs: 2000,',
        '};',
        '',
      ].join('\n'),
    );
    await mkdir(paths.home, { recursive: true });
    stopIfInterrupted();
    const added = await orange(['project', 'add', repo, '--name', 'sandbox', '--pool-size', String(TASKS.length)]);
    if (added.exitCode !== 0) throw new DemoError(`registering the sandbox failed: ${String(added.stderr).trim()}`);
    print(`Registered project "sandbox" (pool of ${TASKS.length} worktrees) — ORANGE_HOME=${paths.home}`);

    // The backstop monitor, as a user would run it; agent exits are reported to Orange directly.
    // With --web, `orange web` is that long-running process (it polls as the monitor does).
    if (options.web) {
      const web = execa(process.execPath, [options.cliEntry, 'web', '--project', 'sandbox', '--port', '0', '--open'], { cwd: repo, env, extendEnv: false, reject: false, stdin: 'ignore', detached: true });
      monitor = web;
      print(`Open the fleet in a browser: ${await firstLine(web)}`);
    } else {
      monitor = execa(process.execPath, [options.cliEntry, 'monitor'], { cwd: repo, env, extendEnv: false, reject: false, stdio: 'ignore' });
    }

    for (const task of TASKS) {
      stopIfInterrupted();
      const created = await orange(['task', 'create', task.summary, '--context', '-', '--json'], task.context);
      if (created.exitCode !== 0) throw new DemoError(`task create failed: ${String(created.stderr).trim()}`);
      const json = JSON.parse(String(created.stdout)) as { id?: string; task?: { id?: string; created_at?: string } };
      const id = json.task?.id ?? json.id;
      if (!id) throw new DemoError(`task create printed no id: ${String(created.stdout)}`);
      ids.set(id, task);
      say(task, ` created (${id}): ${task.summary}`, Date.parse(json.task?.created_at ?? '') || Date.now());
    }
    // Task A's agent started while B and C were being created: its first moves come before their
    // lines, and all of them before the tmux line below.
    await catchUp(true);
    const first = [...ids.keys()][0] as string;
    // Through the store: it waits out a TASK.md an agent is rewriting, and reads the fields of record.
    const firstTask = await new TaskStore(paths).read('sandbox', first);
    print(`\nWatch an agent live: tmux -L ${socket} attach -t '=sandbox/${firstTask.meta.id}'  (detach: Ctrl-b d)\n`);
    stopIfInterrupted();
    if (options.dashboard) {
      // Not detached: it reads the terminal. Its own handlers restore the terminal on SIGTERM,
      // SIGHUP and SIGINT; a Ctrl-C typed while it has the terminal is a key for it (quit).
      dashboard = execa(process.execPath, [options.cliEntry, 'dash', '--project', 'sandbox'], { cwd: repo, env, extendEnv: false, reject: false, stdio: 'inherit' });
      dashboardOpen = true;
      // Quitting it early (q, Ctrl-C) gives the progress lines back to the terminal at once.
      dashboardClosed = dashboard.catch(() => undefined).then(() => {
        dashboardOpen = false;
        for (const line of held.splice(0)) options.print(line);
      });
    }

    const merging = new Set<string>();
    const resumed = new Set<string>();
    const mergeAttempts = new Map<string, number>();
    const deadline = Date.now() + options.timeoutMs;
    while (Date.now() < deadline) {
      let finished = 0;
      stopIfInterrupted();
      const read = await catchUp();
      for (const [id, task] of ids) {
        stopIfInterrupted();
        const { meta, status } = read.get(id) ?? {};
        if (!meta || !status) continue;
        if (status === 'done' || status === 'cancelled' || status === 'stuck' || status === 'failed') finished++;
        if (status === 'stopped' && String(meta.stop_reason ?? '').startsWith('budget') && !resumed.has(id)) {
          resumed.add(id);
          say(task, '  the human raises its budget to $1 and resumes it');
          const resume = await orange(['task', 'resume', id, '--budget', '1']);
          if (resume.exitCode !== 0) say(task, `  resume failed: ${String(resume.stderr).trim()}`);
        }
        // A reviewed task, or a pipeline task its pipeline completed: a person merges it.
        if ((status === 'reviewing' || status === 'completed') && !merging.has(id)) {
          const attempt = (mergeAttempts.get(id) ?? 0) + 1;
          mergeAttempts.set(id, attempt);
          say(task, `  the human reviews the branch and merges it${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
          const merged = await orange(['task', 'merge', id, '--yes', '--strategy', 'merge']);
          // A refused merge is tried again on a later round, as a person would, a few times at most.
          if (merged.exitCode === 0 || attempt >= MERGE_ATTEMPTS) merging.add(id);
          if (merged.exitCode !== 0) say(task, `  merge failed: ${String(merged.stderr).trim()}`);
        }
      }
      if (finished === ids.size) break;
      await delay(150, undefined, { signal: interrupt }).catch(() => undefined);
    }
    // The last events (the final merges' moves), and every line still held.
    await catchUp(true);

    stopIfInterrupted();
    if (dashboardOpen) print('Every task finished; quit the dashboard (q) to end the demo.');
    await Promise.race([dashboardClosed, interrupted]);
    stopIfInterrupted();
    const rows = await taskRows(paths, ids);
    const log = await git(origin, 'log', '--oneline', 'main');
    const ok = rows.every((r) => r.status === 'done');
    print('');
    const columns = Object.keys(rows[0] ?? {});
    print(rows.length === 0 ? '(no tasks)' : table(columns.map((c) => c.toUpperCase()), rows.map((r) => columns.map((c) => r[c] ?? ''))));
    const landed = `origin/main now has ${String(log.stdout).split('\n').length} commits.`;
    print(`\n${landed} ${ok ? 'Every task is done.' : 'Some tasks did not finish.'}`);
    const result: DemoResult = ok ? { ok, sandbox, rows } : { ok, sandbox, rows, log: await explainFailure(paths, ids, print) };
    if (options.web && !interrupt?.aborted) {
      print('The page stays up to look around: press Ctrl-C to end the demo.');
      await interrupted;
      lingered = true;
    }
    return result;
  } catch (error) {
    // What was read before the stop still belongs to the story.
    printProgress(Number.POSITIVE_INFINITY);
    // Interrupted: not a failure to explain (a step may have failed only because Ctrl-C reached its git).
    if (interrupt?.aborted) return { ok: false, sandbox, rows: await taskRows(paths, ids).catch(() => []), interrupted: interrupt.reason as NodeJS.Signals };
    // A failure must explain itself: the step that failed, and what Orange logged before it.
    const message = error instanceof DemoError ? error.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
    print(`\nThe demo stopped: ${message}`);
    const rows = await taskRows(paths, ids).catch(() => []);
    return { ok: false, sandbox, rows, error: message, log: await explainFailure(paths, ids, print) };
  } finally {
    // The one teardown, for a run that ended, failed or was interrupted alike.
    await closeDashboard();
    monitor?.kill('SIGTERM');
    await monitor?.catch(() => undefined);
    await endTasks(paths, socket, ids, orange, print);
    await removeTmuxSocket(socket);
    if (!options.keep) await rm(sandbox, { recursive: true, force: true });
    if (interrupt?.aborted && !lingered) {
      const gone = options.keep ? `its tmux server and agents are stopped; the sandbox is kept: ${sandbox}` : 'its tmux server, agents and sandbox are gone.';
      print(`The demo was interrupted (${String(interrupt.reason)}): ${gone}`);
    } else if (options.keep) {
      print(`Kept the sandbox: ${sandbox}`);
    }
  }
}

/** One summary row per task; a task whose files cannot be read says so instead of failing the summary. */
async function taskRows(paths: OrangePaths, ids: ReadonlyMap<string, DemoTask>): Promise<Array<Record<string, string>>> {
  const rows: Array<Record<string, string>> = [];
  for (const [id, task] of ids) {
    try {
      const final = await new TaskStore(paths).read('sandbox', id);
      const history = await readHistory(paths.historyFile('sandbox', id));
      const created = Date.parse(history[0]?.timestamp ?? final.meta.created_at);
      const ended = Date.parse(history.at(-1)?.timestamp ?? final.meta.updated_at);
      rows.push({
        task: task.label,
        id,
        status: final.meta.status,
        ...('pipeline_phases' in final.meta
          ? {
              phases: String(final.meta.phases_done ?? ''),
              tier: String(final.meta.tier ?? ''),
              cost: `$${Number(final.meta.cost_total_usd ?? 0).toFixed(2)}/$${Number(final.meta.budget_usd ?? 0).toFixed(2)}`,
            }
          : { reviews: String(final.meta.review_round) }),
        transitions: String(history.filter((e) => e.type === 'status.changed').length),
        seconds: ((ended - created) / 1000).toFixed(1),
        summary: task.summary,
      });
    } catch (error) {
      rows.push({ task: task.label, id, status: `unreadable: ${error instanceof Error ? error.message : String(error)}`, summary: task.summary });
    }
  }
  return rows;
}

/** Prints each agent's log and the end of orange.log; returns the latter (for --json). */
async function explainFailure(paths: OrangePaths, ids: ReadonlyMap<string, DemoTask>, print: (line: string) => void): Promise<string> {
  for (const [id, task] of ids) {
    const agentLog = await readFile(join(paths.home, 'agent-logs', `${id}.log`), 'utf8').catch(() => '(no agent log)');
    print(`\n--- task ${task.label} agent log ---\n${agentLog}`);
  }
  const lines = (await readFile(paths.logFile, 'utf8').catch(() => '')).trimEnd().split('\n');
  const log = lines.slice(-LOG_TAIL_LINES).join('\n') || '(orange.log is empty)';
  print(`\n--- orange.log (last ${LOG_TAIL_LINES} lines) ---\n${log}`);
  return log;
}

/**
 * Ends every task before the sandbox goes. Killing the tmux server alone is not an ending: each
 * agent's wrapper reports the death with a detached `orange agent exited`, the exit rules act on
 * it (a reviewer's verdict can advance a task and start a worker on a fresh server), and a report
 * still running once the sandbox is removed recreates its home. Cancelled tasks ignore exits, so
 * unfinished tasks are cancelled first; then the demo waits until no process names a task of it.
 */
async function endTasks(
  paths: OrangePaths,
  socket: string,
  ids: ReadonlyMap<string, DemoTask>,
  orange: (args: string[]) => Promise<{ readonly exitCode?: number; readonly stderr?: unknown }>,
  print: (line: string) => void,
): Promise<void> {
  const failed = new Map<string, string>();
  const cancelRunning = async () => {
    for (const id of ids.keys()) {
      const status = await new TaskStore(paths)
        .read('sandbox', id)
        .then((task) => task.meta.status)
        .catch(() => null);
      if (status === 'done' || status === 'cancelled' || status === 'completed' || status === 'failed') continue;
      const cancelled = await orange(['task', 'cancel', id, '--yes']);
      if (cancelled.exitCode === 0) failed.delete(id);
      else failed.set(id, String(cancelled.stderr ?? '').trim());
    }
  };
  const killServer = () => execa('tmux', ['-L', socket, 'kill-server'], { reject: false, detached: true });
  await cancelRunning();
  await killServer();
  if (ids.size === 0) return;
  const deadline = Date.now() + SETTLE_MS;
  // A report can appear just after a scan found none (seen once with the pipeline driver's
  // window), so the table must stay clear for a few scans in a row, not one.
  let clearScans = 0;
  let nextSweep = Date.now() + SWEEP_MS;
  for (;;) {
    const left = (await runningCommandLines()).filter((line) => [...ids.keys()].some((id) => line.includes(id)));
    clearScans = left.length === 0 ? clearScans + 1 : 0;
    if (clearScans >= CLEAR_SCANS) return;
    if (Date.now() > deadline) {
      const cancels = failed.size > 0 ? `; cancel failed for ${[...failed].map(([id, error]) => `${id} (${error})`).join(', ')}` : '';
      // Command lines and errors quote task text (a prompt, a summary): one inert line.
      print(inlineText(`Warning: ${left.length} process(es) of the demo still ran after ${SETTLE_MS / 1000} s: ${left.join('; ')}${cancels}`));
      return;
    }
    if (left.length > 0 && Date.now() >= nextSweep) {
      // A move in flight when the server was killed (an agent's request, an exit report whose rule
      // spawns a reviewer) starts a new tmux server for its agent: end what still runs, again.
      await cancelRunning();
      await killServer();
      nextSweep = Date.now() + SWEEP_MS;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Statuses the pipeline driver itself moves a task into (not exit monitoring). */
const PIPELINE_STATES = new Set(['classifying', 'awaiting_clarification', 'routing', 'executing', 'retrying', 'escalating', 'verifying', 'completed', 'failed', 'stopped']);

/** A refusal of the demo itself (missing tool, failed setup): one sentence. */
export class DemoError extends Error {}

/** Thrown between steps once the run is interrupted: the teardown takes over. */
class DemoInterrupted extends Error {}

function describe(event: HistoryEvent): string | null {
  switch (event.type) {
    case 'task.created':
      return null;
    case 'status.changed':
      return `${String(event.from)} → ${String(event.to)}${event.cause === 'crash' || (event.cause === 'auto' && !PIPELINE_STATES.has(String(event.to))) ? ' (exit monitoring)' : ''}${event.reason && event.reason !== 'auto' ? ` (${String(event.reason)})` : ''}`;
    case 'agent.spawned':
      return `  ${String(event.role)} agent started in window ${String(event.window ?? '')}`;
    case 'agent.crashed':
      return `  ${String(event.role ?? 'agent')} crashed (${String(event.reason)})`;
    case 'hook.failed':
      return `  hook ${String(event.hook)} failed: ${String(event.error)}`;
    case 'pipeline.classified':
      return `  classified: ${String(event.intent)} (confidence ${String(event.confidence)})`;
    case 'pipeline.run':
      return `  ${String(event.phase)} on ${String(event.tier) || 'default model'}: ${event.ok ? 'ok' : 'FAILED'} ($${Number(event.cost_usd ?? 0).toFixed(2)})`;
    case 'pipeline.check':
      return `  check ${(event.argv as string[] | undefined)?.join(' ') ?? ''}: ${event.ok ? 'passed' : 'FAILED'}`;
    case 'pipeline.notice':
      return `  notice: ${String(event.message)}`;
    default:
      return null;
  }
}

/** The first line `child` prints (`orange web`'s URL); a child that ends before is a failed step. */
async function firstLine(child: ResultPromise): Promise<string> {
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end >= 0) resolve(out.slice(0, end).trim());
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    void child.then((result) => reject(new DemoError(`orange web stopped (exit ${String(result.exitCode)}): ${err.trim() || out.trim()}`)));
  });
}

/**
 * tmux leaves its socket file behind when its server is killed: the demo's own goes too, once no
 * server answers on it (runs of the demo would otherwise pile them up in tmux's socket folder).
 */
async function removeTmuxSocket(socket: string): Promise<void> {
  const answered = await execa('tmux', ['-L', socket, 'list-sessions'], { reject: false }).catch(() => null);
  if (answered?.exitCode === 0) return;
  const dir = join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  await rm(join(dir, socket), { force: true });
}
