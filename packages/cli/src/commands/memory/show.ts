import * as Args from '@oclif/core/args';
import { blockText, inlineText } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';
import { resolveProject } from '../../command/locate.js';

export default class MemoryShow extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'Show one memory entry: what a completed pipeline task taught, and the line prompts get from it.';
  static override examples = ['<%= config.bin %> memory show 3', '<%= config.bin %> memory show V1StGXR8Z5jdHi6BmyT4a --json'];
  static override args = { entry: Args.string({ ignoreStdin: true, required: true, description: 'The entry: its number in orange memory list (1 is the oldest), or its task id.' }) };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(MemoryShow);
    const orange = await this.orange();
    const project = await resolveProject(orange, flags.project);
    const { memoryLine, readMemory, selectMemory } = await import('@orange/plugin-pipeline');
    const { n, stored } = selectMemory(await readMemory(project.path), args.entry, project.name);
    const { entry } = stored;
    this.emit({ project: project.name, n, file: stored.file, entry, prompt_line: memoryLine(entry) }, () => {
      const fields: Array<[string, string]> = [
        ['file', stored.file],
        ['task', entry.task],
        ['summary', entry.summary],
        ['completed', entry.completed_at],
        ['intent', entry.intent],
        ['phases', entry.phases.join(' → ') || '-'],
        ['tier', entry.start_tier && entry.start_tier !== entry.tier ? `${entry.tier} (started at ${entry.start_tier})` : entry.tier || '(default)'],
        ['runs', String(entry.attempts)],
        ['failed runs', entry.failed_runs.map((r) => `${r.phase} at ${r.tier || '(default)'} ×${r.count}`).join(', ') || 'none'],
        ['cost', `$${entry.cost_usd.toFixed(4)}`],
        ['failed checks', entry.failed_checks.map((c) => `${c.check} ×${c.failures}${c.fixed_by ? ` (fixed by ${c.fixed_by.phase} at ${c.fixed_by.tier || '(default)'})` : ''}`).join('; ') || 'none'],
      ];
      this.log(`memory entry ${n} of project ${inlineText(project.name)}`);
      for (const [key, value] of fields) this.log(inlineText(`${key}: ${value}`));
      this.log(`\nLessons:\n${entry.lessons ? blockText(entry.lessons) : '(none)'}`);
      this.log(`\nIn prompts:\n${inlineText(memoryLine(entry))}`);
    });
  }
}
