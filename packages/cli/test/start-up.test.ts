import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, root } from './cli-sandbox.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-start-up-'));
  // An explicit empty config ends the search here: no config above the temp dir is loaded.
  await writeFile(join(dir, '.orangerc.json'), '{}\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The module files `orange …args` loads, outside Node's own. */
async function modulesLoadedBy(args: readonly string[]): Promise<{ files: string[]; output: string }> {
  const trace = join(dir, `trace-${args.join('-')}`);
  const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ...env } = process.env;
  const run = await execa(process.execPath, ['-r', fileURLToPath(new URL('./module-trace.cjs', import.meta.url)), CLI, ...args], {
    cwd: dir,
    env: { ...env, ORANGE_HOME: join(dir, 'home'), ORANGE_TEST_MODULE_TRACE: trace },
    extendEnv: false,
    reject: false,
  });
  const output = `exit ${String(run.exitCode)}\nstdout:\n${String(run.stdout)}\nstderr:\n${String(run.stderr)}`;
  expect(run.exitCode, output).toBe(0);
  const files = [...new Set((await readFile(trace, 'utf8').catch(() => '')).split('\n').filter(Boolean))];
  return { files, output };
}

describe('start-up', () => {
  it('an agent command runs from the CLI bundle: no module of node_modules or of another package is loaded', async () => {
    const { files, output } = await modulesLoadedBy(['task', 'list', '--json']);
    const bundle = pathToFileURL(join(root, 'packages/cli')).href;
    expect(files.length, `no module was traced\n${output}`).toBeGreaterThan(0);
    // bin/run.js, then dist/main.js, dist/commands.js and their chunks.
    expect(files.filter((f) => !f.startsWith(`${bundle}/bin/`) && !f.startsWith(`${bundle}/dist/`)), output).toEqual([]);
  });

  it('--version and --help load no command code (they read oclif.manifest.json)', async () => {
    for (const flag of ['--version', '--help']) {
      const { files, output } = await modulesLoadedBy([flag]);
      expect(files.filter((f) => f.endsWith('/dist/commands.js')), output).toEqual([]);
    }
  });
});
