import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Paths only: nothing here reads the build, so a test that never runs the CLI needs none.

/** The monorepo's root folder. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The built CLI's entry (`node orangeCli …`): the tests that run it run what users run. */
export const orangeCli = join(repoRoot, 'packages/cli/bin/run.cjs');

/** The scripted interactive agent of the demo and the tests (its directives are listed at its top). */
export const scriptedAgent = join(repoRoot, 'packages/cli/agents/scripted-agent.mjs');

/** The scripted headless agent of pipeline runs. */
export const pipelineAgent = join(repoRoot, 'packages/cli/agents/pipeline-agent.mjs');

/** The file URL of a workspace package's built entry (`plugins/tmux` → …/dist/index.js), for import lines in a config. */
export function builtEntryUrl(workspace: string): string {
  return pathToFileURL(join(repoRoot, workspace, 'dist/index.js')).href;
}
