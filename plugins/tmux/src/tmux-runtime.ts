import { OrangeError, type AgentRole, type AttachInfo, type Runtime, type RuntimeSnapshot, type TaskMeta, type TerminalListener, type TerminalStream } from '@orange/core';
import { PaneStream } from './pane-stream.js';
import { isAgentWindow, sessionTarget, taskSession, windowName, windowTarget } from './session-name.js';
import { attachInfo, switchAndWait } from './tmux-attach.js';
import type { TmuxClient } from './tmux-client.js';
import { killVerified } from './tmux-kill.js';

/** The runtime slot on tmux: liveness from one `list-windows` call, attach, kill by name. */
export class TmuxRuntime implements Runtime {
  readonly name = 'tmux';
  /** Asked once per instance: where this process runs (and the servers' prefixes) does not change under it. */
  private info: Promise<AttachInfo> | undefined;

  constructor(
    private readonly client: TmuxClient,
    private readonly submitDelayMs = 150,
  ) {}

  /** Every window on the server, read with a single tmux process. */
  async snapshot(): Promise<RuntimeSnapshot> {
    const windows = await this.client.listWindows();
    const alive = new Map<string, string[]>();
    for (const w of windows) if (!w.dead) alive.set(w.session, [...(alive.get(w.session) ?? []), w.window]);
    const sessions = [...new Set(windows.map((w) => w.session))];
    return {
      isAlive: (task: TaskMeta, role: AgentRole) => (alive.get(taskSession(task)) ?? []).some((window) => isAgentWindow(window, task, role)),
      sessions,
      processes: 1,
    };
  }

  /** How `attach` goes from this process (attach, switch-client, nested) and the keys that come back; read once (2–3 tmux calls). */
  attachInfo(): Promise<AttachInfo> {
    this.info ??= attachInfo(this.client, process.env).catch((error: unknown) => {
      this.info = undefined;
      throw error;
    });
    return this.info;
  }

  /**
   * Attaches the terminal to the task's session, at the role's window, until the person detaches;
   * inside a client of the same server, switches that client there instead and returns once it is
   * back on the session it left (see `switchAndWait`).
   */
  async attach(task: TaskMeta, role?: AgentRole, options: { readonly signal?: AbortSignal } = {}): Promise<void> {
    const session = taskSession(task);
    const snapshot = await this.client.listWindows();
    const windows = snapshot.filter((w) => w.session === session).map((w) => w.window);
    if (windows.length === 0) {
      throw new OrangeError('E_RUNTIME', `task ${task.id} has no tmux session ${session} (no agent is running; start one with: orange task respawn ${task.id})`);
    }
    const window = role ? windows.filter((w) => isAgentWindow(w, task, role)).at(-1) : undefined;
    const target = window ? windowTarget(session, window) : sessionTarget(session);
    const info = await this.attachInfo();
    // With no client showing this pane (a detached session) there is nothing to switch: nested, as for another server.
    if (info.mode === 'switch' && (await switchAndWait(this.client, target, info.back, options.signal))) return;
    const env = { ...process.env };
    delete env.TMUX;
    // Loaded on first use: execa costs ~100 ms of start-up, and most CLI calls start no process.
    const { execa } = await import('execa');
    const result = await execa(this.client.bin, this.client.argv(['attach-session', '-t', target]), { stdio: 'inherit', reject: false, env, extendEnv: false });
    if (result.exitCode !== 0) throw new OrangeError('E_RUNTIME', `could not attach to tmux session ${session}`);
  }

  /** `tmux [-L socket] attach-session -t =<session>`: what a person runs to watch the agent (in notifications). */
  attachCommand(task: TaskMeta): string[] {
    return [this.client.bin, ...(this.client.socketName ? ['-L', this.client.socketName] : []), 'attach-session', '-t', sessionTarget(taskSession(task))];
  }

  /** Types `line` into the role's window as literal keys and presses Enter; false when that window has no live agent. */
  async sendLine(task: TaskMeta, role: AgentRole, line: string): Promise<boolean> {
    const session = taskSession(task);
    const windows = await this.client.listWindows();
    const live = windows.find((w) => w.session === session && isAgentWindow(w.window, task, role) && !w.dead);
    if (!live) return false;
    await this.client.typeLine(windowTarget(session, live.window), line, this.submitDelayMs);
    return true;
  }

  /**
   * The visible text of the role's window with its colours (`capture-pane -e -J`: SGR sequences
   * only), for the dashboard's live preview; null when the window is gone.
   */
  async capture(task: TaskMeta, role: AgentRole): Promise<string | null> {
    // -J: lines tmux wrapped at the agent window's width come back whole, for the preview to lay
    // out at its own width (a 200-column dashboard is not cut to the window's 80).
    const result = await this.client.attempt(['capture-pane', '-p', '-e', '-J', '-t', windowTarget(taskSession(task), windowName(task, role))]);
    return result.ok ? result.stdout : null;
  }

  /**
   * Follows the role's window live (the web page's terminal): its screen, then every byte its
   * agent writes; keys and resizes go to it. Null when the window is gone. See `PaneStream`.
   */
  terminal(task: TaskMeta, role: AgentRole, listener: TerminalListener): Promise<TerminalStream | null> {
    return PaneStream.open(this.client, windowTarget(taskSession(task), windowName(task, role)), listener);
  }

  /** The session a task's agents run in. */
  sessionName(task: TaskMeta): string {
    return taskSession(task);
  }

  /** Kills a session by exact name and waits until its processes are gone; a missing one is fine (false). */
  async killSession(name: string): Promise<boolean> {
    return killVerified(this.client, 'session', sessionTarget(name));
  }
}
