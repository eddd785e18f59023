import * as Args from '@oclif/core/args';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';
import { transitionJson, transitionLines } from '../../command/transition-report.js';

export default class TaskClarify extends OrangeCommand {
  static override summary = 'Answer a pipeline task awaiting clarification: the text is added to its context and it is classified again.';
  static override examples = ['<%= config.bin %> task clarify V1StGXR8Z5jdHi6BmyT4a "the login form drops the password on submit"'];
  static override args = { id: requiredTaskIdArg, text: Args.string({ ignoreStdin: true, description: 'The answer (more detail about the task).', required: true }) };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskClarify);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const { clarifyTask } = await import('@orange/plugin-pipeline');
    const result = await clarifyTask(orange, { project: task.meta.project, id: task.meta.id }, args.text);
    this.emit(transitionJson(result), () => {
      for (const line of transitionLines(result)) this.log(line);
    });
  }
}
