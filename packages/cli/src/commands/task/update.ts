import * as Flags from '@oclif/core/flags';
import { inlineText, OrangeError } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, taskIdArg } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';
import { transitionJson, transitionLines } from '../../command/transition-report.js';

/** `--branch` given without a name: adopt the branch the worktree is on. Git forbids ':' in branch names. */
const CURRENT_BRANCH = ':current';

export default class TaskUpdate extends OrangeCommand {
  static override audience = 'agent' as const;
  static override summary = 'Change a task: request a status, set its summary, rename its branch.';
  static override description = [
    'A status change goes through the workflow: the transition must be in the map, its guard must',
    'hold and its artifact gate must pass (e.g. ## Plan before working, ## Handoff before agent-review);',
    'a refusal names the reason and changes nothing. --branch NAME renames the branch in the worktree;',
    '--branch alone records the branch the worktree is on (after renaming it with git).',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> task update --status working          # inside the worktree',
    '<%= config.bin %> task update V1StGXR8Z5jdHi6BmyT4a --status reviewing',
    '<%= config.bin %> task update --branch feature/login-form',
    '<%= config.bin %> task update --summary "Add a login form with validation"',
  ];
  static override args = { id: taskIdArg };
  static override flags = {
    project: projectFlag,
    status: Flags.string({ char: 's', description: 'Status to move to.' }),
    summary: Flags.string({ description: 'New one-line summary.' }),
    branch: Flags.string({ char: 'b', description: "New branch name; without a value, the branch the task's worktree is on." }),
  };

  async run(): Promise<void> {
    const at = this.argv.findIndex((a) => a === '--branch' || a === '-b');
    if (at !== -1 && (at + 1 >= this.argv.length || (this.argv[at + 1] ?? '').startsWith('-'))) this.argv.splice(at + 1, 0, CURRENT_BRANCH);
    const { args, flags } = await this.parse(TaskUpdate);
    if (flags.status === undefined && flags.summary === undefined && flags.branch === undefined) {
      throw new OrangeError('E_USAGE', 'nothing to update; pass --status, --summary or --branch');
    }
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const ref = { project: task.meta.project, id: task.meta.id };
    // One critical section: a refused status changes nothing, not the summary or branch either.
    const branch = flags.branch === undefined ? undefined : flags.branch === CURRENT_BRANCH ? null : flags.branch;
    await this.writer(orange, ref, 'updates');
    // The agents' command: a status change takes only the moves the workflow gives to agents, whoever runs it.
    const outcome = await orange.engine.request(ref, { status: flags.status, summary: flags.summary, branch, cause: 'request', actor: 'agent' });
    const result = outcome.transition;
    const edited = [...outcome.edited];
    const current = outcome.task;
    this.emit({ ...(result ? transitionJson(result) : { task: current.meta }), edited }, () => {
      for (const field of edited) this.log(inlineText(`task ${ref.id}: ${field} is now ${String(current.meta[field])}`));
      if (result) for (const line of transitionLines(result)) this.log(line);
      if (!result && edited.length === 0) this.log(`task ${ref.id}: nothing changed`);
    });
  }
}
