import * as Flags from '@oclif/core/flags';
import { inlineText, OrangePaths, ProjectStore } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';

export default class AgentExited extends OrangeCommand {
  static override audience = 'agent' as const;
  static override hidden = true;
  static override summary = "Report that an agent's process ended (called by the runtime's agent wrapper).";
  static override flags = {
    project: Flags.string({ required: true, description: 'Project of the task.' }),
    task: Flags.string({ required: true, description: 'Task id.' }),
    role: Flags.string({ required: true, options: ['worker', 'reviewer'], description: 'Which agent ended.' }),
    spawn: Flags.string({ description: 'Spawn id the agent was started with (makes the report idempotent).' }),
    code: Flags.integer({ description: "The agent's exit code (for the log)." }),
  };

  /**
   * The project's own directory: the report is started from `/` (so that it never works inside the
   * agent's worktree), and the config is the one the project's agents see.
   */
  protected override async configDir(): Promise<string> {
    const { flags } = await this.parse(AgentExited);
    const project = (await new ProjectStore(OrangePaths.fromEnv()).list().catch(() => [])).find((p) => p.name === flags.project);
    return project?.path ?? process.cwd();
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(AgentExited);
    const orange = await this.orange();
    // An agent's own exit report comes with its identity: it may report only its own task.
    await this.writer(orange, { project: flags.project, id: flags.task }, 'reports the exit of', { current: false });
    orange.log.debug('agent exit reported', { task: flags.task, role: flags.role, spawn: flags.spawn, code: flags.code });
    const outcome = await orange.engine.agentExited({ project: flags.project, id: flags.task }, flags.role as 'worker' | 'reviewer', flags.spawn ?? null, 'exit');
    this.emit({ task: outcome.task.meta, decision: outcome.decision }, () => this.log(inlineText(`${outcome.decision.kind}: ${outcome.decision.reason}`)));
  }
}
