import { inlineText } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';

export default class TaskRespawn extends OrangeCommand {
  static override summary = "Restart the agent of an active task whose session died.";
  static override description = 'Refused for a task that is not active, or whose agent is still running.';
  static override examples = ['<%= config.bin %> task respawn V1StGXR8Z5jdHi6BmyT4a'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskRespawn);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const after = await orange.engine.respawn({ project: task.meta.project, id: task.meta.id });
    this.emit({ task: after.meta }, () => this.log(inlineText(`task ${after.meta.id}: agent restarted (${after.meta.status})`)));
  }
}
