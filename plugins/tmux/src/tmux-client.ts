import { OrangeError, quickRun } from '@orange/core';
import { escapeTmuxArgument } from './tmux-escape.js';

/** Outcome of one tmux call that is allowed to fail. */
export interface TmuxResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** One window as `list-windows -a` reports it. */
export interface TmuxWindow {
  readonly session: string;
  readonly window: string;
  /** The agent is gone but the window stays (`remain-on-exit` in the user's tmux config). */
  readonly dead: boolean;
}

// "no current target": a server whose last session just ended answers so until it has exited.
const NO_SERVER = /no server running|error connecting to|server exited unexpectedly|no current target/i;
const MISSING_TARGET = /can't find (session|window|pane)|no such (session|window)|session not found|window not found/i;

/**
 * Text typed into an agent's terminal, made inert: text from outside (a CI check's name, a review
 * comment, a summary) must never act as a key. Line breaks and tabs become spaces (a line break
 * would submit early); every other control character — Ctrl-C, ESC, BEL, DEL, the C1 range — is
 * dropped.
 */
export function typedText(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what this removes
  return text.replace(/[\t\n\r]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

/** The variables that name an agent (its task, role and spawn): an `orange` call made by an agent has them. */
const AGENT_IDENTITY = /^ORANGE_(TASK_ID|PROJECT|BRANCH|ROLE|STATUS|REVIEW_ROUND|PROMPT|TASK_FILE|SPAWN_ID|AGENT_SECRET)$/;

/** The environment tmux runs with: this process's, without an agent's identity. */
export function serverEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && !AGENT_IDENTITY.test(key)) kept[key] = value;
  return kept;
}

/** The one way this plugin runs tmux: an argument array (`quickRun`: a fleet makes a dozen calls per task), on the configured server (`-L`). */
export class TmuxClient {
  /** tmux processes started by this client (for the runtime's cost figures). */
  calls = 0;

  constructor(
    readonly bin: string,
    readonly socketName: string | undefined,
  ) {}

  /** The argument array for a tmux command, server selection included. */
  argv(args: readonly string[]): string[] {
    return [...(this.socketName ? ['-L', this.socketName] : []), ...args.map(escapeTmuxArgument)];
  }

  /** Runs a tmux command (with extra client environment); failure is returned, not thrown. */
  attempt(args: readonly string[], env?: Readonly<Record<string, string>>): Promise<TmuxResult> {
    return this.execute(this.argv(args), env);
  }

  private async execute(argv: readonly string[], env?: Readonly<Record<string, string>>): Promise<TmuxResult> {
    this.calls++;
    // The first tmux call starts the server, which keeps this process's working directory and
    // environment for good: from `/` it never holds a worktree (a clean-up must not find it there),
    // and without an agent's identity it is nobody's task.
    const result = await quickRun(this.bin, argv, { cwd: '/', env: { ...serverEnvironment(process.env), ...env } });
    if (result.error?.code === 'ENOENT') throw new OrangeError('E_RUNTIME', `tmux is not installed (could not run "${this.bin}")`);
    if (result.error) throw result.error;
    return { ok: result.exitCode === 0, stdout: result.stdout, stderr: result.stderr };
  }

  /** Runs a tmux command; a failure is an E_RUNTIME error quoting tmux. */
  async run(args: readonly string[], env?: Readonly<Record<string, string>>): Promise<string> {
    const result = await this.attempt(args, env);
    if (!result.ok) {
      const reason = result.stderr.trim().split('\n')[0] || 'failed';
      if (result.stderr.includes('ENOENT')) throw new OrangeError('E_RUNTIME', `tmux is not installed (could not run "${this.bin}")`);
      throw new OrangeError('E_RUNTIME', `tmux ${args[0]} failed: ${reason}`, { args: [...args], stderr: result.stderr });
    }
    return result.stdout;
  }

  /** Every window on the server in one call; no server running means no windows. */
  async listWindows(): Promise<TmuxWindow[]> {
    const result = await this.attempt(['list-windows', '-a', '-F', '#{session_name}\t#{window_name}\t#{pane_dead}']);
    if (!result.ok) {
      if (NO_SERVER.test(result.stderr)) return [];
      throw new OrangeError('E_RUNTIME', `tmux list-windows failed: ${result.stderr.trim() || 'unknown error'}`);
    }
    const windows: TmuxWindow[] = [];
    for (const line of result.stdout.split('\n')) {
      const deadTab = line.lastIndexOf('\t');
      const tab = line.lastIndexOf('\t', deadTab - 1);
      if (tab <= 0) continue;
      windows.push({ session: line.slice(0, tab), window: line.slice(tab + 1, deadTab), dead: line.slice(deadTab + 1) === '1' });
    }
    return windows;
  }

  /** Runs a kill-style command where a missing target (or server) already means done. */
  async killIfPresent(args: readonly string[]): Promise<boolean> {
    const result = await this.attempt(args);
    if (result.ok) return true;
    if (NO_SERVER.test(result.stderr) || MISSING_TARGET.test(result.stderr)) return false;
    throw new OrangeError('E_RUNTIME', `tmux ${args[0]} failed: ${result.stderr.trim() || 'unknown error'}`);
  }

  /**
   * Types `text` into a pane as literal keys (`send-keys -l`: no key names, no shell), waits, then
   * presses Enter. The pause keeps agent TUIs from swallowing the Enter into a paste.
   */
  async typeLine(target: string, text: string, submitDelayMs: number): Promise<void> {
    await this.run(['send-keys', '-t', target, '-l', typedText(text)]);
    if (submitDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, submitDelayMs));
    await this.run(['send-keys', '-t', target, 'Enter']);
  }
}
