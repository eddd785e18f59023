import type { Hook } from '@oclif/core';
import { EXIT_USAGE, writeError } from '../command/error-output.js';

/**
 * An unknown command is bad usage like any other: one line (a JSON error object with --json,
 * which agents parse) and exit 2, instead of oclif's decorated multi-line message.
 */
const commandNotFound: Hook<'command_not_found'> = async function (options) {
  const words = options.id.split(':');
  // `orange help [COMMAND…]` and `orange version`, as people type them: the same as --help and --version.
  const asked = [...words.slice(1), ...(options.argv ?? [])].filter((w) => !w.startsWith('-'));
  const target = asked.join(':');
  if (words[0] === 'help' && (asked.length === 0 || this.config.findCommand(target) || this.config.findTopic(target))) {
    const { Help } = await import('@oclif/core');
    await new Help(this.config).showHelp(asked);
    return;
  }
  if (options.id === 'version' && (options.argv ?? []).length === 0) {
    process.stdout.write(`${this.config.userAgent}\n`);
    return;
  }
  const name = words[0] === 'help' ? asked.join(' ') : words.join(' ');
  const message = `unknown command "${name}"; run: orange --help`;
  writeError(message, 'E_USAGE', (options.argv ?? []).includes('--json') || process.argv.includes('--json'));
  process.exit(EXIT_USAGE);
};

export default commandNotFound;
