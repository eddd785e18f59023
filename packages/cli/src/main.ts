import { execute } from '@oclif/core/execute';
import { settings } from '@oclif/core/settings';
import { onlyDashboardFlags } from './startup/dashboard-args.js';

/**
 * Runs the CLI. `bin/run.cjs` imports this bundle instead of `@oclif/core`, so that oclif, the
 * command table and @orange/core come from one set of bundled files (one oclif instance, no
 * per-file module resolution on every call).
 */
export async function run(entry: string): Promise<void> {
  // The bundle is the only code there is. Left on, oclif looks for TypeScript sources whenever
  // NODE_ENV is development or test (an agent's environment may say so) and loads the 9 MB
  // typescript package to read tsconfig.json.
  settings.enableAutoTranspile = false;
  // Plain `orange` in a terminal opens the dashboard, and so does `orange` with only the
  // dashboard's own flags (`orange --all`, `orange -p web`); without a terminal (a script, an
  // agent) it prints the help.
  const args = process.argv.slice(2);
  const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const dashboard = terminal && (args.length === 0 || onlyDashboardFlags(args));
  await execute({ dir: entry, ...(dashboard ? { args: ['dash', ...args] } : {}) });
}


// oclif takes the command table and the hooks from this same bundle (package.json names
// `dist/main.cjs` as every target), so they share its one instance of oclif and @orange/core.
export { COMMANDS } from './startup/commands.js';
export { default as commandNotFound } from './hooks/command-not-found.js';
export { default as commitInVersion } from './hooks/commit-in-version.js';
