import * as Args from '@oclif/core/args';
import { OrangeError, personCommand } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { confirm } from '../../command/confirm.js';
import { projectFlag, requiredTaskIdArg, yesFlag } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';
import { transitionJson, transitionLines } from '../../command/transition-report.js';

export default class TaskMove extends OrangeCommand {
  static override summary = "Take a person's move of the task's workflow: one with no command of its own (a workflow of your own may have several).";
  static override description = [
    'Only a transition the workflow gives to a person (by: [person]); everything else is refused with',
    'who takes it. Moves with a command of their own are refused with that command: done is',
    'orange task merge (it merges the branch first), a cancel is orange task cancel. Asks for',
    'confirmation unless --yes; without a terminal it refuses instead of waiting.',
  ].join(' ');
  static override examples = ['<%= config.bin %> task move V1StGXR8Z5jdHi6BmyT4a approved', '<%= config.bin %> task move V1StGXR8Z5jdHi6BmyT4a stuck --yes'];
  static override args = { id: requiredTaskIdArg, status: Args.string({ ignoreStdin: true, required: true, description: 'The status to move the task to.' }) };
  static override flags = { project: projectFlag, yes: yesFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskMove);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const ref = { project: task.meta.project, id: task.meta.id };
    const workflow = await orange.workflowFor(task.meta);
    const command = personCommand(workflow, task.meta.status, args.status, ref.id);
    if (!command.startsWith('orange task move ')) {
      throw new OrangeError('E_USAGE', `${task.meta.status} → ${args.status} has a command of its own: ${command}`);
    }
    // Checked before the question (a refusal needs no confirmation), and again under the lock.
    const legal = workflow.between(task.meta.status, args.status).filter((t) => t.by.includes('person'));
    if (legal.length === 0) await orange.engine.transition(ref, args.status, { cause: 'request', actor: 'person', expectFrom: task.meta.status });
    await confirm(`Move task ${ref.id} (${task.meta.status}, ${task.meta.branch}) to ${args.status}?`, flags.yes);
    const result = await orange.engine.transition(ref, args.status, { cause: 'request', actor: 'person', expectFrom: task.meta.status });
    if (!result.changed) throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} moved to ${result.from} meanwhile; nothing was changed`);
    this.emit(transitionJson(result), () => {
      for (const line of transitionLines(result)) this.log(line);
    });
  }
}
