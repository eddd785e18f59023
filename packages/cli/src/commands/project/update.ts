import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { resolveProject } from '../../command/locate.js';
import { projectRow } from '../../output/project-row.js';

export default class ProjectUpdate extends OrangeCommand {
  static override summary = "Change a project's pool size, default branch or workflow.";
  static override examples = ['<%= config.bin %> project update --pool-size 4', '<%= config.bin %> project update app --default-branch develop'];
  static override args = { name: Args.string({ ignoreStdin: true, description: 'Project name (default: the repository you are in).' }) };
  static override flags = {
    'pool-size': Flags.integer({ description: 'How many worktrees (tasks running at once).', min: 1, max: 64 }),
    'default-branch': Flags.string({ description: 'Branch tasks start from and merge into.' }),
    workflow: Flags.string({ description: "Workflow for this project's new transitions." }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProjectUpdate);
    if (flags['pool-size'] === undefined && flags['default-branch'] === undefined && flags.workflow === undefined) {
      throw new OrangeError('E_USAGE', 'nothing to update; pass --pool-size, --default-branch or --workflow');
    }
    const orange = await this.orange();
    const current = await resolveProject(orange, args.name, undefined, 'name it: orange project update NAME');
    if (flags.workflow) orange.workflow(flags.workflow);
    if (flags['default-branch'] !== undefined) await orange.maybeSlot('workspaces')?.baseRef?.({ ...current, default_branch: flags['default-branch'] });
    const project = await orange.projects.update(current.name, {
      ...(flags['pool-size'] !== undefined ? { pool_size: flags['pool-size'] } : {}),
      ...(flags['default-branch'] !== undefined ? { default_branch: flags['default-branch'] } : {}),
      ...(flags.workflow !== undefined ? { workflow: flags.workflow } : {}),
    });
    orange.log.info('project updated', { project: project.name });
    this.emit({ project }, () => this.log(`updated project ${project.name}: ${projectRow(project)}`));
  }
}
