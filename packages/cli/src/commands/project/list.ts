import { OrangeCommand } from '../../command/base-command.js';
import { table } from '../../output/render.js';

export default class ProjectList extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'List registered projects.';
  static override examples = ['<%= config.bin %> project list', '<%= config.bin %> project list --json'];

  async run(): Promise<void> {
    await this.parse(ProjectList);
    const orange = await this.orange();
    const projects = await orange.projects.list();
    this.emit({ projects }, () => {
      if (projects.length === 0) {
        this.log('no projects; register one with: orange project add');
        return;
      }
      const rows = projects.map((p) => [p.name, p.path, p.default_branch, String(p.pool_size), p.workflow ?? orange.defaultWorkflowName]);
      this.log(table(['NAME', 'PATH', 'BRANCH', 'POOL', 'WORKFLOW'], rows));
    });
  }
}
