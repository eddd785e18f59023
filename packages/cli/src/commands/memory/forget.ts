import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { inlineText, OrangeError } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';
import { resolveProject } from '../../command/locate.js';

export default class MemoryForget extends OrangeCommand {
  static override summary = "Forget memory entries: remove their files from the project's checkout (commit the removal to share it).";
  static override description = [
    "Removes .orange/memory/<entry>.json from the project's repository checkout.",
    'Tasks read the memory their branch was made from, so they forget an entry once its removal is committed to the default branch (and pushed).',
    'Git keeps what a commit had: git restore brings an entry back.',
  ].join(' ');
  static override examples = ['<%= config.bin %> memory forget 3', '<%= config.bin %> memory forget V1StGXR8Z5jdHi6BmyT4a', '<%= config.bin %> memory forget --all --project app'];
  static override args = { entry: Args.string({ ignoreStdin: true, description: 'The entry: its number in orange memory list (1 is the oldest), or its task id.' }) };
  static override flags = {
    project: projectFlag,
    all: Flags.boolean({ description: "Forget every entry of the project's memory.", default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(MemoryForget);
    if ((args.entry === undefined) === !flags.all) throw new OrangeError('E_USAGE', 'name one entry (its number in orange memory list, or its task id) or pass --all, not both');
    const orange = await this.orange();
    const project = await resolveProject(orange, flags.project);
    const { forgetMemory, readMemory, selectMemory } = await import('@orange/plugin-pipeline');
    const listing = await readMemory(project.path);
    const chosen = flags.all ? listing.entries.map((stored, i) => ({ n: i + 1, stored })) : [selectMemory(listing, args.entry as string, project.name)];
    await forgetMemory(project.path, chosen.map((c) => c.stored.file));
    const forgotten = chosen.map(({ n, stored }) => ({ n, file: stored.file, task: stored.entry.task }));
    this.emit({ project: project.name, forgotten }, () => {
      if (forgotten.length === 0) {
        this.log(inlineText(`project ${project.name} has no memory entries; nothing to forget`));
        return;
      }
      for (const f of forgotten) this.log(inlineText(`forgot entry ${f.n} (task ${f.task}): removed ${f.file}`));
      this.log(inlineText(`commit the removal in ${project.path} so that tasks forget it too`));
    });
  }
}
