import { inlineText } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';
import { resolveProject } from '../../command/locate.js';
import { writeStderr } from '../../gateway/served-call.js';
import { clip, table } from '../../output/render.js';

export default class MemoryList extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = "List a project's memory: what its completed pipeline tasks taught (.orange/memory/ in its repository).";
  static override description = [
    "Reads .orange/memory/ in the project's repository (the checkout registered with orange project add), oldest first.",
    'An entry arrives there when a completed task is merged and you pull it.',
    '# is the number memory show and memory forget take.',
  ].join(' ');
  static override examples = ['<%= config.bin %> memory list', '<%= config.bin %> memory list --project app --json'];
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(MemoryList);
    const orange = await this.orange();
    const project = await resolveProject(orange, flags.project);
    const { readMemory } = await import('@orange/plugin-pipeline');
    const listing = await readMemory(project.path);
    const entries = listing.entries.map((s, i) => ({ n: i + 1, file: s.file, ...s.entry }));
    for (const bad of listing.unreadable) writeStderr(`${inlineText(`warning: memory entry ${bad.file} skipped: ${bad.error}`)}\n`);
    this.emit({ project: project.name, entries, unreadable: listing.unreadable }, () => {
      if (entries.length === 0) {
        this.log(inlineText(`project ${project.name} has no memory entries yet (${project.path}/.orange/memory/; a completed pipeline task adds one to its branch)`));
        return;
      }
      const rows = entries.map((e) => [
        String(e.n),
        e.completed_at.slice(0, 16).replace('T', ' '),
        e.intent,
        e.start_tier && e.start_tier !== e.tier ? `${e.start_tier}→${e.tier}` : e.tier || '-',
        String(e.attempts),
        `$${e.cost_usd.toFixed(2)}`,
        String(e.failed_checks.reduce((n, c) => n + c.failures, 0)),
        e.task,
        clip(e.summary, 60),
      ]);
      this.log(table(['#', 'COMPLETED', 'INTENT', 'TIER', 'RUNS', 'COST', 'CHECKS FAILED', 'TASK', 'SUMMARY'], rows));
    });
  }
}
