import * as Flags from '@oclif/core/flags';
import { inlineText, OrangeError, TransitionRefused } from '@orange/core';
import { OrangeCommand } from '../../base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../flags.js';
import { resolveTask } from '../../locate.js';
import { transitionJson, transitionLines } from '../../transition-report.js';

export default class TaskMerge extends OrangeCommand {
  static override summary = "Merge a reviewed task's branch into the default branch and finish the task.";
  static override description = [
    'Only for a task that may move to done (in the default workflow: reviewing). The SCM plugin',
    'merges (fast-forward by default) and pushes; then the task moves to done, whose hooks stop',
    'its session, release its worktree and delete the remote branch. A task with an open pull',
    'request is refused unless --local; one whose pull request is merged just finishes.',
  ].join('\n');
  static override examples = ['<%= config.bin %> task merge V1StGXR8Z5jdHi6BmyT4a', '<%= config.bin %> task merge V1StGXR8Z5jdHi6BmyT4a --strategy merge', '<%= config.bin %> task merge V1StGXR8Z5jdHi6BmyT4a --local'];
  static override args = { id: requiredTaskIdArg };
  static override flags = {
    project: projectFlag,
    strategy: Flags.string({ description: 'ff: fast-forward only; merge: a merge commit.', options: ['ff', 'merge'], default: 'ff' }),
    local: Flags.boolean({ description: 'Merge locally even when the task has an open pull request.', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskMerge);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const ref = { project: task.meta.project, id: task.meta.id };
    const workflow = await orange.workflowForProject(ref.project);
    // Check the transition before touching git: a task that cannot be finished must not be merged.
    await orange.engine.readVerified(ref);
    if (workflow.isTerminal(task.meta.status)) {
      const merged = (await orange.store.history(ref.project, ref.id)).some((e) => e.type === 'task.merged');
      throw new OrangeError('E_NOT_ALLOWED', `task ${ref.id} is already ${task.meta.status}${merged ? ' (merged)' : ''}; there is nothing left to merge`);
    }
    if (workflow.between(task.meta.status, 'done').length === 0) {
      throw new TransitionRefused('E_ILLEGAL_TRANSITION', task.meta.status, 'done', `task ${ref.id} cannot be merged from ${task.meta.status} (merge a task once its review passed)`);
    }
    const scm = orange.slot('scm');
    const project = await orange.projects.get(ref.project);
    const merge = await scm.merge(task, project, { strategy: flags.strategy as 'ff' | 'merge', local: flags.local });
    if (!merge.merged) throw new OrangeError('E_SCM', merge.message);
    await orange.store.withTaskLock(ref.project, ref.id, () =>
      orange.store.appendHistory(ref.project, ref.id, { type: 'task.merged', via: scm.name, strategy: flags.strategy, message: merge.message }),
    );
    const result = await orange.engine.transition(ref, 'done', { cause: 'request', reason: 'merged' });
    this.emit({ ...transitionJson(result), merge }, () => {
      this.log(inlineText(merge.message));
      for (const line of transitionLines(result)) this.log(line);
    });
  }
}
