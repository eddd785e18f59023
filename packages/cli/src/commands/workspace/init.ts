import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';
import { resolveProject } from '../../command/locate.js';
import { workspaceTable } from '../../output/workspace-table.js';

export default class WorkspaceInit extends OrangeCommand {
  static override summary = "Create every worktree of the project's pool now (otherwise they are created on demand).";
  static override examples = ['<%= config.bin %> workspace init'];
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(WorkspaceInit);
    const orange = await this.orange();
    const project = await resolveProject(orange, flags.project);
    const workspaces = await orange.slot('workspaces').init(project);
    this.emit({ workspaces }, () => this.log(workspaceTable(workspaces)));
  }
}
