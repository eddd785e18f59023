import { constants } from 'node:os';
import { join } from 'node:path';
import * as Flags from '@oclif/core/flags';
import { onSignals, OrangeError } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { followHangUp, ignoreFailedWrites } from '../command/hung-up-terminal.js';

export default class Demo extends OrangeCommand {
  static override summary = "Run Orange's main job in a throwaway sandbox: three tasks, real tmux and worktrees, scripted agents.";
  static override description = [
    'Creates a repository with a bare origin, registers it, starts the monitor, and runs three tasks',
    'in parallel through planning, work, review (one review fails once) and merge, using a scripted',
    'agent that really runs in tmux and calls this CLI. Needs git and tmux; no AI agent is called.',
  ].join(' ');
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --keep', '<%= config.bin %> demo --dash', '<%= config.bin %> demo --web', '<%= config.bin %> demo --workflow pipeline'];
  static override flags = {
    keep: Flags.boolean({ description: 'Keep the sandbox (repository and ORANGE_HOME) to look at afterwards.', default: false }),
    dash: Flags.boolean({ description: 'Watch the agents work in the dashboard (orange dash) while the demo runs; q closes the dashboard and the demo runs on to its summary.', default: false }),
    timeout: Flags.integer({ description: 'Give up after this many seconds.', default: 180, min: 10 }),
    web: Flags.boolean({ description: 'Watch the fleet in a browser (orange web) while the demo runs; the page stays up after the end until Ctrl-C.', default: false, exclusive: ['dash'] }),
    workflow: Flags.string({ description: 'default: plan, work, review, merge; pipeline: classify, phases, verify, retry, escalate, budget (seed 002).', options: ['default', 'pipeline'], default: 'default' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Demo);
    if (flags.dash && (!process.stdin.isTTY || !process.stdout.isTTY)) {
      throw new OrangeError('E_USAGE', 'demo --dash needs a terminal for the dashboard (standard input or output is not one); run the demo without --dash');
    }
    const { runDemo, DemoError } = await import('../demo/demo.js');
    const print = (line: string) => {
      if (!this.json) this.log(line);
    };
    // Ctrl-C, SIGTERM or a closed terminal (SIGHUP) end the run as its end would: the teardown
    // runs to completion (a signal arriving during it only says so), then the process exits 128+n.
    const interrupt = new AbortController();
    let told = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (!interrupt.signal.aborted) {
        // After SIGHUP the terminal may be gone: the teardown runs to its end all the same.
        ignoreFailedWrites();
        interrupt.abort(signal);
      } else if (!told) {
        told = true;
        print(`Got ${signal}; still removing the demo's tmux server, agents and sandbox: it ends when they are gone.`);
      }
    };
    const offSignals = onSignals(DEMO_SIGNALS, onSignal);
    const offHangUp = followHangUp(() => onSignal('SIGHUP'));
    try {
      const result = await runDemo({
        cliEntry: join(this.config.root, 'bin', 'run.cjs'),
        keep: flags.keep,
        workflow: flags.workflow === 'pipeline' ? 'pipeline' : 'default',
        timeoutMs: flags.timeout * 1000,
        dashboard: flags.dash,
        web: flags.web,
        signal: interrupt.signal,
        print,
      });
      if (result.interrupted) {
        if (this.json) this.logJson({ ...result, error: `interrupted by ${result.interrupted}` });
        process.exitCode = 128 + (constants.signals[result.interrupted] ?? 0);
        return;
      }
      const error = result.error ?? 'the demo did not finish every task';
      if (this.json) {
        // A failed run is still one object: the error fields beside the full result (with the end of orange.log).
        this.logJson(result.ok ? result : { ...result, error, code: 'E_RUNTIME' });
        if (!result.ok) process.exitCode = 1;
      } else if (!result.ok) {
        throw new OrangeError('E_RUNTIME', `${error} (see above)`);
      }
    } catch (error) {
      if (error instanceof DemoError) throw new OrangeError('E_RUNTIME', error.message);
      throw error;
    } finally {
      offSignals();
      offHangUp();
    }
  }
}

/** The signals that interrupt a demo: Ctrl-C, a kill or a timeout (a closed terminal: `followHangUp`). */
const DEMO_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
