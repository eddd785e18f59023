import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { OrangeCommand } from '../../command/base-command.js';
import { inspectRepository } from '../../init/repository.js';
import { projectRow } from '../../output/project-row.js';

export default class ProjectAdd extends OrangeCommand {
  static override summary = 'Register a git repository as a project.';
  static override description = 'The default branch is read from origin/HEAD (else the branch checked out). Worktrees are created on demand, or all at once with orange workspace init.';
  static override examples = ['<%= config.bin %> project add', '<%= config.bin %> project add ~/src/app --name app --pool-size 4'];
  static override args = { path: Args.string({ ignoreStdin: true, description: 'Path inside the repository (default: the current directory).' }) };
  static override flags = {
    name: Flags.string({ char: 'n', description: "Project name (default: the repository's directory name)." }),
    'pool-size': Flags.integer({ description: 'How many worktrees (tasks running at once; default: the config poolSize, 2).', min: 1, max: 64 }),
    'default-branch': Flags.string({ description: 'Branch tasks start from and merge into (default: detected).' }),
    workflow: Flags.string({ description: "Workflow for this project's tasks (default: the configured one)." }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProjectAdd);
    const orange = await this.orange();
    const repo = await inspectRepository(args.path ?? process.cwd());
    if (flags.workflow) orange.workflow(flags.workflow);
    const input = {
      name: flags.name ?? repo.suggestedName,
      path: repo.path,
      default_branch: flags['default-branch'] ?? repo.defaultBranch,
      pool_size: flags['pool-size'] ?? orange.config.poolSize,
      ...(flags.workflow ? { workflow: flags.workflow } : {}),
    };
    // A branch named by hand must exist (a detected one may not yet: a repository with no commit).
    if (flags['default-branch'] !== undefined) await orange.maybeSlot('workspaces')?.baseRef?.(input);
    const project = await orange.projects.add(input);
    orange.log.info('project added', { project: project.name, path: project.path });
    this.emit({ project }, () => this.log(`added project ${project.name}: ${projectRow(project)}`));
  }
}
