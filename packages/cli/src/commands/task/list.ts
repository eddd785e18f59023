import * as Flags from '@oclif/core/flags';
import { inlineText, type Task, type Workflow } from '@orange/core';
import { OrangeCommand } from '../../base-command.js';
import { projectFlag } from '../../flags.js';
import { inferProject } from '../../locate.js';
import { agents, ago, clip, table } from '../../render.js';

export default class TaskList extends OrangeCommand {
  static override summary = 'List tasks: active first, then by most recent update.';
  static override description = 'Inside a registered repository only its tasks are listed; elsewhere, or with --all, every project\'s.';
  static override examples = ['<%= config.bin %> task list', '<%= config.bin %> task list --status working --status agent-review', '<%= config.bin %> task list --all --json'];
  static override flags = {
    project: projectFlag,
    status: Flags.string({ char: 's', description: 'Only tasks in this status (repeatable, or comma-separated).', multiple: true }),
    all: Flags.boolean({ char: 'a', description: 'Tasks of every project.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskList);
    const orange = await this.orange();
    const scope = flags.all ? undefined : flags.project ? (await orange.projects.get(flags.project)).name : (await inferProject(orange))?.name;
    const { tasks, unreadable } = await orange.store.list(scope);
    const wanted = new Set((flags.status ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean));
    const workflows = new Map<string, Workflow>();
    const terminal = async (task: Task) => {
      let workflow = workflows.get(task.meta.project);
      if (!workflow) {
        workflow = await orange.workflowForProject(task.meta.project);
        workflows.set(task.meta.project, workflow);
      }
      return workflow.isTerminal(task.meta.status);
    };
    const rows = await Promise.all(tasks.filter((t) => wanted.size === 0 || wanted.has(t.meta.status)).map(async (t) => ({ task: t, done: await terminal(t) })));
    rows.sort((a, b) => Number(a.done) - Number(b.done) || b.task.meta.updated_at.localeCompare(a.task.meta.updated_at));
    const sorted = rows.map((r) => r.task);
    for (const u of unreadable) process.stderr.write(`${inlineText(`warning: task ${u.project}/${u.id} is unreadable: ${u.error}`)}\n`);
    this.emit({ tasks: sorted.map((t) => t.meta), unreadable }, () => {
      if (sorted.length === 0) {
        this.log(scope ? `no tasks in ${scope}` : 'no tasks');
        return;
      }
      const showProject = scope === undefined;
      const headers = ['ID', ...(showProject ? ['PROJECT'] : []), 'STATUS', 'BRANCH', 'AGENTS', 'UPDATED', 'SUMMARY'];
      const body = sorted.map((t) => [
        t.meta.id,
        ...(showProject ? [t.meta.project] : []),
        t.meta.attention ? `${t.meta.status} !` : t.meta.status,
        clip(t.meta.branch, 40),
        agents(t.meta),
        ago(t.meta.updated_at),
        clip(t.meta.summary, 60),
      ]);
      this.log(table(headers, body));
      if (sorted.some((t) => t.meta.attention)) this.log('\n! needs attention (a hook failed); see orange task show <id>');
    });
  }
}
