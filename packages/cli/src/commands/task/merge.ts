import * as Flags from '@oclif/core/flags';
import { checkMerge, inlineText, mergeTask } from '@orange/core';
import { confirm } from '../../command/confirm.js';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg, yesFlag } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';
import { transitionJson, transitionLines } from '../../command/transition-report.js';

export default class TaskMerge extends OrangeCommand {
  static override summary = "Merge a reviewed task's branch into the default branch and finish the task.";
  static override description = [
    'Only for a task that may move to done (in the default workflow: reviewing). The SCM plugin',
    'merges (fast-forward by default) and pushes; then the task moves to done, whose hooks stop',
    'its session, release its worktree and delete the remote branch. A task with an open pull',
    'request is refused unless --local; one whose pull request is merged just finishes. --force',
    'merges a task still at work (planning, working, agent-review, …) as its branch stands: the',
    "workflow's forced move into done stops its agents; the ledger records the merge as forced.",
    "A person's command: it asks for confirmation unless --yes (without a terminal it refuses instead of waiting).",
  ].join(' ');
  static override examples = [
    '<%= config.bin %> task merge V1StGXR8Z5jdHi6BmyT4a',
    '<%= config.bin %> task merge V1StGXR8Z5jdHi6BmyT4a --yes --strategy merge',
    '<%= config.bin %> task merge V1StGXR8Z5jdHi6BmyT4a --local',
    '<%= config.bin %> task merge V1StGXR8Z5jdHi6BmyT4a --force',
  ];
  static override args = { id: requiredTaskIdArg };
  static override flags = {
    project: projectFlag,
    strategy: Flags.string({ description: 'ff: fast-forward only; merge: a merge commit.', options: ['ff', 'merge'], default: 'ff' }),
    local: Flags.boolean({ description: 'Merge locally even when the task has an open pull request.', default: false }),
    force: Flags.boolean({ description: 'Merge a task the review has not passed yet (from any active status the workflow allows).', default: false }),
    yes: yesFlag,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskMerge);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const ref = { project: task.meta.project, id: task.meta.id };
    // A task that cannot be finished is refused before the question; every check of the move
    // (a team's veto included) runs again before git is touched.
    const { task: checked, forced } = await checkMerge(orange, ref, { force: flags.force });
    const base = (await orange.projects.get(ref.project)).default_branch;
    await confirm(`${forced ? 'Force-merge' : 'Merge'} task ${ref.id} (${checked.meta.status}, ${checked.meta.branch}) into ${base} and finish it?`, flags.yes);
    const { merge, result } = await mergeTask(orange, ref, { strategy: flags.strategy as 'ff' | 'merge', local: flags.local }, { force: flags.force });
    this.emit({ ...transitionJson(result), merge }, () => {
      this.log(inlineText(merge.message));
      for (const line of transitionLines(result)) this.log(line);
    });
  }
}
