import { execute } from '@oclif/core/execute';

/**
 * Runs the CLI. `bin/run.js` imports this bundle instead of `@oclif/core`, so that oclif, the
 * command table and @orange/core come from one set of bundled files (one oclif instance, no
 * per-file module resolution on every call).
 */
export async function run(entry: string): Promise<void> {
  await execute({ dir: entry });
}
