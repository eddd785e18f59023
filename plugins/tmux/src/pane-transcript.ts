import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants, openSync, rmSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { TranscriptFile } from './transcript-file.js';
import { transcriptPipeCommand } from './transcript-pipe.js';

/** Where the transcript is kept and which pane (and tmux) it comes from. */
export interface PaneTranscriptOptions {
  readonly file: string;
  readonly maxBytes: number;
  /** The tmux executable; the server is the one the pane runs in (`$TMUX`). */
  readonly tmux: string;
  /** `$TMUX_PANE`: the pane the wrapper (and its agent) print to. */
  readonly pane: string;
}

/**
 * An agent's terminal output, kept by its wrapper: tmux `pipe-pane` copies what the pane prints
 * into a FIFO the wrapper reads, so no process of its own runs beside each agent for it.
 * At the agent's exit the wrapper prints a fence to the pane — an escape sequence terminals
 * ignore, with a nonce — and reads on until the fence comes back through the pipe: the pane's
 * output reaches the pipe in order, so everything the agent printed is then in the file.
 */
export class PaneTranscript {
  private pending = Buffer.alloc(0);
  private fenced = false;
  private onFence: (() => void) | undefined;
  private readonly fence = Buffer.from(`\u001b]7777;orange-fence-${randomBytes(8).toString('hex')}\u0007`, 'latin1');

  private constructor(
    private readonly file: TranscriptFile,
    private readonly fifo: string,
    private readonly pipe: Socket,
  ) {
    pipe.on('data', (chunk: Buffer) => this.take(chunk));
    pipe.on('error', () => this.fenceSeen());
  }

  /** Starts piping the pane into the transcript; a reason when it cannot (the agent runs anyway). */
  static start(options: PaneTranscriptOptions): PaneTranscript | string {
    const fifo = `${options.file}.pipe`;
    let file: TranscriptFile | undefined;
    let fd: number | undefined;
    try {
      file = new TranscriptFile(options.file, options.maxBytes);
      rmSync(fifo, { force: true });
      const made = spawnSync('mkfifo', ['-m', '600', fifo], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
      if (made.status !== 0) throw new Error(`mkfifo failed: ${(made.stderr || made.error?.message || '').trim()}`);
      // Read and write: a FIFO with no writer reads as ended; this end keeps it open until the fence.
      fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
      const pipe = new Socket({ fd, readable: true, writable: false });
      const piped = spawnSync(options.tmux, ['pipe-pane', '-o', '-t', options.pane, transcriptPipeCommand(fifo)], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
      if (piped.status !== 0) {
        pipe.destroy();
        throw new Error(`tmux pipe-pane failed: ${(piped.stderr || piped.error?.message || '').trim()}`);
      }
      return new PaneTranscript(file, fifo, pipe);
    } catch (error) {
      rmSync(fifo, { force: true });
      const reason = (error as Error).message;
      try {
        file?.write(Buffer.from(`[orange: no transcript of this spawn: ${reason}]\n`));
        file?.close();
      } catch {
        // The task's logs directory is gone: nothing to say it in.
      }
      return reason;
    }
  }

  /** Fences the pane, reads until the fence is back (or `deadlineMs`), then closes the file. */
  async finish(deadlineMs: number): Promise<void> {
    let printed = true;
    try {
      writeSync(1, this.fence);
    } catch {
      // The terminal is gone (the window was killed): what the pipe had is all there is.
      printed = false;
    }
    if (printed && !this.fenced) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadlineMs);
        this.onFence = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.pipe.destroy();
    try {
      if (!this.fenced) this.file.write(this.pending);
      this.file.close();
    } catch {
      // Deleted with its task: a transcript is never worth an error.
    }
    rmSync(this.fifo, { force: true });
  }

  private take(chunk: Buffer): void {
    if (this.fenced) return;
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const at = data.indexOf(this.fence);
    const keep = at >= 0 ? at : this.fenceStart(data);
    try {
      this.file.write(data.subarray(0, keep));
    } catch {
      // The task was deleted under us (or the disk is full): stop keeping, never stop the agent.
      this.fenceSeen();
      return;
    }
    this.pending = at >= 0 ? Buffer.alloc(0) : Buffer.from(data.subarray(keep));
    if (at >= 0) this.fenceSeen();
  }

  /** Where a fence may begin at the end of `data` (held back until the next chunk), else its length. */
  private fenceStart(data: Buffer): number {
    for (let i = Math.max(0, data.length - (this.fence.length - 1)); i < data.length; i++) {
      if (data[i] === this.fence[0] && this.fence.subarray(0, data.length - i).equals(data.subarray(i))) return i;
    }
    return data.length;
  }

  private fenceSeen(): void {
    this.fenced = true;
    this.onFence?.();
  }
}
