import { inlineText } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../command/flags.js';
import { resolveTaskRef } from '../../command/locate.js';

export default class TaskRepair extends OrangeCommand {
  static override summary = "Undo hand edits of the engine's fields in TASK.md: restore each to its value of record.";
  static override description = [
    'TASK.md front matter fields other than summary, harness, review_harness, effort and review_effort',
    "belong to the engine (status, branch, id, workspace, spawn ids, …). A TASK.md showing another value",
    'than the one of record is refused (E_TAMPERED) until repaired. Repair keeps the body and the free fields.',
  ].join(' ');
  static override examples = ['<%= config.bin %> task repair V1StGXR8Z5jdHi6BmyT4a'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskRepair);
    const orange = await this.orange();
    const ref = await resolveTaskRef(orange, args.id, flags.project);
    const result = await orange.engine.repair(ref);
    this.emit({ task: result.task.meta, from: result.from, to: result.to, repaired: result.repaired, fields: result.fields }, () => {
      if (!result.repaired) this.log(`task ${ref.id}: TASK.md agrees with the record; nothing to repair`);
      else if (result.from !== result.to) this.log(inlineText(`task ${ref.id}: status restored ${result.from} → ${result.to}; restored: ${result.fields.join(', ')}`));
      else this.log(inlineText(`task ${ref.id}: restored ${result.fields.join(', ')} (status ${result.to})`));
    });
  }
}
