import { join } from 'node:path';
import * as Flags from '@oclif/core/flags';
import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../base-command.js';

export default class Demo extends OrangeCommand {
  static override summary = "Run Orange's main job in a throwaway sandbox: three tasks, real tmux and worktrees, scripted agents.";
  static override description = [
    'Creates a repository with a bare origin, registers it, starts the monitor, and runs three tasks',
    'in parallel through planning, work, review (one review fails once) and merge, using a scripted',
    'agent that really runs in tmux and calls this CLI. Needs git and tmux; no AI agent is called.',
  ].join('\n');
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --keep', '<%= config.bin %> demo --dash', '<%= config.bin %> demo --workflow pipeline'];
  static override flags = {
    keep: Flags.boolean({ description: 'Keep the sandbox (repository and ORANGE_HOME) to look at afterwards.', default: false }),
    dash: Flags.boolean({ description: 'Watch the agents work in the dashboard (orange dash) while the demo runs; quit it with q to end.', default: false }),
    timeout: Flags.integer({ description: 'Give up after this many seconds.', default: 180, min: 10 }),
    workflow: Flags.string({ description: 'default: plan, work, review, merge; pipeline: classify, phases, verify, retry, escalate, budget (seed 002).', options: ['default', 'pipeline'], default: 'default' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Demo);
    if (flags.dash && (!process.stdin.isTTY || !process.stdout.isTTY)) {
      throw new OrangeError('E_USAGE', 'demo --dash needs a terminal for the dashboard (standard input or output is not one); run the demo without --dash');
    }
    const { runDemo, DemoError } = await import('../demo.js');
    try {
      const result = await runDemo({
        cliEntry: join(this.config.root, 'bin', 'run.js'),
        keep: flags.keep,
        workflow: flags.workflow === 'pipeline' ? 'pipeline' : 'default',
        timeoutMs: flags.timeout * 1000,
        dashboard: flags.dash,
        print: (line) => {
          if (!this.json) this.log(line);
        },
      });
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
    }
  }
}
