import { cancelTask, checkCancel, inlineText } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { confirm } from '../../command/confirm.js';
import { projectFlag, requiredTaskIdArg, yesFlag } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';
import { transitionJson, transitionLines } from '../../command/transition-report.js';

export default class TaskCancel extends OrangeCommand {
  static override summary = 'Cancel a task: its agents are stopped and its worktree is released.';
  static override description = [
    'Asks for confirmation unless --yes; without a terminal it refuses instead of waiting.',
    'A pipeline task is stopped instead, keeping its checkpoint for orange task resume; cancelling a stopped',
    'pipeline task abandons it: it ends failed and its worktree is freed (checkpoint.json stays for inspection).',
  ].join(' ');
  static override examples = ['<%= config.bin %> task cancel V1StGXR8Z5jdHi6BmyT4a', '<%= config.bin %> task cancel V1StGXR8Z5jdHi6BmyT4a --yes'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag, yes: yesFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskCancel);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const ref = { project: task.meta.project, id: task.meta.id };
    const check = await checkCancel(orange, task);
    const abandon = check.kind === 'abandon';
    await confirm(check.question, flags.yes);
    const result = await cancelTask(orange, ref);
    // The pipeline workflow stops instead, keeping its checkpoint: say what was done and what it cost.
    const pipeline = result.to === 'stopped' || abandon ? await import('@orange/plugin-pipeline') : null;
    const report = result.to === 'stopped' && pipeline ? pipeline.cancelReport(result.task.meta, result.from) : null;
    const checkpoint = abandon && pipeline ? pipeline.checkpointPath(orange.paths, ref) : null;
    this.emit({ ...transitionJson(result), ...(report ? { report } : {}), ...(checkpoint ? { abandoned: { checkpoint } } : {}) }, () => {
      for (const line of transitionLines(result)) this.log(line);
      if (pipeline && report) for (const line of pipeline.cancelReportLines(report)) this.log(inlineText(line));
      if (checkpoint && result.changed) {
        this.log(inlineText(`Abandoned task ${ref.id}: the progress in its checkpoint is given up (it can no longer be resumed); the checkpoint is kept for inspection: ${checkpoint}`));
        const freed = task.meta.workspace !== null && !result.failedHooks.includes('release_workspace');
        this.log(inlineText(`${freed ? 'Its worktree is freed; delete' : 'Delete'} the task with: orange task delete ${ref.id}`));
      }
    });
  }
}
