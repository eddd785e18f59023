import * as Flags from '@oclif/core/flags';
import { OrangeError } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { readLog, formatRecord } from '../output/log-reader.js';

export default class Log extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = "Show Orange's log ($ORANGE_HOME/orange.log), newest last.";
  static override examples = [
    '<%= config.bin %> log',
    '<%= config.bin %> log --level warn --lines 200',
    '<%= config.bin %> log --component monitor --grep V1StGXR8Z5jdHi6BmyT4a',
  ];
  static override flags = {
    level: Flags.string({ char: 'l', description: 'Minimum level.', options: ['debug', 'info', 'warn', 'error'] }),
    component: Flags.string({ char: 'c', description: 'Only this component (core, monitor, tmux, worktree-pool, …).' }),
    grep: Flags.string({ char: 'g', description: 'Only records whose line contains this text (case-insensitive).' }),
    lines: Flags.integer({ char: 'n', description: 'How many of the matching records to show.', default: 50, min: 1 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Log);
    // No config or plugins needed: the log lives at a fixed place under $ORANGE_HOME.
    const { OrangePaths } = await import('@orange/core');
    const paths = OrangePaths.fromEnv();
    await paths.checkHome();
    const { records, malformed } = await readLog(paths.logFile, {
      level: flags.level as 'debug' | 'info' | 'warn' | 'error' | undefined,
      component: flags.component,
      grep: flags.grep,
      lines: flags.lines,
    });
    if (records === null) throw new OrangeError('E_INVALID_INPUT', `no log yet at ${paths.logFile}`);
    this.emit({ file: paths.logFile, records, malformed }, () => {
      for (const record of records) this.log(formatRecord(record));
    });
  }
}
