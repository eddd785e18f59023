import { inlineText } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';

export default class WorkspaceGc extends OrangeCommand {
  static override summary = 'Free worktrees still bound to finished, deleted or never-started tasks, start queued tasks on them, and remove what plugins left behind.';
  static override description = "A cancelled or deleted task's uncommitted changes are discarded (and logged); a done task's keep its worktree bound. Plugins remove what they left for tasks that no longer need it (the docker runtime: containers). Every project unless --project is given.";
  static override examples = ['<%= config.bin %> workspace gc', '<%= config.bin %> workspace gc --project app'];
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(WorkspaceGc);
    const orange = await this.orange();
    // Checked first, so that a mistyped name is refused instead of freeing nothing silently.
    const project = flags.project === undefined ? undefined : (await orange.projects.get(flags.project)).name;
    const { freed, started = [], busy = [] } = await orange.slot('workspaces').gc(project);
    // What plugins left outside Orange's files for tasks that no longer need it (a runtime's containers).
    const swept: string[] = [];
    await orange.hooks.sweep.promise({ orange, project, remove: true, found: swept });
    const lines = [...freed.map((w) => `freed ${w.name} (was task ${w.task})`), ...started.map((id) => `started ${id} (was queued)`), ...busy.map((id) => `task ${id} is busy (another orange process is moving it); run gc again`), ...swept];
    this.emit({ freed, started, busy, swept }, () => this.log(lines.length === 0 ? 'nothing to free' : lines.map((line) => inlineText(line)).join('\n')));
  }
}
