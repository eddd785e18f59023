/**
 * Config discovery and validation as a user meets them: a file in a directory (or above it),
 * the built-in default when there is none, one-line errors naming the bad field, plugin option
 * errors naming the plugin, and `$ORANGE_HOME` choosing the data root.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { cannotRunHere, errorOf, NOBODY, nobodyCannotRead, recordingPlugin } from '../../test/fixtures.js';
import { configSearchStart, ConfigSchema, configTimeoutMs, loadConfig, parseConfig } from './config.js';
import { OrangeError } from '../errors/errors.js';
import { Orange } from '../orange.js';
import { defineConfig, parsePluginOptions, type OrangePlugin } from '../plugin/index.js';
import { OrangePaths } from '../store/paths.js';
import { defaultWorkflow } from '../workflow/default.js';

let dir: string;
beforeEach(async () => {
  // realpath: cosmiconfig reports the file under the resolved path (macOS /var → /private/var).
  dir = await realpath(await mkdtemp(join(tmpdir(), 'orange-config-')));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await mkdir(resolve(file, '..'), { recursive: true });
  await writeFile(file, text);
  return file;
}

describe('defineConfig', () => {
  it('returns its input unchanged (it exists only for types)', () => {
    const plugin: OrangePlugin = { name: 'p', apply() {} };
    const input = { poolSize: 3, plugins: [plugin], workflow: defaultWorkflow };
    expect(defineConfig(input)).toBe(input);
    expect(defineConfig(input)).toEqual({ poolSize: 3, plugins: [plugin], workflow: defaultWorkflow });
  });
});

describe('the documented defaults', () => {
  it('are what a config without options reads as (the Options table of docs/configuration.md)', async () => {
    const docs = await readFile(repositoryFile('docs/configuration.md'), 'utf8');
    const table = docs.slice(docs.indexOf('## Options'), docs.indexOf('Harness choice for one agent'));
    const documented: Record<string, unknown> = {};
    for (const line of table.split('\n').filter((l) => l.startsWith('| `'))) {
      // Cells split at "|" but not at the escaped "\|" inside the type column.
      const [, option = '', , value = ''] = line.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/^`|`$/g, ''));
      // "—" means no default: the option is absent.
      if (value !== '—') documented[option] = JSON.parse(value.replace(/'/g, '"'));
    }
    expect(Object.keys(documented).sort()).toEqual(['defaults', 'logLevel', 'notifications', 'plugins', 'pollIntervalMs', 'poolSize', 'workflow', 'workflows']);
    await write('.orangerc.json', '{}');
    expect((await loadConfig(dir)).config).toEqual(documented);
    expect(parseConfig({}, null)).toEqual(documented);
  });
});

describe('loadConfig discovery', () => {
  it('loads orange.config.ts through jiti, TypeScript-only syntax included', async () => {
    const file = await write(
      'orange.config.ts',
      `interface Shape { poolSize: number; logLevel: 'debug' | 'info' }
const size: number = 3;
const config: Shape = { poolSize: size, logLevel: 'debug' as const };
export default config satisfies Shape;
`,
    );
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config).toMatchObject({ poolSize: 3, logLevel: 'debug' });
  });

  it('loads orange.config.mjs (default export)', async () => {
    const file = await write('orange.config.mjs', 'export default { pollIntervalMs: 1000, harness: "codex" };\n');
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config).toMatchObject({ pollIntervalMs: 1000, harness: 'codex' });
  });

  it('loads .orangerc.json', async () => {
    const file = await write('.orangerc.json', JSON.stringify({ reviewHarness: 'claude', poolSize: 5 }));
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config).toMatchObject({ reviewHarness: 'claude', poolSize: 5 });
  });

  it('loads the "orange" key of package.json', async () => {
    const file = await write('package.json', JSON.stringify({ name: 'app', orange: { workflow: 'classic', logLevel: 'warn' } }));
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config).toMatchObject({ workflow: 'classic', logLevel: 'warn' });
  });

  it('searches upward from a subdirectory, skipping a package.json without an "orange" key', async () => {
    const file = await write('.orangerc.json', JSON.stringify({ poolSize: 7 }));
    await write('packages/app/package.json', JSON.stringify({ name: 'app' }));
    const loaded = await loadConfig(join(dir, 'packages', 'app'));
    expect(loaded.file).toBe(file);
    expect(loaded.config.poolSize).toBe(7);
  });

  it('falls back to the built-in default when there is no config file', async () => {
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBeNull();
    expect(loaded.config).toEqual(ConfigSchema.parse({}));
    expect(loaded.config).toMatchObject({ plugins: [], defaults: true, workflow: 'default', poolSize: 2, pollIntervalMs: 30_000, logLevel: 'info' });
  });

  it('treats an empty .orangerc.json object as the defaults', async () => {
    await write('.orangerc.json', '{}');
    const loaded = await loadConfig(dir);
    expect(loaded.config).toEqual(ConfigSchema.parse({}));
  });

  it('gives an agent in a worktree under $ORANGE_HOME the config of its project’s repository', async () => {
    const home = join(dir, 'home');
    const repo = join(dir, 'repo');
    const file = await write('repo/orange.config.mjs', 'export default { poolSize: 4 };\n');
    const paths = new OrangePaths(home);
    const orange = await Orange.create({ plugins: [recordingPlugin([])] }, { paths });
    await orange.projects.add({ name: 'demo', path: repo, default_branch: 'main' });
    const worktree = join(paths.workspaceDir('demo', 1), 'src');
    await mkdir(worktree, { recursive: true });

    expect(await configSearchStart(worktree, paths)).toBe(repo);
    const loaded = await loadConfig(worktree, paths);
    expect(loaded.file).toBe(file);
    expect(loaded.config.poolSize).toBe(4);
  });
});

describe('config errors', () => {
  it('names the file and the field in one line for an invalid value', async () => {
    const file = await write('.orangerc.json', JSON.stringify({ poolSize: 0 }));
    const error = await errorOf(loadConfig(dir));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toContain(file);
    expect(error.message).toContain('field "poolSize"');
    expect(error.message).not.toContain('\n');
    expect(error.details).toMatchObject({ file, field: 'poolSize' });
  });

  it('names a wrongly typed field from a TypeScript config', async () => {
    await write('orange.config.ts', `const level: string = 'loud';\nexport default { logLevel: level };\n`);
    const error = await errorOf(loadConfig(dir));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toMatch(/field "logLevel"/);
    expect(error.message).not.toContain('\n');
  });

  it('names an unknown option (a typo) instead of ignoring it', async () => {
    await write('.orangerc.json', JSON.stringify({ poolsize: 3 }));
    const error = await errorOf(loadConfig(dir));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toContain('unknown option "poolsize"');
  });

  it('gives the dotted path of a nested bad field', () => {
    expect(() => parseConfig({ plugins: [{ name: 'tmux', apply() {} }, 'tmux'] }, 'orange.config.ts')).toThrow(/field "plugins\.1"/);
    let error: unknown;
    try {
      parseConfig({ plugins: ['tmux'] }, 'orange.config.ts');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'E_CONFIG', details: { field: 'plugins.0' } });
    expect((error as Error).message).toContain('did you forget to call the factory');
  });

  it('names every mistake of an inline workflow in one line, not only the first', () => {
    const workflow = { ...defaultWorkflow, initial: 5, transitions: [{ from: 'pending', to: 'planning', by: ['robot'] }] };
    let error: unknown;
    try {
      parseConfig({ workflow }, 'orange.config.ts');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'E_CONFIG', details: { field: 'workflow.initial', fields: ['workflow.initial', 'workflow.transitions.0.by.0'] } });
    expect((error as Error).message).toMatch(/^orange\.config\.ts: field "workflow\.initial" .*; field "workflow\.transitions\.0\.by\.0" Invalid option: expected one of "agent"\|"person"\|"orange"$/);
    expect((error as Error).message).not.toContain('\n');
  });

  it('says "built-in config" when there is no file to name', () => {
    expect(() => parseConfig({ pollIntervalMs: 10 }, null)).toThrow(/^built-in config: field "pollIntervalMs"/);
  });

  it('reports a config file that does not parse as one E_CONFIG line', async () => {
    const file = await write('.orangerc.json', '{ "poolSize": 3, ');
    const error = await errorOf(loadConfig(dir));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toBe(`${file}:1:18: Expected double-quoted property name`);
  });

  it('names a field of an invalid inline workflow by its nested path, as it does under workflows', async () => {
    const broken = { ...defaultWorkflow, states: 'none' };
    const inline = await errorOf(Orange.create({ workflow: broken }, { paths: new OrangePaths(join(dir, 'home')), configFile: 'orange.config.ts' }));
    const listed = await errorOf(Orange.create({ workflows: [broken] }, { paths: new OrangePaths(join(dir, 'home')), configFile: 'orange.config.ts' }));
    expect(listed.message).toBe('orange.config.ts: field "workflows.0.states" Invalid input: expected record, received string');
    expect(inline.message).toBe('orange.config.ts: field "workflow.states" Invalid input: expected record, received string');
    expect(inline.details).toMatchObject({ field: 'workflow.states' });
  });

  it('still says what a workflow name must be when `workflow` is neither a name nor a definition', () => {
    expect(() => parseConfig({ workflow: 3 }, 'orange.config.ts')).toThrow(/^orange\.config\.ts: field "workflow" Invalid input/);
  });

  it('refuses an invalid config at Orange.create with the same error', async () => {
    const error = await errorOf(Orange.create({ poolSize: -1 }, { paths: new OrangePaths(join(dir, 'home')), configFile: 'orange.config.ts' }));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toContain('orange.config.ts: field "poolSize"');
  });
});

describe('config files that do not load', () => {
  it('reports a YAML syntax error as file:line:column: reason', async () => {
    const file = await write('.orangerc.yaml', 'poolSize: 3\n  logLevel: [debug\n');
    const error = await errorOf(loadConfig(dir));
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${file}:2:11: bad indentation of a mapping entry`, details: { file, line: 2, column: 11 } });
  });

  it('reports a JSON syntax error where JSON.parse gives no position, on one line', async () => {
    const file = await write('.orangerc.json', '{\n  "poolSize": 3,\n  "logLevel": tru\n}\n');
    const error = await errorOf(loadConfig(dir));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toBe(`${file}:3:15: Unexpected token '\\n'`);
  });

  it('reports a syntax error in package.json with its place', async () => {
    const file = await write('package.json', '{ "name": "app", "orange": { "poolSize": 3 } ]');
    expect((await errorOf(loadConfig(dir))).message).toBe(`${file}:1:46: Expected ',' or '}' after property value`);
  });

  it('reports a TypeScript syntax error with file, line and column', async () => {
    const file = await write('orange.config.ts', 'const size: number = 3;\nexport default {\n  poolSize: size,\n  logLevel: ,\n};\n');
    const error = await errorOf(loadConfig(dir));
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${file}:4:13: Unexpected token ","` });
  });

  it('places an error thrown while a TypeScript config runs at its line and column as written', async () => {
    const file = await write(
      'orange.config.ts',
      [
        'interface Shape { poolSize: number }',
        'function size(from: string): number { throw new RangeError(`no size in ${from}`); }',
        'export default { poolSize: size("env") } satisfies Shape;',
        '',
      ].join('\n'),
    );
    const error = await errorOf(loadConfig(dir));
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${file}:2:45: RangeError: no size in env` });
  });

  it('places an error thrown while a JavaScript config runs', async () => {
    const file = await write('orange.config.mjs', 'const port = 1;\nif (port) throw new Error("no port");\nexport default {};\n');
    expect((await errorOf(loadConfig(dir))).message).toBe(`${file}:2:17: no port`);
  });

  it('names the config file, the importing file, its line and column, and what to do when a module is missing', async () => {
    const ts = await write('ts/orange.config.ts', 'import { notify } from "./plugins/notify";\nexport default { plugins: [notify()] };\n');
    expect((await errorOf(loadConfig(join(dir, 'ts')))).message).toBe(
      `${ts}: Cannot find module './plugins/notify' imported from orange.config.ts:1:24 — check the path (a TypeScript file is imported by its name, with .js or without an extension)`,
    );
    const mjs = await write('mjs/orange.config.mjs', '// the team config\nimport { notify } from "orange-plugin-that-is-not-installed";\nexport default { plugins: [notify()] };\n');
    const error = await errorOf(loadConfig(join(dir, 'mjs')));
    expect(error.code).toBe('E_CONFIG');
    expect(error.message).toBe(
      `${mjs}: Cannot find module 'orange-plugin-that-is-not-installed' imported from orange.config.mjs:2:24 — install it in this repository (npm install orange-plugin-that-is-not-installed)`,
    );
  });

  it('names the local plugin file, line and column where a plugin file throws while it loads', async () => {
    const file = await write('orange.config.ts', "import { veto } from './plugins/veto.js';\nexport default { plugins: [veto()] };\n");
    await write('plugins/veto.ts', "const channel: string | undefined = process.env.NO_SUCH_CHANNEL;\nif (!channel) throw new Error('set NO_SUCH_CHANNEL');\nexport const veto = () => ({ name: 'veto', apply() {} });\n");
    expect((await errorOf(loadConfig(dir))).message).toBe(`${file}: set NO_SUCH_CHANNEL (thrown at plugins/veto.ts:2:21)`);
  });

  it('names the local plugin file, line and column of a syntax error in a plugin file the config imports', async () => {
    const file = await write('orange.config.ts', "import { veto } from './plugins/veto.js';\nexport default { plugins: [veto()] };\n");
    const plugin = await write('plugins/veto.ts', "export const veto = () => ({\n  name: 'veto',\n  apply() { return ; },\n  options: { size: , },\n});\n");
    const error = await errorOf(loadConfig(dir));
    expect(error).toMatchObject({ code: 'E_CONFIG', message: `${file}: ${plugin}:4:20: Unexpected token ","`, details: { file } });
  });

  it('names the local plugin file and its line when the plugin imports a missing package', async () => {
    const file = await write('orange.config.ts', "import { veto } from './plugins/veto.js';\nexport default { plugins: [veto()] };\n");
    await write('plugins/veto.ts', "import type { OrangePlugin } from '@orange/core';\n\nimport { slack } from '@acme/slack-sdk/client';\nexport const veto = (): OrangePlugin => ({ name: 'veto', apply() { slack(); } });\n");
    expect((await errorOf(loadConfig(dir))).message).toBe(
      `${file}: Cannot find module '@acme/slack-sdk/client' imported from plugins/veto.ts:3:23 — install it in this repository (npm install @acme/slack-sdk)`,
    );
  });

  it("keeps a plugin factory's E_PLUGIN_OPTIONS, prefixed by the config file and the line of the call", async () => {
    // The built core, as a plugin package imports it (turbo builds before testing); compiling
    // core's sources through jiti would take seconds.
    const core = pathToFileURL(resolve('dist/index.js')).href;
    const zod = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;
    await write(
      'plugins/picky.ts',
      [
        `import { parsePluginOptions } from ${JSON.stringify(core)};`,
        `import { z } from ${JSON.stringify(zod)};`,
        'export const picky = (options?: unknown) => {',
        '  const { size } = parsePluginOptions("picky", z.object({ size: z.number().default(1) }).strict(), options);',
        '  return { name: "picky", apply() {}, size };',
        '};',
        '',
      ].join('\n'),
    );
    const file = await write('orange.config.ts', 'import { picky } from "./plugins/picky";\n\nexport default {\n  plugins: [picky({ sise: 2 })],\n};\n');
    const error = await errorOf(loadConfig(dir));
    expect(error).toMatchObject({ code: 'E_PLUGIN_OPTIONS', details: { plugin: 'picky', field: 'sise', file } });
    // The column is where the source map puts the call (jiti compiles the import into `(0, _picky.picky)(…)`).
    expect(error.message).toMatch(new RegExp(`^${file}:4:\\d+: plugin picky: unknown option "sise"$`));
  });

  it('gives up on a config whose top-level await never settles, naming the file', async () => {
    vi.stubEnv('ORANGE_CONFIG_TIMEOUT_MS', '300');
    const file = await write('orange.config.mjs', 'await new Promise(() => {});\nexport default {};\n');
    const error = await errorOf(loadConfig(dir));
    expect(error).toMatchObject({
      code: 'E_CONFIG',
      message: `${file} did not finish loading within 300 ms (a top-level await that never settles?)`,
      details: { file, timeoutMs: 300 },
    });
  });

  it('allows 30 s by default and refuses an ORANGE_CONFIG_TIMEOUT_MS that is not a positive whole number', async () => {
    expect(configTimeoutMs({})).toBe(30_000);
    expect(configTimeoutMs({ ORANGE_CONFIG_TIMEOUT_MS: '2500' })).toBe(2500);
    for (const bad of ['0', '-5', '1.5', 'soon']) {
      expect(() => configTimeoutMs({ ORANGE_CONFIG_TIMEOUT_MS: bad })).toThrow(/^ORANGE_CONFIG_TIMEOUT_MS must be a positive whole number of milliseconds/);
    }
    vi.stubEnv('ORANGE_CONFIG_TIMEOUT_MS', 'soon');
    expect((await errorOf(loadConfig(dir))).code).toBe('E_CONFIG');
  });
});

describe('plugin options', () => {
  const schema = z.object({ poolSize: z.number().int().positive().default(2), git: z.object({ remote: z.string() }).optional() }).strict();

  it('returns the parsed options with defaults filled, also for no options at all', () => {
    expect(parsePluginOptions('worktree-pool', schema, { poolSize: 4 })).toEqual({ poolSize: 4 });
    expect(parsePluginOptions('worktree-pool', schema, undefined)).toEqual({ poolSize: 2 });
  });

  it('names the plugin and the field of a bad value', () => {
    let error: unknown;
    try {
      parsePluginOptions('worktree-pool', schema, { poolSize: 'two' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OrangeError);
    expect(error).toMatchObject({
      code: 'E_PLUGIN_OPTIONS',
      message: expect.stringMatching(/^plugin worktree-pool: option "poolSize" /),
      details: { plugin: 'worktree-pool', field: 'poolSize' },
    });
  });

  it('names a nested field by its dotted path', () => {
    expect(() => parsePluginOptions('github', schema, { git: { remote: 1 } })).toThrow(/^plugin github: option "git\.remote" /);
  });

  it('names an unknown option', () => {
    expect(() => parsePluginOptions('tmux', schema, { poolsize: 2 })).toThrow('plugin tmux: unknown option "poolsize"');
  });

  it('a plugin that throws in apply is refused at Orange.create, naming the plugin', async () => {
    const broken: OrangePlugin = {
      name: 'broken',
      apply() {
        throw new Error('binary not found');
      },
    };
    const error = await errorOf(Orange.create({ plugins: [recordingPlugin([]), broken] }, { paths: new OrangePaths(join(dir, 'home')) }));
    expect(error).toMatchObject({ code: 'E_CONFIG', message: 'plugin broken failed in apply: binary not found', details: { plugin: 'broken' } });
  });

  it('an options error raised inside a plugin keeps its code and details, and says which plugin was being applied', async () => {
    const picky: OrangePlugin = {
      name: 'picky',
      apply() {
        parsePluginOptions('picky', schema, { poolSize: 0 });
      },
    };
    const error = await errorOf(Orange.create({ plugins: [recordingPlugin([]), picky] }, { paths: new OrangePaths(join(dir, 'home')) }));
    expect(error).toMatchObject({ code: 'E_PLUGIN_OPTIONS', details: { plugin: 'picky', field: 'poolSize' } });
    expect(error.message).toMatch(/^plugin picky failed in apply: plugin picky: option "poolSize" /);
  });

  it("places a throw in a local plugin file's apply at that file's line and column as written", async () => {
    await write(
      'plugins/veto.ts',
      [
        "import type { OrangePlugin } from '@orange/core';",
        'interface Options { channel?: string }',
        'export function veto(options: Options = {}): OrangePlugin {',
        "  return { name: 'veto', apply() { if (!options.channel) throw new TypeError('veto needs a channel'); } };",
        '}',
        '',
      ].join('\n'),
    );
    await write('orange.config.ts', "import { veto } from './plugins/veto.js';\nexport default { plugins: [veto()] };\n");
    const loaded = await loadConfig(dir);
    const error = await errorOf(Orange.create(loaded.config, { paths: new OrangePaths(join(dir, 'home')), configFile: loaded.file }));
    expect(error).toMatchObject({ code: 'E_CONFIG', message: 'plugin veto failed in apply: TypeError: veto needs a channel (plugins/veto.ts:4:64)' });
  });

  it('names the plugin and the place of an OrangeError thrown in apply by a plugin written in the config', async () => {
    const core = pathToFileURL(resolve('dist/index.js')).href;
    const file = await write(
      'orange.config.ts',
      [
        `import { OrangeError } from ${JSON.stringify(core)};`,
        "const strict = { name: 'strict', apply(): void {",
        "  throw new OrangeError('E_NOT_ALLOWED', 'strict refuses to start', { reason: 'test' });",
        '} };',
        'export default { plugins: [strict] };',
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(dir);
    expect(loaded.file).toBe(file);
    const error = await errorOf(Orange.create(loaded.config, { paths: new OrangePaths(join(dir, 'home')), configFile: loaded.file }));
    expect(error).toMatchObject({
      code: 'E_NOT_ALLOWED',
      message: 'plugin strict failed in apply: strict refuses to start (orange.config.ts:3:9)',
      details: { plugin: 'strict', reason: 'test' },
    });
  });
});

describe('ORANGE_HOME', () => {
  it('selects the data root', () => {
    const paths = OrangePaths.fromEnv({ ORANGE_HOME: join(dir, 'data') });
    expect(paths.home).toBe(join(dir, 'data'));
    expect(paths.projectsFile).toBe(join(dir, 'data', 'projects.json'));
    expect(paths.taskFile('demo', 'x')).toBe(join(dir, 'data', 'tasks', 'demo', 'x', 'agent', 'TASK.md'));
  });

  it('defaults to ~/orange when unset or blank', () => {
    expect(OrangePaths.fromEnv({}).home).toBe(join(homedir(), 'orange'));
    expect(OrangePaths.fromEnv({ ORANGE_HOME: '  ' }).home).toBe(join(homedir(), 'orange'));
  });

  it('resolves a relative ORANGE_HOME against the working directory', () => {
    expect(OrangePaths.fromEnv({ ORANGE_HOME: 'rel/home' }).home).toBe(resolve('rel/home'));
  });

  it('is where an Orange created without explicit paths keeps its data', async () => {
    const home = join(dir, 'env-home');
    vi.stubEnv('ORANGE_HOME', home);
    const orange = await Orange.create({ plugins: [recordingPlugin([])] });
    expect(orange.paths.home).toBe(home);
    await orange.projects.add({ name: 'demo', path: join(dir, 'repo'), default_branch: 'main' });
    expect(existsSync(join(home, 'projects.json'))).toBe(true);
  });
});

describe('an unusable ORANGE_HOME', () => {
  const create = (home: string) => Orange.create({ plugins: [recordingPlugin([])] }, { paths: new OrangePaths(home) });

  it('is refused with one E_HOME line when it is a file', async () => {
    const home = await write('home-file', 'not a directory\n');
    const error = await errorOf(create(home));
    expect(error).toMatchObject({ code: 'E_HOME', message: `ORANGE_HOME ${home} is not a directory (set ORANGE_HOME to a writable directory)` });
  });

  it('is refused when a part of its path is a file', async () => {
    const file = await write('home-file', 'not a directory\n');
    const error = await errorOf(create(join(file, 'orange')));
    expect(error).toMatchObject({ code: 'E_HOME', message: expect.stringContaining('a part of its path is a file') });
  });

  it('is refused when it is not writable (as root, checked by a process of user nobody: root may write anywhere)', async (context) => {
    const unreachable = process.getuid?.() === 0 ? nobodyCannotRead(builtCore()) : null;
    if (unreachable) cannotRunHere(context, unreachable);
    // A folder every user can reach (mkdtemp's are the owner's only), holding one nobody can write.
    const open = await mkdtemp(join(tmpdir(), 'orange-home-ro-'));
    try {
      await chmod(open, 0o755);
      const home = join(open, 'read-only');
      await mkdir(home, { mode: 0o555 });
      const error = await homeErrorAsUser(home);
      expect(error).toMatchObject({ code: 'E_HOME', message: expect.stringContaining('is not writable') });
      const below = await homeErrorAsUser(join(home, 'orange'));
      expect(below).toMatchObject({ code: 'E_HOME', message: expect.stringContaining(`cannot be created: ${home} is not writable`) });
    } finally {
      await rm(open, { recursive: true, force: true });
    }
  });

  it('is accepted when missing, and created when first written', async () => {
    const home = join(dir, 'new', 'orange');
    const orange = await create(home);
    expect(existsSync(home)).toBe(false);
    await orange.projects.add({ name: 'demo', path: join(dir, 'repo'), default_branch: 'main' });
    expect(existsSync(join(home, 'projects.json'))).toBe(true);
  });
});

describe('the TypeScript config loader cache', () => {
  it('returns the same config when the same TS file is loaded twice in one process', async () => {
    await write('orange.config.ts', `const size: number = 3;\nexport default { poolSize: size, harness: 'claude' };\n`);
    const first = await loadConfig(dir);
    const second = await loadConfig(dir);
    expect(second).toEqual(first);
    expect(second.config).toMatchObject({ poolSize: 3, harness: 'claude' });
  });

  it('sees an edit of the TS file on the next load (the cache never serves stale content)', async () => {
    await write('orange.config.ts', `const size: number = 3;\nexport default { poolSize: size };\n`);
    expect((await loadConfig(dir)).config.poolSize).toBe(3);
    await write('orange.config.ts', `const size: number = 6;\nexport default { poolSize: size };\n`);
    expect((await loadConfig(dir)).config.poolSize).toBe(6);
  });
});

describe('imports a config shares with the code that loads it', () => {
  // The modules the loader hands over (the CLI passes its @orange/core, plugins and zod).
  const modules = { '@orange/core': { OrangeError }, zod: { z } };

  it('gives a config and its local plugin files the very modules passed in, in a directory with no node_modules', async () => {
    await write('package.json', JSON.stringify({ name: 'team-repo', type: 'module' }));
    await write('orange.config.ts', "import { OrangeError } from '@orange/core';\nimport { veto } from './plugins/veto.js';\nexport default { plugins: [veto(OrangeError)] };\n");
    await write(
      'plugins/veto.ts',
      "import * as core from '@orange/core';\nimport { z } from 'zod';\nexport const veto = (given: unknown) => ({ name: 'veto', apply() {}, given, core: core.OrangeError, schema: z.object({ n: z.number() }) });\n",
    );
    const loaded = await loadConfig(dir, undefined, { modules });
    const plugin = loaded.config.plugins[0] as unknown as { given: unknown; core: unknown; schema: z.ZodType };
    expect(plugin.given).toBe(OrangeError);
    expect(plugin.core).toBe(OrangeError);
    // Built by this process's zod: instanceof holds and it parses here.
    expect(plugin.schema).toBeInstanceOf(z.ZodObject);
    expect(plugin.schema.parse({ n: 1 })).toEqual({ n: 1 });
  });

  it('gives a JavaScript config the shared modules too, and a JavaScript plugin file it imports', async () => {
    await write('package.json', JSON.stringify({ name: 'team-repo', type: 'module' }));
    await write('orange.config.mjs', "import { z } from 'zod';\nimport { tag } from './plugins/tag.js';\nexport default { plugins: [{ name: 'tag', apply() {}, z, tag }] };\n");
    await write('plugins/tag.js', "import { OrangeError } from '@orange/core';\nexport const tag = OrangeError;\n");
    const plugin = (await loadConfig(dir, undefined, { modules })).config.plugins[0] as unknown as { z: unknown; tag: unknown };
    expect(plugin.z).toBe(z);
    expect(plugin.tag).toBe(OrangeError);
  });

  it('prefers the shared module to a copy the repository installed itself', async () => {
    await write('package.json', JSON.stringify({ name: 'team-repo', type: 'module' }));
    await write('node_modules/@orange/core/package.json', JSON.stringify({ name: '@orange/core', type: 'module', exports: './index.js' }));
    await write('node_modules/@orange/core/index.js', 'export const OrangeError = "the repository\'s copy";\n');
    await write('orange.config.ts', "import { OrangeError } from '@orange/core';\nexport default { plugins: [{ name: 'p', apply() {}, OrangeError }] };\n");
    const shared = (await loadConfig(dir, undefined, { modules })).config.plugins[0] as unknown as { OrangeError: unknown };
    expect(shared.OrangeError).toBe(OrangeError);
    // Without shared modules the repository's own copy is what resolves.
    const own = (await loadConfig(dir)).config.plugins[0] as unknown as { OrangeError: unknown };
    expect(own.OrangeError).toBe("the repository's copy");
  });
});

/**
 * The error Orange.create gives for `home`, asked by this user — or, when this is root (CI runs as
 * root, and root may write anywhere), by a process of user nobody (65534) on the built core.
 */
