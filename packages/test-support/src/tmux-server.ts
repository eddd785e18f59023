import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { signalProcess } from './signal-process.js';
import { removeTmuxSocket } from './tmux-socket.js';

/** What a tmux command printed, and how it ended. */
export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A tmux server of a test's own (`tmux -L <socket>`), so that nothing it does reaches the user's
 * server or another test's. Its commands run with `env` minus TMUX and TMUX_PANE: a test started
 * from inside tmux must not talk to that tmux.
 */
export class TmuxServer {
  readonly env: Record<string, string>;

  constructor(
    /** The server's socket name: `tmux -L socket`, `ORANGE_TMUX_SOCKET`. */
    readonly socket: string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const { TMUX: _t, TMUX_PANE: _p, ...rest } = env;
    this.env = rest as Record<string, string>;
  }

  /** A server with a new name, `orange-<name>-<pid>-<random>`: no other test's, no run before's. */
  static fresh(name: string, env?: NodeJS.ProcessEnv): TmuxServer {
    return new TmuxServer(`orange-${name}-${process.pid}-${randomBytes(3).toString('hex')}`, env);
  }

  /** Runs a tmux command on this server; never throws (no server yet is an answer too). Output loses its final newline. */
  run(...args: string[]): Promise<CommandResult> {
    const chomp = (text: string | Buffer) => String(text).replace(/\r?\n$/, '');
    return new Promise((resolve) => {
      execFile('tmux', ['-L', this.socket, ...args], { env: this.env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: chomp(stdout), stderr: chomp(stderr) });
      });
    });
  }

  /** Runs a tmux command on this server and returns what it printed (its final newline dropped); a failure throws with tmux's stderr. */
  async out(...args: string[]): Promise<string> {
    const result = await this.run(...args);
    if (result.code !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
    return result.stdout;
  }

  /** `session:window` of every window on the server (none when it does not run). */
  async windows(): Promise<string[]> {
    const result = await this.run('list-windows', '-a', '-F', '#{session_name}:#{window_name}');
    return result.code === 0 ? result.stdout.split('\n').filter(Boolean) : [];
  }

  /**
   * SIGKILLs the process group of every pane: an agent ended by the SIGHUP of a killed server
   * would report its exit, and that detached report would write into a folder being removed.
   */
  async killPanes(): Promise<void> {
    const panes = await this.run('list-panes', '-a', '-F', '#{pane_pid}');
    for (const pid of panes.stdout.split('\n').filter(Boolean)) signalProcess(-Number(pid));
  }

  /** Kills the server and removes the socket file that `kill-server` leaves behind. */
  async kill(): Promise<void> {
    await this.run('kill-server');
    await removeTmuxSocket(this.socket, this.env);
  }
}
