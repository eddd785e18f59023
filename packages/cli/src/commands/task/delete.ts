import { checkDelete, deleteTask } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { confirm } from '../../command/confirm.js';
import { projectFlag, requiredTaskIdArg, yesFlag } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';

export default class TaskDelete extends OrangeCommand {
  static override summary = 'Delete a finished (done or cancelled) task: its TASK.md and history.';
  static override description = 'Asks for confirmation unless --yes; without a terminal it refuses instead of waiting.';
  static override examples = ['<%= config.bin %> task delete V1StGXR8Z5jdHi6BmyT4a --yes'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag, yes: yesFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskDelete);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const { project, id, status } = task.meta;
    await checkDelete(orange, task);
    await confirm(`Delete task ${id} (${status}, ${task.meta.branch}) and its history?`, flags.yes);
    await deleteTask(orange, task);
    this.emit({ deleted: { project, id } }, () => this.log(`deleted task ${id}`));
  }
}
