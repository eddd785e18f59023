import type { Hook } from '@oclif/core';
import { EXIT_USAGE, writeError } from '../command/error-output.js';

/**
 * An unknown command is bad usage like any other: one line (a JSON error object with --json,
 * which agents parse) and exit 2, instead of oclif's decorated multi-line message.
 */
const commandNotFound: Hook<'command_not_found'> = async function (options) {
  const name = options.id.replaceAll(':', ' ');
  const message = `unknown command "${name}"; run: orange --help`;
  writeError(message, 'E_USAGE', (options.argv ?? []).includes('--json') || process.argv.includes('--json'));
  process.exit(EXIT_USAGE);
};

export default commandNotFound;
