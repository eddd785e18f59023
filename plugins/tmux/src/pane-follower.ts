import type { TerminalSize } from '@orange/core';
import { replyText, type ControlMessage } from './control-mode.js';
import { PANE_STATE_FORMAT, parsePaneState, screenData, type PaneState } from './pane-screen.js';

/** A pane by tmux's ids: they stay the same when the session or window is renamed. */
export interface PaneIds {
  readonly session: string;
  readonly window: string;
  readonly pane: string;
}

/** Where a follower's decisions go: commands to its control client, and what its reader is told. */
export interface FollowerSink {
  /** Writes one command line to the control client's stdin. */
  command(line: string): void;
  screen(data: string, size: TerminalSize): void;
  output(data: Uint8Array): void;
  /** The pane cannot be followed any more; called once, and nothing follows. */
  end(reason: string): void;
}

/**
 * Follows one pane through the messages of a control client attached to its session: the screen,
 * then the pane's output, each byte once.
 *
 * The screen is read through the control client itself (`display-message` and `capture-pane` on
 * one command line, so no pane output is read between them). tmux queues a pane's output to its
 * control clients and draws it on the pane's screen in the same step, and queues a command's answer
 * behind what it queued before, so the pane's output that arrives while a screen is being read is
 * already on that screen, and is dropped; what comes after the answer is not, and is passed on.
 *
 * That order holds only for the output of the pane itself: tmux 3.3 writes each pane's queued
 * output on its own, and a pane's new output can overtake an answer still waiting behind another
 * pane's long output. So the follower pauses every other pane of the session for its client
 * (`refresh-client -A %n:pause`, which also drops that pane's queued output) the first time one
 * prints, and when one printed while a screen was being read, reads another screen.
 */
export class PaneFollower {
  /** The answers still to come, in the order the commands were sent. */
  private readonly awaited: Array<'pause' | 'state' | 'capture'> = [];
  private state: PaneState | null = null;
  /** A screen is being read: the pane's output until its answer is already on it. */
  private reading = false;
  /** Read another screen after this one: the window changed, or this one may be off. */
  private readAgain = false;
  private readonly paused = new Set<string>();
  private ended = false;

  constructor(
    private readonly ids: PaneIds,
    private readonly sink: FollowerSink,
  ) {}

  /** Reads the first screen; called once the control client is attached (before, its commands would run first). */
  start(): void {
    this.readScreen();
  }

  /** Handles one message of the control client. */
  take(message: ControlMessage): void {
    if (this.ended) return;
    switch (message.kind) {
      case 'output':
        if (message.pane !== this.ids.pane) this.pause(message.pane);
        else if (!this.reading) this.sink.output(message.data);
        return;
      case 'reply':
        // Answers to anything but this follower's commands (the attach itself) carry nothing for it.
        if (message.ours) this.answer(message.ok, message.lines);
        return;
      case 'exit':
        this.end(message.reason ? `tmux ended the stream: ${message.reason}` : "the agent's session ended");
        return;
      case 'notice':
        this.notice(message.name, message.args);
        return;
    }
  }

  private notice(name: string, args: readonly string[]): void {
    const [id] = args;
    if (name === 'layout-change' && id === this.ids.window) this.readScreen();
    // tmux 3.3 reports a window closing in the client's own session as `unlinked-window-close` too.
    else if ((name === 'window-close' || name === 'unlinked-window-close') && id === this.ids.window) this.end("the agent's window closed");
    // With `detach-on-destroy off`, a client whose session ends is moved to another one.
    else if (name === 'session-changed' && id !== this.ids.session) this.end("the agent's session ended");
  }

  /** Stops another pane's output to this client, once: this client shows one pane, and the others could overtake. */
  private pause(pane: string): void {
    if (this.reading) this.readAgain = true;
    if (this.paused.has(pane) || !/^%\d+$/.test(pane)) return;
    this.paused.add(pane);
    this.awaited.push('pause');
    this.sink.command(`refresh-client -A '${pane}:pause'`);
  }

  /** Asks for the pane's state and text; one read at a time, and one more if asked again meanwhile. */
  private readScreen(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    this.awaited.push('state', 'capture');
    const pane = this.ids.pane;
    // -p -e without -J: the rows as displayed, colours as SGR.
    this.sink.command(`display-message -p -t '${pane}' '${PANE_STATE_FORMAT}' ; capture-pane -p -e -t '${pane}'`);
  }

  private answer(ok: boolean, lines: readonly Buffer[]): void {
    const awaited = this.awaited.shift();
    // A pane paused as it closed: nothing to do.
    if (awaited === undefined || awaited === 'pause') return;
    if (!ok) {
      this.end(`tmux could not read the agent's pane: ${replyText(lines) || 'unknown error'}`);
      return;
    }
    if (awaited === 'state') {
      this.state = parsePaneState(replyText(lines));
      if (!this.state) this.end(`tmux described the agent's pane in a way not understood: ${replyText(lines)}`);
      return;
    }
    const state = this.state;
    if (!state) return;
    this.reading = false;
    this.sink.screen(
      screenData(
        lines.map((line) => line.toString('utf8')),
        state,
      ),
      state.size,
    );
    if (this.readAgain && !this.ended) {
      this.readAgain = false;
      this.readScreen();
    }
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.sink.end(reason);
  }
}
