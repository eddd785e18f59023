import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { inferProject } from '../../command/locate.js';
import { readStdin } from '../../command/stdin.js';

export default class WorkflowSimulate extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'Walk a workflow through a script of events, with no tmux, git or worktree: each step, refusal and action.';
  static override description = [
    "The real engine runs on an in-memory task with the config's plugins: their gates and vetoes run",
    'for real; actions, tmux and git are stand-ins; the built-in gates are answered from the script.',
    'Events (separated by ; or new lines; # comments out the rest of an event): create [STATUS], spawn,',
    "request STATUS (the agent's), move STATUS (a person's), merge (orange task merge), exit worker|reviewer, respawn,",
    'review PASS|FAIL, gate NAME pass|fail [REASON], set FIELD VALUE, fail ACTION [MESSAGE],',
    'veto [REASON], file PATH [TEXT] (written in the simulated worktree). See docs/workflows.md.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> workflow simulate --script "request working; exit worker; review FAIL; exit reviewer"',
    '<%= config.bin %> workflow simulate classic --script "exit worker; exit worker" --json',
    'cat flow.txt | <%= config.bin %> workflow simulate minimal --script -',
  ];
  static override args = { name: Args.string({ ignoreStdin: true, description: "Workflow name (default: the current project's, else the configured one)." }) };
  static override flags = {
    script: Flags.string({ char: 's', required: true, description: 'The events; "-" reads them from standard input.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(WorkflowSimulate);
    const script = flags.script === '-' ? await readStdin() : flags.script;
    const orange = await this.orange();
    const name = args.name ?? (await inferProject(orange))?.workflow ?? orange.defaultWorkflowName;
    // Validated against the configured plugins, as it will run; simulated with them, their actions stood in for.
    const { definition } = orange.workflow(name);
    const [{ simulateWorkflow }, { defaultPlugins }] = await Promise.all([import('@orange/core'), import('../../startup/default-plugins.js')]);
    const result = await simulateWorkflow(definition, script, { config: orange.config, defaultPlugins });
    if (result.steps.length === 0) throw new OrangeError('E_USAGE', 'the script is empty');
    this.emit(result, () => {
      this.log(`workflow ${result.workflow}, simulated (no tmux, git or worktree)\n`);
      result.steps.forEach((step, i) => {
        this.log(`${String(i + 1).padStart(2)}. ${step.event}  → ${step.status}`);
        for (const line of step.lines) this.log(`    ${line.trim()}`);
      });
      const t = result.task;
      this.log(`\nends in ${t.status} (review_round ${t.review_round}, crash_count ${t.crash_count}${t.attention ? `, attention: ${t.attention}` : ''})`);
    });
  }
}