async function homeErrorAsUser(home: string): Promise<{ code?: string; message?: string } | null> {
  if (process.getuid?.() !== 0) {
    const error = await errorOf(Orange.create({ plugins: [recordingPlugin([])] }, { paths: new OrangePaths(home) }));
    return { code: error.code, message: error.message };
  }
  const core = pathToFileURL(builtCore()).href;
  const script = `const { Orange, OrangePaths } = await import(${JSON.stringify(core)});
try { await Orange.create({ plugins: [] }, { paths: new OrangePaths(${JSON.stringify(home)}) }); console.log('null'); }
catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`;
  const stdout = await new Promise<string>((done, fail) =>
    execFile(process.execPath, ['--input-type=module', '-e', script], { ...NOBODY, cwd: '/', env: { PATH: process.env.PATH ?? '', HOME: '/' } }, (error, out, err) =>
      error ? fail(new Error(`the check as user nobody failed: ${error.message}\n${err}`)) : done(out),
    ),
  );
  return JSON.parse(stdout) as { code?: string; message?: string } | null;
}

/** The built core, which a process of another user imports. */
function builtCore(): string {
  return repositoryFile('packages/core/dist/index.js');
}

/** A file of the repository, found upwards from this test (which may run from a copy: mutation testing's sandbox). */
function repositoryFile(path: string): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, path))) return join(dir, path);
  }
  throw new Error(`${path} not found above ${import.meta.dirname}`);
}
