import { OrangeError, type TerminalListener, type TerminalSize, type TerminalStream } from '@orange/core';
import { ControlModeParser, replyText, type ControlMessage } from './control-mode.js';
import { PaneFollower, type PaneIds } from './pane-follower.js';
import { serverEnvironment, type TmuxClient } from './tmux-client.js';

/** The control-mode client as this stream uses it: command lines in, and a way to end it. */
interface ControlClient {
  write(line: string): void;
  /** Closes its stdin (control mode exits on end of input), kills it if it lingers; resolves when it is gone. */
  stop(): Promise<void>;
}

/** A control client that has not said it is attached by then is taken as stuck. */
const ATTACH_TIMEOUT_MS = 10_000;
/** How long a control client may take to exit after its stdin closed before it is killed. */
const STOP_GRACE_MS = 1_000;
/** tmux takes every byte of `send-keys -H` as an argument: long pastes go in calls of this many bytes. */
const KEYS_PER_CALL = 512;
/**
 * The sizes `resize` accepts, the rest clamped to them: a page measuring a hidden or collapsed
 * element proposes 0 or 1 columns, which would leave an agent's TUI nothing to draw in.
 */
const COLS = { min: 20, max: 500 } as const;
const ROWS = { min: 5, max: 200 } as const;

/** Keys typed while an earlier `send-keys` still runs: sent together, in order, by one later call. */
interface PendingKeys {
  readonly bytes: Buffer[];
  done: Promise<void>;
}

/**
 * A live view of one tmux pane through a control-mode client (`tmux -C attach-session -f
 * read-only,ignore-size`): tmux sends it every byte the pane's program writes (`%output`), and the
 * client neither takes keys nor counts when tmux sizes the window, so watching changes nothing.
 * What it shows, and when, is the {@link PaneFollower}'s to decide; this class runs the client.
 *
 * Keys and resizes go through separate tmux calls (`send-keys -H`, `resize-window`), one at a time
 * so that keys arrive in the order they were typed.
 */
export class PaneStream implements TerminalStream {
  private readonly parser = new ControlModeParser();
  private readonly follower: PaneFollower;
  private phase: 'attaching' | 'open' | 'done' = 'attaching';
  private closedByCaller = false;
  private control: ControlClient | undefined;
  private onAttach: ((error: string | null) => void) | undefined;
  /** Why the stream ended while `open` was still attaching (the session ended just then). */
  private endedEarly: string | undefined;
  private resized = false;
  private closing: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private pendingKeys: PendingKeys | undefined;

  private constructor(
    private readonly client: TmuxClient,
    private readonly ids: PaneIds,
    private readonly listener: TerminalListener,
  ) {
    this.follower = new PaneFollower(ids, {
      command: (line) => this.control?.write(line),
      screen: (data, size) => this.tell(() => listener.screen(data, size)),
      output: (data) => this.tell(() => listener.output(data)),
      end: (reason) => this.finish(reason),
    });
  }

