import * as Args from '@oclif/core/args';
import { OrangeCommand } from '../../command/base-command.js';
import { inferProject } from '../../command/locate.js';
import { table } from '../../output/render.js';

export default class WorkflowShow extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'Print a workflow: its states and its transition map with gates, guards and hooks.';
  static override examples = ['<%= config.bin %> workflow show', '<%= config.bin %> workflow show classic --json'];
  static override args = { name: Args.string({ ignoreStdin: true, description: "Workflow name (default: the current project's, else the configured one)." }) };

  async run(): Promise<void> {
    const { args } = await this.parse(WorkflowShow);
    const orange = await this.orange();
    const name = args.name ?? (await inferProject(orange))?.workflow ?? orange.defaultWorkflowName;
    const workflow = orange.workflow(name);
    const { definition } = workflow;
    // Who may take each move, settled (a crash one is Orange's, a forced one a person's).
    const shown = { ...definition, transitions: workflow.transitions.map(({ parsedGuard: _guard, ...t }) => t) };
    this.emit({ workflow: shown, known: orange.workflowNames }, () => {
      this.log(`workflow ${definition.name} (initial ${definition.initial}, start ${definition.start}); known: ${orange.workflowNames.join(', ')}\n`);
      const states = Object.entries(definition.states).map(([state, s]) => [
        state,
        s.terminal ? 'terminal' : (s.agent ?? '-'),
        definition.exit?.[state] ? describeExit(definition.exit[state]) : '-',
      ]);
      this.log(table(['STATE', 'AGENT', 'ON AGENT EXIT'], states));
      this.log('');
      const rows = workflow.transitions.map((t) => [`${t.from} → ${t.to}${t.crash ? ' (crash only)' : t.force ? ' (force only)' : ''}`, t.by.join(', '), t.gate ?? '-', t.guard ?? '-', t.hooks.join(', ') || '-']);
      this.log(table(['TRANSITION', 'BY', 'GATE', 'GUARD', 'HOOKS'], rows));
      this.log("\nBY: who may take the move — agent (its task's own agent asks: task update --status, complete, stuck), person (task merge, cancel, request-changes, move, the dashboard), orange (exit rules, hooks, the pipeline driver, pull request sync).");
      if (definition.transitions.some((t) => t.crash)) {
        this.log('\n(crash only): taken by exit monitoring when an agent crashed crashLimit times; it cannot be requested.');
      }
      if (definition.transitions.some((t) => t.force)) {
        this.log('(force only): taken only by a confirmed force-merge (orange task merge --force, the dashboard\'s m); never an agent\'s request.');
      }
    });
  }
}

function describeExit(rule: { advance?: readonly string[]; otherwise?: string }): string {
  return [rule.advance?.length ? `advance to ${rule.advance.join(' | ')}` : null, rule.otherwise ? `else ${rule.otherwise}` : null].filter(Boolean).join(', ');
}
