import * as Flags from '@oclif/core/flags';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';
import { inferProject } from '../../command/locate.js';
import { workspaceTable } from '../../output/workspace-table.js';

export default class WorkspaceList extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'List the worktrees of the pool and the task holding each.';
  static override examples = ['<%= config.bin %> workspace list', '<%= config.bin %> workspace list --all --json'];
  static override flags = {
    project: projectFlag,
    all: Flags.boolean({ char: 'a', description: 'Worktrees of every project.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(WorkspaceList);
    const orange = await this.orange();
    const scope = flags.all ? undefined : flags.project ? (await orange.projects.get(flags.project)).name : (await inferProject(orange))?.name;
    const workspaces = await orange.slot('workspaces').list(scope);
    this.emit({ workspaces }, () => {
      if (workspaces.length === 0) this.log('no worktrees yet (they are created when tasks start, or by orange workspace init)');
      else this.log(workspaceTable(workspaces));
    });
  }
}