  /**
   * Follows the active pane of the window `target` (e.g. `=demo/abc:=worker`); null when there is
   * no such window (or no tmux server). Resolves once the control client is attached; the listener
   * is first called after that, with the screen.
   */
  static async open(client: TmuxClient, target: string, listener: TerminalListener): Promise<PaneStream | null> {
    const ids = await paneIds(client, target);
    if (!ids) return null;
    const stream = new PaneStream(client, ids, listener);
    const attached = new Promise<string | null>((resolve) => {
      stream.onAttach = resolve;
    });
    const control = await stream.start();
    stream.control = control;
    const timer = setTimeout(() => stream.attachFinished('the tmux control client did not attach in time'), ATTACH_TIMEOUT_MS);
    const error = await attached;
    clearTimeout(timer);
    if (error === null && stream.endedEarly === undefined) {
      stream.phase = 'open';
      stream.follower.start();
      return stream;
    }
    stream.phase = 'done';
    await control.stop();
    // The window can go between finding it and attaching (or right after): as if it had not been there.
    if (error === null || /can't find|no such|not found|no sessions|no server|error connecting/i.test(error)) return null;
    throw new OrangeError('E_RUNTIME', `could not follow tmux pane ${ids.pane}: ${error}`);
  }

  /** Types `data` (UTF-8) into the pane as raw bytes; after `close()`, does nothing. */
  input(data: string): Promise<void> {
    if (this.closedByCaller || data === '') return Promise.resolve();
    const bytes = Buffer.from(data, 'utf8');
    if (this.pendingKeys) {
      this.pendingKeys.bytes.push(bytes);
      return this.pendingKeys.done;
    }
    const keys: PendingKeys = { bytes: [bytes], done: Promise.resolve() };
    this.pendingKeys = keys;
    keys.done = this.serially(async () => {
      if (this.pendingKeys === keys) this.pendingKeys = undefined;
      await this.sendKeys(Buffer.concat(keys.bytes));
    });
    return keys.done;
  }

  /**
   * Resizes the pane's window (clamped to 20–500 × 5–200); the layout change then brings a new
   * screen. The window keeps that size, whatever clients tmux has, until `close()`. After
   * `close()`, does nothing.
   */
  resize(size: TerminalSize): Promise<void> {
    if (this.closedByCaller) return Promise.resolve();
    if (!Number.isFinite(size.cols) || !Number.isFinite(size.rows)) {
      return Promise.reject(new OrangeError('E_INVALID_INPUT', `a terminal size must be two numbers, not ${String(size.cols)}×${String(size.rows)}`));
    }
    const cols = clamp(Math.round(size.cols), COLS);
    const rows = clamp(Math.round(size.rows), ROWS);
    this.resized = true;
    return this.serially(async () => {
      await this.client.run(['resize-window', '-t', this.ids.window, '-x', String(cols), '-y', String(rows)]);
    });
  }

  /**
   * Stops following: the listener is not called again, and the control client is gone when this
   * resolves. Keys and resizes asked for before are still carried out; then a window this stream
   * resized is given back to its clients' sizes (`resize-window` had fixed it: `window-size manual`).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closedByCaller = true;
      this.phase = 'done';
      await this.control?.stop();
      if (this.resized) await this.serially(() => this.client.attempt(['set-option', '-w', '-u', '-t', this.ids.window, 'window-size'])).catch(() => undefined);
      else await this.queue;
    })();
    return this.closing;
  }

  /** Starts the control client; its messages are handled as they come. */
  private async start(): Promise<ControlClient> {
    // Loaded on first use: execa costs ~100 ms of start-up, and most CLI calls start no process.
    const { execa } = await import('execa');
    this.client.calls++;
    // -f read-only,ignore-size (tmux ≥ 3.2): keys from this client are ignored, and tmux sizes the
    // window by the other clients only. -E: the session does not take this process's environment
    // (update-environment). -t the session's id: attaching to a window would select it.
    const child = execa(this.client.bin, this.client.argv(['-C', 'attach-session', '-E', '-f', 'read-only,ignore-size', '-t', this.ids.session]), {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      encoding: 'buffer',
      // As every call of this client: never from a worktree, never with an agent's identity.
      cwd: '/',
      env: serverEnvironment(process.env),
      extendEnv: false,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4_096) stderr += chunk.toString('utf8');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      for (const message of this.parser.push(chunk)) this.take(message);
    });
    // Writing to a client that has just exited fails with EPIPE: its exit is reported on its own.
    child.stdin.on('error', () => undefined);
    const exited = child.then((result) => {
      const why = result.code === 'ENOENT' ? `tmux is not installed (could not run "${this.client.bin}")` : stderr.trim().split('\n')[0] || `exit code ${String(result.exitCode ?? result.signal)}`;
      this.finish(this.phase === 'attaching' ? why : `the tmux control client exited (${why})`);
    });
    let stopping: Promise<void> | undefined;
    return {
      write: (line) => {
        if (child.stdin.writable) child.stdin.write(`${line}\n`);
      },
      stop: () => {
        stopping ??= (async () => {
          child.stdin.end();
          const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
          await exited;
          clearTimeout(timer);
        })();
        return stopping;
      },
    };
  }

  private attachFinished(error: string | null): void {
    const resolve = this.onAttach;
    this.onAttach = undefined;
    resolve?.(error);
  }

  private take(message: ControlMessage): void {
    if (this.phase === 'open') {
      this.follower.take(message);
      return;
    }
    if (this.phase !== 'attaching') return;
    // While attaching: the first answer not to a command of ours is the one to `attach-session`
    // itself; what follows it in the same read, before `open` goes on, can only end the stream.
    if (message.kind === 'reply' && !message.ours) this.attachFinished(message.ok ? null : replyText(message.lines) || 'attach-session failed');
    else if (message.kind === 'exit') this.finish(message.reason || "the agent's session ended");
    else if (message.kind === 'notice' && message.name.endsWith('window-close') && message.args[0] === this.ids.window) this.finish("the agent's window closed");
  }

  /**
   * Ends the stream from tmux's side: the listener hears why, once, and the control client goes.
   * While `open` is attaching, the listener is not called yet: `open` stops and answers instead.
   */
  private finish(reason: string): void {
    if (this.phase === 'attaching') {
      this.endedEarly ??= reason;
      this.attachFinished(reason);
      return;
    }
    if (this.phase === 'done') return;
    this.phase = 'done';
    void this.control?.stop();
    if (!this.closedByCaller) this.tell(() => this.listener.closed(reason));
  }

  /** Calls the listener; one that throws ends the stream instead of breaking the reading of tmux's output. */
  private tell(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.finish(`the terminal's reader failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async sendKeys(bytes: Buffer): Promise<void> {
    for (let at = 0; at < bytes.length; at += KEYS_PER_CALL) {
      const hex = [...bytes.subarray(at, at + KEYS_PER_CALL)].map((byte) => byte.toString(16).padStart(2, '0'));
      // -H: each argument one byte, written to the pane as it is (no key names, no UTF-8 re-encoding).
      await this.client.run(['send-keys', '-t', this.ids.pane, '-H', ...hex]);
    }
  }

  /** Runs `work` after every earlier key or resize call, whether that one failed or not. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** The session, window and active pane ids of a window target; null when tmux finds no such window. */
async function paneIds(client: TmuxClient, target: string): Promise<PaneIds | null> {
  // list-panes, not display-message: display-message falls back to the current pane when the target is missing.
  const result = await client.attempt(['list-panes', '-t', target, '-F', '#{pane_active} #{session_id} #{window_id} #{pane_id}']);
  if (!result.ok) return null;
  const active = result.stdout.split('\n').find((line) => line.startsWith('1 '));
  const match = active === undefined ? null : /^1 (\$\d+) (@\d+) (%\d+)$/.exec(active.trim());
  return match ? { session: match[1]!, window: match[2]!, pane: match[3]! } : null;
}

function clamp(value: number, range: { readonly min: number; readonly max: number }): number {
  return Math.min(range.max, Math.max(range.min, value));
}
