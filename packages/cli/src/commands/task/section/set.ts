import { readFile, stat } from 'node:fs/promises';
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../../../command/base-command.js';
import { projectFlag } from '../../../command/flags.js';
import { resolveTaskRef } from '../../../command/locate.js';
import { readStdin } from '../../../command/stdin.js';
import { servedCall } from '../../../gateway/served-call.js';

export default class TaskSectionSet extends OrangeCommand {
  static override audience = 'agent' as const;
  static override summary = "Replace one ## section of a task's TASK.md (Plan, Handoff, Review, …) under the task lock.";
  static override description = [
    'The text comes from --text, from --file, or from standard input with "-" (or --file -). The section is',
    'replaced (or appended when missing); every other byte of TASK.md is kept, the frontmatter too.',
    'The text may not hold its own level-2 heading (## …): use ### inside a section.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> task section set Plan --text "APPROACH: split the parser\nTOUCHING: parser.ts"   # inside the worktree',
    "printf 'DONE: parser split\\n' | <%= config.bin %> task section set Handoff -",
    '<%= config.bin %> task section set Review --file review.md --task V1StGXR8Z5jdHi6BmyT4a',
  ];
  static override args = {
    name: Args.string({ ignoreStdin: true, required: true, description: 'Section heading without ##, e.g. Handoff.' }),
    source: Args.string({ ignoreStdin: true, description: '"-" to read the text from standard input.' }),
  };
  static override flags = {
    project: projectFlag,
    task: Flags.string({ description: "Task id (default: the task whose worktree you are in)." }),
    text: Flags.string({ description: 'The section text.' }),
    file: Flags.string({ description: 'Read the section text from this file ("-": standard input).' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskSectionSet);
    if (args.source !== undefined && args.source !== '-') {
      throw new OrangeError('E_USAGE', `unexpected argument "${args.source}"; give the text with --text, --file or "-" (standard input)`);
    }
    const sources = [flags.text !== undefined, flags.file !== undefined, args.source === '-'].filter(Boolean).length;
    if (sources !== 1) throw new OrangeError('E_USAGE', 'give the section text once: --text TEXT, --file FILE or - (standard input)');
    // The gateway reads no file for a caller (a container's paths are not the server's): its client sends the text.
    if (servedCall() && flags.file !== undefined && flags.file !== '-') {
      throw new OrangeError('E_FORBIDDEN', "a section's text reaches the gateway as standard input (--file -), never as a path for it to read");
    }
    // `--file -` is standard input too, as agents (and most tools) expect.
    const content = flags.text ?? (flags.file !== undefined && flags.file !== '-' ? await readText(flags.file) : await readStdin());
    const orange = await this.orange();
    const ref = await resolveTaskRef(orange, flags.task, flags.project);
    await this.writer(orange, ref, 'writes the sections of');
    const task = await orange.engine.writeSection(ref, args.name, content);
    this.emit({ task: task.meta, section: args.name }, () => this.log(`task ${ref.id}: ## ${args.name} written`));
  }
}

/** Larger files are refused unread (the engine caps one section at 1 MB; /dev/zero never ends). */
const FILE_MAX_BYTES = 1024 * 1024;

async function readText(file: string): Promise<string> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new OrangeError('E_INVALID_INPUT', `${file} is not a regular file`);
    if (info.size > FILE_MAX_BYTES) throw new OrangeError('E_INVALID_INPUT', `${file} is larger than 1 MB`);
    return await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof OrangeError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new OrangeError('E_INVALID_INPUT', `cannot read ${file} (${code})`);
  }
}
