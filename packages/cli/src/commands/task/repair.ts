import { inlineText } from '@orange/core';
import { OrangeCommand } from '../../base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../flags.js';
import { resolveTask } from '../../locate.js';

export default class TaskRepair extends OrangeCommand {
  static override summary = 'Restore a hand-edited status in TASK.md to the status of record (the history ledger).';
  static override examples = ['<%= config.bin %> task repair V1StGXR8Z5jdHi6BmyT4a'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskRepair);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const result = await orange.engine.repair({ project: task.meta.project, id: task.meta.id });
    this.emit({ task: result.task.meta, from: result.from, to: result.to, repaired: result.repaired }, () =>
      this.log(inlineText(result.repaired ? `task ${task.meta.id}: status restored ${result.from} → ${result.to}` : `task ${task.meta.id}: status ${result.to} matches the ledger; nothing to repair`)),
    );
  }
}
