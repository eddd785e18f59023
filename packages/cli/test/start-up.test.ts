import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
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
    const cli = pathToFileURL(join(root, 'packages/cli')).href;
    expect(files.length, `no module was traced\n${output}`).toBeGreaterThan(0);
    // bin/run.cjs, its entry (the gateway's small client — a scripted call tries the gateway first;
    // none listens here — and the code-cache loader) and the one bundle.
    expect(files.sort(), output).toEqual([`${cli}/bin/run.cjs`, `${cli}/dist/entry.cjs`, `${cli}/dist/main.cjs`]);
  });
});

describe('scripts beside the bundle', () => {
  it('the agent wrapper and the window reaper load and answer bad usage themselves (exit 2, no crash)', async () => {
    for (const script of ['agent-wrapper.cjs', 'window-reaper.js']) {
      const run = await execa(process.execPath, [join(root, 'packages/cli/dist', script)], { reject: false });
      const output = `${script}: exit ${String(run.exitCode)}\n${String(run.stdout)}\n${String(run.stderr)}`;
      expect(run.exitCode, output).toBe(2);
      expect(String(run.stderr), output).not.toMatch(/Error:|at .*\.js:\d+/);
    }
  });
});

describe('code cache', () => {
  /** Runs `orange …args` with its code cache in `cacheDir`. */
  async function orange(args: readonly string[], cacheDir: string, extraEnv: Record<string, string> = {}) {
    const run = await execa(process.execPath, [CLI, ...args], {
      cwd: dir,
      env: { ORANGE_HOME: join(dir, 'home'), ORANGE_CODE_CACHE_DIR: cacheDir, ...extraEnv },
      reject: false,
    });
    expect(run.exitCode, `exit ${String(run.exitCode)}\n${String(run.stdout)}\n${String(run.stderr)}`).toBe(0);
    return run;
  }
  const cacheFiles = async (cacheDir: string) => (await readdir(cacheDir).catch(() => [] as string[])).filter((f) => f.endsWith('.v8'));

  it('is written by the first call, read by the next, and grows once per new command', async () => {
    const cacheDir = join(dir, 'cache-grows');
    await orange(['--version'], cacheDir);
    const [file] = await cacheFiles(cacheDir);
    expect(file, 'no cache file after the first call').toMatch(/^cli-[0-9a-f]{8}-v\d+\.\d+\.\d+-/);
    const first = await stat(join(cacheDir, file!));

    await orange(['--version'], cacheDir);
    expect((await stat(join(cacheDir, file!))).mtimeMs, 'a command the cache has seen rewrote it').toBe(first.mtimeMs);

    await orange(['project', 'list', '--json'], cacheDir);
    const grown = await stat(join(cacheDir, file!));
    expect(grown.size, 'a new command did not add what it compiled').toBeGreaterThan(first.size);
    expect(await cacheFiles(cacheDir)).toEqual([file]);
  });

  it('a config loaded by dynamic import (.mjs) still loads once the cache is accepted', async () => {
    const cacheDir = join(dir, 'cache-import');
    const project = join(dir, 'with-mjs-config');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'orange.config.mjs'), "export default { harness: 'codex' };\n");
    for (let call = 0; call < 3; call++) {
      const run = await execa(process.execPath, [CLI, 'project', 'list', '--json'], {
        cwd: project,
        env: { ORANGE_HOME: join(dir, 'home'), ORANGE_CODE_CACHE_DIR: cacheDir },
        reject: false,
      });
      expect(run.exitCode, `call ${call}: ${String(run.stdout)}\n${String(run.stderr)}`).toBe(0);
    }
    expect(await cacheFiles(cacheDir)).toHaveLength(1);
  });

  it('a corrupt or foreign cache file is replaced and the call still succeeds', async () => {
    const cacheDir = join(dir, 'cache-corrupt');
    await orange(['--version'], cacheDir);
    const [file] = await cacheFiles(cacheDir);
    for (const junk of [Buffer.from('not a cache'), Buffer.concat([Buffer.from([2, 0, 0, 0]), Buffer.from('[]'), Buffer.alloc(4096, 7)])]) {
      await writeFile(join(cacheDir, file!), junk);
      const run = await orange(['--version'], cacheDir);
      expect(String(run.stdout)).toMatch(/^@orange\/cli\//);
      expect((await stat(join(cacheDir, file!))).size, 'the junk was not replaced').toBeGreaterThan(100_000);
    }
  });

  it('an unwritable cache directory or NODE_DISABLE_COMPILE_CACHE only means no cache', async () => {
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, 'a file where the cache directory would be\n');
    await orange(['--version'], join(blocker, 'cache'));
    const cacheDir = join(dir, 'cache-disabled');
    await orange(['--version'], cacheDir, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(await cacheFiles(cacheDir)).toEqual([]);
  });
});
