import { cancelTask, checkCancel, inlineText } from '@orange/core';
import { OrangeCommand } from '../../base-command.js';
import { confirm } from '../../confirm.js';
import { projectFlag, requiredTaskIdArg, yesFlag } from '../../flags.js';
import { resolveTask } from '../../locate.js';
import { transitionJson, transitionLines } from '../../transition-report.js';

export default class TaskCancel extends OrangeCommand {
  static override summary = 'Cancel a task: its agents are stopped and its worktree is released.';
  static override description = 'Asks for confirmation unless --yes; without a terminal it refuses instead of waiting.';
  static override examples = ['<%= config.bin %> task cancel V1StGXR8Z5jdHi6BmyT4a', '<%= config.bin %> task cancel V1StGXR8Z5jdHi6BmyT4a --yes'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag, yes: yesFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskCancel);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const ref = { project: task.meta.project, id: task.meta.id };
    await checkCancel(orange, task);
    await confirm(`Cancel task ${ref.id} (${task.meta.status}, ${task.meta.branch})?`, flags.yes);
    const result = await cancelTask(orange, ref);
    // The pipeline workflow stops instead, keeping its checkpoint: say what was done and what it cost.
    const stopped = result.to === 'stopped' ? await import('@orange/plugin-pipeline') : null;
    const report = stopped?.cancelReport(result.task.meta) ?? null;
    this.emit({ ...transitionJson(result), ...(report ? { report } : {}) }, () => {
      for (const line of transitionLines(result)) this.log(line);
      if (stopped && report) for (const line of stopped.cancelReportLines(report)) this.log(inlineText(line));
    });
  }
}
