import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../../base-command.js';
import { confirm } from '../../confirm.js';
import { projectFlag, requiredTaskIdArg, yesFlag } from '../../flags.js';
import { resolveTask } from '../../locate.js';

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
    const workflow = await orange.workflowForProject(project);
    if (!workflow.isTerminal(status)) {
      throw new OrangeError('E_NOT_ALLOWED', `task ${id} is ${status}; only a finished task (done or cancelled) can be deleted — cancel it first`);
    }
    await confirm(`Delete task ${id} (${status}, ${task.meta.branch}) and its history?`, flags.yes);
    // A session the monitor has not reaped yet must not outlive its task. Killed (and verified
    // gone) first: if an agent survives, the error is reported and the task is still there.
    const runtime = orange.maybeSlot('runtime');
    if (runtime) await runtime.killSession(runtime.sessionName(task.meta));
    await orange.store.withTaskLock(project, id, () => orange.store.remove(project, id));
    orange.log.info('task deleted', { task: id, project, status });
    this.emit({ deleted: { project, id } }, () => this.log(`deleted task ${id}`));
  }
}
