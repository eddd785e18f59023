import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { processesEnd, signalProcess, TmuxServer } from '@orange/test-support';
import { CLI } from './sandbox.js';

/** What `orange demo --json` prints. */
export interface DemoJson {
  readonly ok: boolean;
  readonly sandbox: string;
  readonly rows: ReadonlyArray<Record<string, string>>;
  readonly error?: string;
  readonly log?: string;
}

/** One `orange demo` run in a temp folder of the test's own, and what explains it if it failed. */
export interface DemoRun {
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly stdout: string;
  readonly stderr: string;
  /** The printed JSON; undefined when the demo printed none (killed, or crashed before). */
  readonly result: DemoJson | undefined;
  /** The demo's tmux server (it names the server after its own pid). */
  readonly socket: string;
  /** Milliseconds from the stop signal (`stopWhen`) to the demo's exit; undefined when it was not stopped. */
  readonly stopToExitMs: number | undefined;
  /**
   * Exit, stderr, stdout, the JSON's log, and the end of every orange.log and agent log still
   * in the temp folder: read before any cleanup, so a demo killed before it printed (the test's
   * timeout, a crash) still explains itself.
   */
  readonly report: string;
}

/** Lines of orange.log (and of each agent log) a report quotes. */
const LOG_TAIL_LINES = 60;
const AGENT_LOG_TAIL_LINES = 20;

export interface DemoRunOptions {
  readonly timeoutMs: number;
  /** Checked while the demo runs: once it holds, the demo is sent `stopSignal`. */
  readonly stopWhen?: () => Promise<boolean>;
  /** SIGKILL unless said (no handler runs: the sandbox stays for the report and endDemo). */
  readonly stopSignal?: NodeJS.Signals;
}

/**
 * Runs `orange <args>` (a demo) with TMPDIR set to `temp`. The run is SIGKILLed after
 * `timeoutMs`, so that the sandbox it leaves can explain it, or sent `stopSignal` as soon as
 * `stopWhen` holds.
 */
export async function runDemo(temp: string, args: readonly string[], options: DemoRunOptions): Promise<DemoRun> {
  const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ORANGE_HOME: _h, ...env } = process.env;
  const demo = execa(process.execPath, [CLI, ...args], {
    env: { ...env, TMPDIR: temp },
    extendEnv: false,
    reject: false,
    timeout: options.timeoutMs,
    // A demo that gets SIGTERM tears its sandbox down: a timed-out one must leave it for the report.
    killSignal: 'SIGKILL',
  });
  const socket = `orange-demo-${String(demo.pid)}`;
  let running = true;
  let stoppedAt: number | undefined;
  const watcher = (async () => {
    while (running && options.stopWhen) {
      if (await options.stopWhen().catch(() => false)) {
        stoppedAt = Date.now();
        demo.kill(options.stopSignal ?? 'SIGKILL');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const run = await demo;
  const stopToExitMs = stoppedAt === undefined ? undefined : Date.now() - stoppedAt;
  running = false;
  await watcher;
  let result: DemoJson | undefined;
  try {
    result = JSON.parse(String(run.stdout)) as DemoJson;
  } catch {
    // Not JSON: the report prints what it was.
  }
  const stdout = String(run.stdout);
  const stderr = String(run.stderr);
  const ending = run.exitCode === undefined ? `was ended by ${String(run.signal)}` : `exited ${run.exitCode}`;
  const stopped = stoppedAt === undefined ? '' : ` (sent ${options.stopSignal ?? 'SIGKILL'}, ended ${String(stopToExitMs)} ms later)`;
  const head = `orange ${args.join(' ')} ${ending}${run.timedOut ? ` (timed out after ${options.timeoutMs / 1000} s)` : stopped}`;
  const sections = [head, `stderr:\n${stderr || '(empty)'}`, `stdout:\n${stdout || '(empty)'}`];
  // Printed as text, not as the JSON's escaped string.
  if (result?.log) sections.push(`orange.log (end, from the demo's JSON):\n${result.log}`);
  sections.push(...(await sandboxLogs(temp)));
  return { exitCode: run.exitCode, signal: run.signal, stdout, stderr, result, socket, stopToExitMs, report: sections.join('\n\n') };
}

/** The demo's sandboxes still in `temp` (each `orange-demo-*`). */
export async function demoSandboxes(temp: string): Promise<string[]> {
  const names = await readdir(temp).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith('orange-demo-')).map((name) => join(temp, name));
}

/** The ids of the tasks in the sandboxes still in `temp`. */
export async function demoTaskIds(temp: string): Promise<string[]> {
  const ids: string[] = [];
  for (const sandbox of await demoSandboxes(temp)) {
    // Task ids only: the folder also holds the listing index (.index.json).
    const names = await readdir(join(sandbox, 'home', 'tasks', 'sandbox')).catch(() => [] as string[]);
    ids.push(...names.filter((name) => !name.startsWith('.')));
  }
  return ids;
}

async function sandboxLogs(temp: string): Promise<string[]> {
  const sections: string[] = [];
  for (const sandbox of await demoSandboxes(temp)) {
    const home = join(sandbox, 'home');
    const log = await tail(join(home, 'orange.log'), LOG_TAIL_LINES);
    sections.push(`orange.log (end, read from ${join(home, 'orange.log')}):\n${log ?? '(none)'}`);
    for (const name of (await readdir(join(home, 'agent-logs')).catch(() => [] as string[])).sort()) {
      sections.push(`agent log ${name} (end):\n${(await tail(join(home, 'agent-logs', name), AGENT_LOG_TAIL_LINES)) ?? '(unreadable)'}`);
    }
  }
  return sections;
}

async function tail(file: string, lines: number): Promise<string | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  return text === null ? null : text.trimEnd().split('\n').slice(-lines).join('\n') || '(empty)';
}

/**
 * Ends whatever a demo left in `temp` and empties it: the panes' processes first by SIGKILL (a
 * wrapper so killed cannot report its agent's end), then the tmux server, then every process
 * of the run until none is seen for several scans in a row (an exit report started just before
 * would otherwise recreate the sandbox), then the sandboxes. Nothing here trusts the demo.
 */
export async function endDemo(temp: string, socket: string): Promise<void> {
  const ids = await demoTaskIds(temp);
  const server = new TmuxServer(socket);
  await server.killPanes();
  await server.kill();
  const left = await processesEnd(temp, ids, { clearScans: 5, sweepEveryMs: 0, sweep: (found) => found.forEach(({ pid }) => signalProcess(pid)) });
  if (left.length > 0) throw new Error(`processes of the demo survived SIGKILL for 20 s: ${left.map((p) => `${p.pid} ${p.args}`).join('; ')}`);
  for (const name of await readdir(temp).catch(() => [] as string[])) await rm(join(temp, name), { recursive: true, force: true, maxRetries: 3 });
}

