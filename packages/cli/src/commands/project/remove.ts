import * as Args from '@oclif/core/args';
import { inlineText, OrangeError } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';

export default class ProjectRemove extends OrangeCommand {
  static override summary = 'Unregister a project and remove its worktrees (the repository and finished tasks are left as they are).';
  static override description = 'Refused while the project has unfinished tasks (cancel them first), or while one of its worktrees is held or has uncommitted changes.';
  static override examples = ['<%= config.bin %> project remove app'];
  static override args = { name: Args.string({ ignoreStdin: true, description: 'Project name.', required: true }) };

  async run(): Promise<void> {
    const { args } = await this.parse(ProjectRemove);
    const orange = await this.orange();
    const project = await orange.projects.get(args.name);
    const { tasks } = await orange.store.list(project.name);
    const finished = await Promise.all(tasks.map(async (t) => (await orange.workflowFor(t.meta)).isTerminal(t.meta.status)));
    const open = tasks.filter((_, i) => !finished[i]);
    if (open.length > 0) {
      throw new OrangeError('E_NOT_ALLOWED', `project ${project.name} has ${open.length} unfinished task${open.length > 1 ? 's' : ''} (${open.map((t) => t.meta.id).slice(0, 3).join(', ')}${open.length > 3 ? ', …' : ''}); cancel them first`);
    }
    const workspaces = (await orange.maybeSlot('workspaces')?.remove?.(project)) ?? [];
    await orange.projects.remove(project.name);
    orange.log.info('project removed', { project: project.name, worktrees: workspaces.length });
    this.emit({ removed: project, worktreesRemoved: workspaces.map((w) => w.path) }, () =>
      this.log(inlineText(`removed project ${project.name} and its ${workspaces.length} worktree${workspaces.length === 1 ? '' : 's'} (${project.path} is untouched)`)),
    );
  }
}
