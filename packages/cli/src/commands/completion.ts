import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { completionScript, shellOf, SHELLS } from '../completion/script.js';
import { completionSpec, type CommandDefinition } from '../completion/spec.js';
import { valueLines } from '../completion/values.js';
import { callerPlace, writeStdout } from '../gateway/served-call.js';

export default class Completion extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'Print the shell completion script for bash, zsh or fish.';
  static override description =
    "Completes commands, topics, flags, task ids and project names (read from the store when Tab is pressed). The script is generated from this orange's commands: print it again after an upgrade. See docs/cli.md.";
  static override examples = [
    { description: 'bash, in this shell:', command: 'source <(<%= config.bin %> completion bash)' },
    { description: 'bash, in every shell:', command: '<%= config.bin %> completion bash >> ~/.bashrc' },
    { description: 'zsh (~/.zfunc on $fpath before compinit, in ~/.zshrc: fpath=(~/.zfunc $fpath)):', command: '<%= config.bin %> completion zsh > ~/.zfunc/_orange' },
    { description: 'fish:', command: '<%= config.bin %> completion fish > ~/.config/fish/completions/orange.fish' },
  ];
  static override args = {
    shell: Args.string({ ignoreStdin: true, options: [...SHELLS], description: 'The shell (default: the one $SHELL names).' }),
  };
  // What the scripts call on Tab: the values offered, one a line, and nothing at all on an error.
  static override flags = {
    list: Flags.string({ hidden: true, options: ['tasks', 'projects'], description: 'Print task ids or project names, one a line.' }),
    project: Flags.string({ hidden: true, description: "With --list tasks: only this project's." }),
    describe: Flags.boolean({ hidden: true, description: 'With --list tasks: each id, a tab, its status and summary.', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Completion);
    if (flags.list) {
      const lines = await valueLines(flags.list as 'tasks' | 'projects', { project: flags.project, describe: flags.describe, env: callerPlace().env });
      if (lines.length > 0) writeStdout(`${lines.join('\n')}\n`);
      return;
    }
    const shell = (args.shell as (typeof SHELLS)[number] | undefined) ?? shellOf(callerPlace().env.SHELL);
    if (!shell) throw new OrangeError('E_USAGE', `say which shell: orange completion ${SHELLS.join('|')}`);
    const table: Record<string, CommandDefinition> = {};
    for (const command of this.config.commands) table[command.id] = (await command.load()) as CommandDefinition;
    const script = completionScript(shell, completionSpec(this.config.bin, table, this.config.topics));
    this.emit({ shell, script }, () => writeStdout(script));
  }
}
