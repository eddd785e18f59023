import { OrangeCommand } from './base-command.js';
import { projectFlag, taskIdArg } from './flags.js';
import { resolveTask } from './locate.js';
import { transitionJson, transitionLines } from './transition-report.js';

/** A command that asks for one fixed status (`complete`, `stuck`), for the task given or inferred. */
export abstract class StatusRequest extends OrangeCommand {
  static override audience = 'agent' as const;
  static override args = { id: taskIdArg };
  static override flags = { project: projectFlag };
  protected abstract readonly target: string;

  async run(): Promise<void> {
    // Not `this.constructor`: oclif spreads a command's own static properties, so the `args`
    // subclasses inherit from here would be lost and `task complete <id>` refused as unexpected.
    const { args, flags } = await this.parse(StatusRequest);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id as string | undefined, flags.project as string | undefined);
    const ref = { project: task.meta.project, id: task.meta.id };
    await this.writer(orange, ref, 'asks for the status of');
    // The agents' command: it takes only the moves the workflow gives to agents, whoever runs it.
    const result = await orange.engine.transition(ref, this.target, { cause: 'request', actor: 'agent' });
    this.emit(transitionJson(result), () => {
      for (const line of transitionLines(result)) this.log(line);
    });
  }
}
