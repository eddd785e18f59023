import { inlineText, openPullRequest } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';

export default class TaskCreatePr extends OrangeCommand {
  static override summary = "Push the task's branch and open a pull request for it.";
  static override description = 'Needs the GitHub CLI (gh), logged in. The PR URL is stored in the task; the monitor finishes the task when the PR is merged and cancels it when it is closed.';
  static override examples = ['<%= config.bin %> task create-pr V1StGXR8Z5jdHi6BmyT4a'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskCreatePr);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const opened = await openPullRequest(orange, { project: task.meta.project, id: task.meta.id });
    this.emit({ task: opened.task.meta, url: opened.url }, () => this.log(`pull request: ${inlineText(opened.url)}`));
  }
}
