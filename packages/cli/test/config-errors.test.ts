/**
 * A config or ORANGE_HOME that cannot be used, as the user meets it through the real CLI: every
 * command ends with one line naming the file (and the place in it), exit 1, and nothing done.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, root, type CliResult } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create();
});
afterAll(() => box?.cleanup());

/** A directory inside the project's repository with its own config (found before the sandbox's). */
async function configDir(name: string, file: string, text: string): Promise<string> {
  const dir = join(box.repo, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, file), text);
  return dir;
}

function explain(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

describe('a config whose top-level await never settles', () => {
  // The interval would keep the process alive after the error if the CLI waited on it.
  const HANGING = 'setInterval(() => {}, 60_000);\nawait new Promise(() => {});\nexport default {};\n';
  const env = { ORANGE_CONFIG_TIMEOUT_MS: '1000' };
  const message = (dir: string) => `${join(dir, 'orange.config.mjs')} did not finish loading within 1 s (a top-level await that never settles?)`;

  it('stops task list with one line and exit 1', async () => {
    const dir = await configDir('hanging', 'orange.config.mjs', HANGING);
    const result = await box.orange(['task', 'list'], { cwd: dir, env });
    expect(result, explain(result)).toEqual({ code: 1, stdout: '', stderr: `orange: ${message(dir)}` });
  });

  it('stops task list --json with one JSON error', async () => {
    const dir = await configDir('hanging', 'orange.config.mjs', HANGING);
    const refused = await box.jsonError(['task', 'list'], { cwd: dir, env });
    expect(refused).toEqual({ code: 'E_CONFIG', error: message(dir), exit: 1 });
  });

  it('stops task create before anything is created', async () => {
    const dir = await configDir('hanging', 'orange.config.mjs', HANGING);
    const refused = await box.jsonError(['task', 'create', 'feature/hang', 'never created'], { cwd: dir, env });
    expect(refused).toEqual({ code: 'E_CONFIG', error: message(dir), exit: 1 });
    const tasks = box.paths.projectTasksDir(box.project);
    expect(existsSync(tasks) ? await readdir(tasks) : []).toEqual([]);
    expect(await box.windows()).toEqual([]);
    expect(await box.git(box.repo, 'branch', '--list', 'feature/hang')).toBe('');
  });
});

describe('a config that does not load', () => {
  it('reports a JavaScript syntax error at its file, line and column', async () => {
    const dir = await configDir('syntax', 'orange.config.mjs', 'export default {\n  poolSize: ;\n};\n');
    const refused = await box.jsonError(['task', 'list'], { cwd: dir });
    expect(refused).toEqual({ code: 'E_CONFIG', error: `${join(dir, 'orange.config.mjs')}:2:13: Unexpected token ";"`, exit: 1 });
  });

  it('reports a malformed .orangerc.yaml with the parser’s reason, on one line', async () => {
    const dir = await configDir('yaml', '.orangerc.yaml', 'poolSize: 3\n  logLevel: [debug\n');
    const result = await box.orange(['task', 'list'], { cwd: dir });
    expect(result, explain(result)).toEqual({ code: 1, stdout: '', stderr: `orange: ${join(dir, '.orangerc.yaml')}:2:11: bad indentation of a mapping entry` });
  });

  it('reports bad options of a plugin made in the config as E_PLUGIN_OPTIONS, naming the config', async () => {
    const tmux = pathToFileURL(join(root, 'plugins/tmux/dist/index.js')).href;
    const dir = await configDir('options', 'orange.config.mjs', `import { tmux } from ${JSON.stringify(tmux)};\n\nexport default {\n  plugins: [tmux({ sockt: 'x' })],\n};\n`);
    const refused = await box.jsonError(['task', 'list'], { cwd: dir });
    expect(refused.code).toBe('E_PLUGIN_OPTIONS');
    expect(refused.error).toMatch(new RegExp(`^${join(dir, 'orange.config.mjs')}:4:\\d+: plugin tmux: unknown option "sockt"$`));
  });
});

describe('a plugin whose apply throws', () => {
  it('stops every command with one line naming the plugin and the place in the local plugin file', async () => {
    const dir = await configDir('apply', 'orange.config.ts', "import { veto } from './plugins/veto.js';\n\nexport default { plugins: [veto()] };\n");
    await mkdir(join(dir, 'plugins'));
    await writeFile(
      join(dir, 'plugins', 'veto.ts'),
      [
        "import { definePlugin, OrangeError } from '@orange/core';",
        '',
        'export function veto() {',
        '  return definePlugin({',
        "    name: 'veto',",
        '    apply(orange) {',
        "      if (!orange.plugins.includes('slack')) throw new OrangeError('E_CONFIG', 'veto needs the slack plugin listed before it');",
        '    },',
        '  });',
        '}',
        '',
      ].join('\n'),
    );
    const result = await box.orange(['task', 'list'], { cwd: dir });
    expect(result, explain(result)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'orange: plugin veto failed in apply: veto needs the slack plugin listed before it (plugins/veto.ts:7:52)',
    });
  });
});

describe('an ORANGE_HOME that is not a usable directory', () => {
  it('is refused with E_HOME by every command, the log included', async () => {
    const home = join(box.dir, 'home-is-a-file');
    await writeFile(home, 'not a directory\n');
    const expected = { code: 'E_HOME', error: `ORANGE_HOME ${home} is not a directory (set ORANGE_HOME to a writable directory)`, exit: 1 };
    for (const args of [['task', 'list'], ['project', 'list'], ['log']]) {
      expect(await box.jsonError(args, { env: { ORANGE_HOME: home } }), args.join(' ')).toEqual(expected);
    }
    const human = await box.orange(['task', 'list'], { env: { ORANGE_HOME: home } });
    expect(human, explain(human)).toEqual({ code: 1, stdout: '', stderr: `orange: ${expected.error}` });
  });
});

describe('a very long invalid name', () => {
  it('is clipped in the one-line error', async () => {
    const name = 'x'.repeat(10_000);
    const refused = await box.jsonError(['project', 'add', box.repo, '--name', `-${name}`]);
    expect(refused.code).toBe('E_INVALID_NAME');
    expect(refused.error).toBe(`project name "-${'x'.repeat(59)}…" (10001 characters) must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit`);
  });
});
