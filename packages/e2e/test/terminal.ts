import { readFile } from 'node:fs/promises';
import { TmuxServer, waitFor } from '@orange/test-support';
import { CLI } from './sandbox.js';

/** What a terminal needs of its world: the environment of its shell, where it starts, the log it prints on a failure. */
export interface TerminalHost {
  readonly env: Record<string, string>;
  readonly repo: string;
  readonly paths: { readonly logFile: string };
}

/** The dashboard's command line as typed into the pane (CI=true as on a CI machine, where ink would otherwise draw nothing until it exits). */
export const dash = (args = '', interval = 500): string => `CI=true node ${CLI} dash --interval ${interval} ${args}`.trim();

/**
 * The dashboard in a real terminal: a tmux pane on a server of its own (the agents run on the
 * sandbox's), typed into with send-keys and read with capture-pane.
 */
export class Terminal {
  private readonly server: TmuxServer;

  constructor(private readonly box: TerminalHost) {
    this.server = TmuxServer.fresh('dash', box.env);
  }

  tmux(...args: string[]): Promise<string> {
    return this.server.out(...args);
  }

  /** A shell in a 120×40 pane (in the sandbox's repository unless `cwd` says), with the sandbox's environment. */
  async open(cwd = this.box.repo): Promise<void> {
    await this.tmux('new-session', '-d', '-s', 'term', '-x', '120', '-y', '40', '-c', cwd, 'sh');
    await this.type('echo BEFORE-DASH');
    await this.screenShows('BEFORE-DASH');
  }

  /** Types a line into the pane (literally) and presses Enter. */
  async type(line: string): Promise<void> {
    await this.tmux('send-keys', '-t', 'term', '-l', line);
    await this.tmux('send-keys', '-t', 'term', 'Enter');
  }

  /** Presses keys by tmux's names (`j`, `Enter`, `Escape`, `C-b`). */
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) await this.tmux('send-keys', '-t', 'term', key);
  }

  /** Waits until the pane's shell is in the foreground again (the command typed last has exited). */
  async shellIsBack(timeoutMs = 30_000): Promise<void> {
    let command = '';
    await waitFor(
      'the shell to come back',
      async () => {
        command = (await this.tmux('display-message', '-p', '-t', 'term', '#{pane_current_command}')).trim();
        return command === 'sh';
      },
      { timeoutMs, explain: async () => `(the pane runs ${command}); the screen:\n${await this.screen()}` },
    );
  }

  async screen(): Promise<string> {
    return this.tmux('capture-pane', '-p', '-t', 'term');
  }

  /** Waits for the screen to show `text` (a string or a pattern); a timeout prints the screen. */
  async screenShows(text: string | RegExp, timeoutMs = 30_000): Promise<string> {
    let last = '';
    await waitFor(
      `the screen to show ${String(text)}`,
      async () => {
        last = await this.screen();
        return typeof text === 'string' ? last.includes(text) : text.test(last);
      },
      { timeoutMs, everyMs: 100, explain: async () => `it shows:\n${last}\norange log tail:\n${await this.logTail()}` },
    );
    return last;
  }

  /** The row of the table that shows `branch` (rows start with the liveness icon). */
  async rowOf(branch: string): Promise<string> {
    return (await this.screen()).split('\n').find((l) => /^[●✗○◌]/.test(l) && l.includes(branch)) ?? '';
  }

  async logTail(): Promise<string> {
    return (await readFile(this.box.paths.logFile, 'utf8').catch(() => '')).split('\n').slice(-15).join('\n');
  }

  async close(): Promise<void> {
    await this.server.kill();
  }
}
