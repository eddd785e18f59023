import * as Flags from '@oclif/core/flags';
import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';
import { transitionJson, transitionLines } from '../../command/transition-report.js';

export default class TaskResume extends OrangeCommand {
  static override summary = 'Continue a stopped pipeline task (or one whose run died) from its checkpoint.';
  static override description = 'The phase that was in progress runs again; finished phases and their cost are kept. --budget raises the task budget first.';
  static override examples = ['<%= config.bin %> task resume V1StGXR8Z5jdHi6BmyT4a', '<%= config.bin %> task resume V1StGXR8Z5jdHi6BmyT4a --budget 10'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag, budget: Flags.string({ description: 'New budget for the task, in USD.' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskResume);
    const budgetUsd = flags.budget === undefined ? undefined : Number(flags.budget);
    if (budgetUsd !== undefined && !(Number.isFinite(budgetUsd) && budgetUsd > 0)) {
      throw new OrangeError('E_INVALID_INPUT', `--budget must be a positive number of USD, not "${flags.budget}"`);
    }
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const { resumeTask } = await import('@orange/plugin-pipeline');
    const result = await resumeTask(orange, { project: task.meta.project, id: task.meta.id }, budgetUsd === undefined ? {} : { budgetUsd });
    this.emit(transitionJson(result), () => {
      for (const line of transitionLines(result)) this.log(line);
    });
  }
}
