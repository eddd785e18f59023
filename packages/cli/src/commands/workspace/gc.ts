import { OrangeCommand } from '../../base-command.js';

export default class WorkspaceGc extends OrangeCommand {
  static override summary = 'Free worktrees still bound to finished, deleted or never-started tasks.';
  static override description = "A cancelled or deleted task's uncommitted changes are discarded (and logged); a done task's keep its worktree bound.";
  static override examples = ['<%= config.bin %> workspace gc'];

  async run(): Promise<void> {
    await this.parse(WorkspaceGc);
    const orange = await this.orange();
    const { freed } = await orange.slot('workspaces').gc();
    this.emit({ freed }, () => this.log(freed.length === 0 ? 'nothing to free' : freed.map((w) => `freed ${w.name} (was task ${w.task})`).join('\n')));
  }
}
