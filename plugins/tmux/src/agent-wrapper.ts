/**
 * Runs one agent, keeps its terminal output (with --transcript) and reports its exit to Orange at
 * once, so exit rules need not wait for a poll.
 * Usage: node agent-wrapper.cjs [--cli <entry>] --project P --task ID --role R --spawn S
 *          [--transcript <file> --transcript-max <bytes> --tmux <bin>] -- <agent argv...>
 *    or: node agent-wrapper.cjs … --spawn S --spec <file.json>   ({argv, env}: for commands too long for tmux)
 * Node builtins (and the gateway's small client) only: it starts before every agent and must start fast.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { exchange, GATEWAY_VERSION, gatewaySocketFor, requestEnv } from '@orange/core/gateway';
import { PaneTranscript } from './pane-transcript.js';

interface WrapperArgs {
  cli: string | null;
  project: string;
  task: string;
  role: string;
  spawn: string;
  command: string[];
  env: Record<string, string>;
  transcript: { file: string; maxBytes: number; tmux: string } | null;
}

function parseArgs(argv: string[]): WrapperArgs | string {
  const split = argv.indexOf('--');
  const head = split < 0 ? argv : argv.slice(0, split);
  const flags = new Map<string, string>();
  for (let i = 0; i < head.length; i += 2) {
    const key = head[i];
    const value = head[i + 1];
    if (!key?.startsWith('--') || value === undefined) return `bad argument "${key ?? ''}"`;
    flags.set(key.slice(2), value);
  }
  let command = split < 0 ? [] : argv.slice(split + 1);
  let env: Record<string, string> = {};
  const specFile = flags.get('spec');
  if (specFile) {
    try {
      const spec = JSON.parse(readFileSync(specFile, 'utf8')) as { argv?: unknown; env?: unknown };
      rmSync(specFile, { force: true });
      if (!Array.isArray(spec.argv) || !spec.argv.every((a) => typeof a === 'string')) return `spec ${specFile} has no argv`;
      command = spec.argv;
      if (spec.env && typeof spec.env === 'object') env = spec.env as Record<string, string>;
    } catch (error) {
      return `cannot read spec ${specFile}: ${(error as Error).message}`;
    }
  }
  if (command.length === 0) return 'no agent command (give it after "--" or in --spec)';
  const need = (name: string) => flags.get(name) ?? '';
  const file = flags.get('transcript');
  const maxBytes = Number(flags.get('transcript-max'));
  if (file && !(Number.isInteger(maxBytes) && maxBytes > 0)) return `--transcript-max must be a positive number of bytes`;
  const transcript = file ? { file, maxBytes, tmux: flags.get('tmux') ?? 'tmux' } : null;
  return { cli: flags.get('cli') ?? null, project: need('project'), task: need('task'), role: need('role'), spawn: need('spawn'), command, env, transcript };
}

const GATEWAY_TAKE_MS = 5000;
/** How long the last of the agent's output may take to come back through tmux's pipe. */
const TRANSCRIPT_DRAIN_MS = 500;

function exitArgv(args: WrapperArgs, code: number): string[] {
  return ['agent', 'exited', '--project', args.project, '--task', args.task, '--role', args.role, '--spawn', args.spawn, '--code', String(code)];
}

/**
 * Hands the exit report to a long-running Orange's gateway, which takes it at once and acts on it
 * after this process has gone; false when no gateway took it.
 */
async function reportThroughGateway(args: WrapperArgs, code: number): Promise<boolean> {
  const env = { ...process.env, ...args.env };
  if (!env.ORANGE_AGENT_SECRET) return false;
  const request = { v: GATEWAY_VERSION, argv: exitArgv(args, code), cwd: '/', env: requestEnv(env), stdin: '', pid: process.pid, detach: true };
  // A gateway takes a report at once; one that does not within seconds is hung, and the CLI reports
  // instead (a report is idempotent by its spawn id: a second one finds nothing left to do).
  const outcome = await exchange(gatewaySocketFor(env), request, GATEWAY_TAKE_MS);
  return outcome.kind === 'reply' && 'accepted' in outcome.reply;
}

/** Starts `orange agent exited …` detached: it must outlive this process and the tmux window. */
function reportExit(args: WrapperArgs, code: number): void {
  if (!args.cli) return;
  try {
    const reporter = spawn(
      process.execPath,
      [args.cli, ...exitArgv(args, code)],
      // From `/`: the report outlives the agent and must never be found working in its worktree.
      { detached: true, stdio: 'ignore', cwd: '/' },
    );
    reporter.on('error', () => undefined);
    reporter.unref();
  } catch {
    // Reporting is best effort: the exit monitor's poll is the backstop.
  }
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    process.stderr.write(`orange agent wrapper: ${args}\n`);
    process.exit(2);
  }
  const pane = process.env.TMUX_PANE;
  let transcript: PaneTranscript | null = null;
  if (args.transcript && pane) {
    // Piped before the agent starts: its first byte is kept too.
    const started = PaneTranscript.start({ ...args.transcript, pane });
    if (typeof started === 'string') process.stderr.write(`orange agent wrapper: no transcript: ${started}\n`);
    else transcript = started;
  }
  const [file, ...rest] = args.command as [string, ...string[]];
  const child = spawn(file, rest, { stdio: 'inherit', env: { ...process.env, ...args.env } });
  let finished = false;
  const finish = (code: number) => {
    if (finished) return;
    finished = true;
    // The transcript is complete before the exit is reported: acting on it may close this window.
    // A gateway that took the report has it; else a detached `orange agent exited` carries it.
    void (transcript?.finish(TRANSCRIPT_DRAIN_MS) ?? Promise.resolve())
      .then(() => reportThroughGateway(args, code))
      .catch(() => false)
      .then((taken) => {
        if (!taken) reportExit(args, code);
        process.exit(code);
      });
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    process.stderr.write(`orange agent wrapper: cannot start ${file}: ${error.message}\n`);
    finish(127);
  });
  child.on('exit', (code, signal) => {
    finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
  });
}

main();
