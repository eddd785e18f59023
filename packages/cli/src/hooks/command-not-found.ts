import type { Hook } from '@oclif/core';

/**
 * An unknown command is bad usage like any other: one line (a JSON error object with --json,
 * which agents parse) and exit 2, instead of oclif's decorated multi-line message.
 */
const commandNotFound: Hook<'command_not_found'> = async function (options) {
  const name = options.id.replaceAll(':', ' ');
  const message = `unknown command "${name}"; run: orange --help`;
  if ((options.argv ?? []).includes('--json') || process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: message, code: 'E_USAGE' })}\n`);
  } else {
    process.stderr.write(`orange: ${message}\n`);
  }
  process.exit(2);
};

export default commandNotFound;
