import * as Flags from '@oclif/core/flags';
import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';

export default class TaskAttach extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = "Attach your terminal to the task's tmux session (detach with Ctrl-b d; inside tmux it switches your client: Ctrl-b L comes back).";
  static override examples = ['<%= config.bin %> task attach V1StGXR8Z5jdHi6BmyT4a', '<%= config.bin %> task attach V1StGXR8Z5jdHi6BmyT4a --role reviewer'];
  static override args = { id: requiredTaskIdArg };
  static override flags = {
    project: projectFlag,
    role: Flags.string({ description: "Window to select: the worker's or the reviewer's.", options: ['worker', 'reviewer'] }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskAttach);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const workflow = await orange.workflowFor(task.meta);
    if (workflow.isTerminal(task.meta.status)) {
      // Not the runtime's "start one with respawn": a finished task cannot be respawned.
      throw new OrangeError('E_NOT_ALLOWED', `task ${task.meta.id} is ${task.meta.status}; a finished task has no agents to attach to (its output: orange task output ${task.meta.id})`);
    }
    if (!process.stdin.isTTY) throw new OrangeError('E_USAGE', 'attach needs a terminal (standard input is not one)');
    await orange.slot('runtime').attach(task.meta, flags.role as 'worker' | 'reviewer' | undefined);
    if (this.json) this.logJson({ task: task.meta, attached: true });
  }
}
