/**
 * Orange as a team outside this monorepo gets it: every package is packed with `npm pack`,
 * installed with `npm install` into a fresh repository in a temp directory (from a registry on
 * 127.0.0.1 serving the packed tarballs and their dependencies packed from the monorepo's
 * node_modules, so no network is needed), and a config that imports @orange/core, a built-in
 * plugin, zod and a local plugin file runs a task there with the installed `orange`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { ledgerStatus, OrangePaths, readHistory, TaskStore } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRegistry } from './local-registry.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
// Every package under packages/ and plugins/ that is not private: a new plugin is covered as it lands.
const PUBLISHED = ['packages', 'plugins'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => `${group}/${name}`)
    .filter((dir) => existsSync(join(root, dir, 'package.json')) && !(JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { private?: boolean }).private),
);
const PLUGINS = PUBLISHED.filter((p) => p.startsWith('plugins/'));
const GIT_ENV = { GIT_AUTHOR_NAME: 'Orange Test', GIT_AUTHOR_EMAIL: 'test@orange.invalid', GIT_COMMITTER_NAME: 'Orange Test', GIT_COMMITTER_EMAIL: 'test@orange.invalid' };

let dir: string;
let registry: LocalRegistry;
let env: Record<string, string>;
const socket = `orange-pack-${process.pid}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-packages-'));
  await mkdir(join(dir, 'tarballs'));
  registry = await LocalRegistry.start(root, PUBLISHED, join(dir, 'tarballs'));
  const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ORANGE_HOME: _h, ...inherited } = process.env;
  env = {
    ...(inherited as Record<string, string>),
    ...GIT_ENV,
    ORANGE_HOME: join(dir, 'home'),
    ORANGE_TMUX_SOCKET: socket,
    // npm: only the local registry, a cache of its own, nothing else asked of the network.
    npm_config_registry: registry.url,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_userconfig: join(dir, 'npmrc'),
  };
}, 180_000);

afterAll(async () => {
  await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

function explain(result: { exitCode?: number; stdout?: unknown; stderr?: unknown }): string {
  return `exit ${result.exitCode}\nstdout: ${String(result.stdout)}\nstderr: ${String(result.stderr)}`;
}

describe('the packed packages', () => {
  it('each carry dist, types, exports, a README and their dependencies; plugins take @orange/core as a peer', async () => {
    const problems: string[] = [];
    for (const workspace of PUBLISHED) {
      const manifest = JSON.parse(await readFile(join(root, workspace, 'package.json'), 'utf8')) as Record<string, unknown> & {
        name: string;
        exports?: Record<string, { types?: string; import?: string }>;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      const packed = registry.packed.find((p) => p.name === manifest.name);
      if (!packed) {
        problems.push(`${manifest.name}: not packed`);
        continue;
      }
      const listing = await execa('tar', ['-tzf', packed.file]);
      const files = String(listing.stdout).split('\n').map((f) => f.replace(/^package\//, ''));
      const need = ['package.json', 'README.md', 'dist/index.js', ...(workspace === 'packages/cli' ? ['bin/run.js', 'oclif.manifest.json', 'dist/main.cjs', 'dist/code-cache.js', 'agents/scripted-agent.mjs'] : ['dist/index.d.ts'])];
      for (const file of need) if (!files.includes(file)) problems.push(`${manifest.name}: ${file} is not in the tarball`);
      if (files.some((f) => f.startsWith('src/') || f.endsWith('.test.ts'))) problems.push(`${manifest.name}: sources or tests are in the tarball`);
      if (workspace !== 'packages/cli' && (manifest.exports?.['.']?.types !== './dist/index.d.ts' || manifest.exports['.'].import !== './dist/index.js')) {
        problems.push(`${manifest.name}: exports "." must give types and import from dist`);
      }
      if (PLUGINS.includes(workspace)) {
        if (manifest.peerDependencies?.['@orange/core'] === undefined) problems.push(`${manifest.name}: @orange/core is not a peer dependency`);
        if (manifest.dependencies?.['@orange/core'] !== undefined) problems.push(`${manifest.name}: @orange/core must not be a dependency (a second core)`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('install into a repository outside the monorepo, where a config with a local plugin loads and runs a task', async () => {
    const repo = join(dir, 'team-repo');
    const origin = join(dir, 'origin.git');
    const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd, env });
    await git(dir, 'init', '-q', '--bare', '-b', 'main', origin);
    await git(dir, 'clone', '-q', origin, repo);
    await writeFile(join(repo, 'README.md'), '# the team repo\n');
    await writeFile(join(repo, 'package.json'), `${JSON.stringify({ name: 'team-repo', private: true, type: 'module' }, null, 2)}\n`);
    await writeFile(join(repo, '.gitignore'), 'node_modules\n');
    await git(repo, 'checkout', '-q', '-b', 'main');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '-q', '-m', 'initial commit');
    await git(repo, 'push', '-q', '-u', 'origin', 'main');
    await git(repo, 'remote', 'set-head', 'origin', 'main');

    // As the docs tell a team: the CLI, and core, a plugin and zod for types and tests.
    const install = await execa('npm', ['install', '--ignore-scripts', '-D', '@orange/cli', '@orange/core', '@orange/harness-command', 'zod'], { cwd: repo, env, reject: false });
    expect(install.exitCode, explain(install)).toBe(0);
    const installed = await readdir(join(repo, 'node_modules', '@orange'));
    // The dashboard comes with the CLI (loaded only by `orange dash`: ink cannot be in its bundle).
    expect(installed.sort()).toEqual(['cli', 'core', 'dashboard', 'harness-command']);
    // ink and react are bundled into the dashboard (one file to load, not ~100 modules): it loads without them.
    expect(await readdir(join(repo, 'node_modules')).then((names) => names.filter((n) => n === 'ink' || n === 'react'))).toEqual([]);
    const dashboard = await execa('node', ['-e', "import('@orange/dashboard').then((m) => console.log(typeof m.openDashboard))"], { cwd: repo, env, reject: false });
    expect(dashboard.stdout, explain(dashboard)).toBe('function');

    await mkdir(join(repo, 'plugins'));
    await writeFile(
      join(repo, 'plugins', 'audit.ts'),
      `import { appendFile } from 'node:fs/promises';
import { definePlugin, Orange, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { z } from 'zod';

const Options = z.object({ file: z.string().min(1) }).strict();

/** Appends every transition to a file; refuses to run on anything but the CLI's own Orange. */
export function audit(options: z.input<typeof Options>): OrangePlugin {
  const { file } = parsePluginOptions('audit', Options, options);
  return definePlugin({
    name: 'audit',
    apply(orange) {
      if (!(orange instanceof Orange)) throw new Error('audit was given an Orange of another @orange/core');
      orange.hooks.afterTransition.tapPromise('audit', async ({ task, from, to }) => {
        await appendFile(file, \`\${task.meta.id} \${from} -> \${to}\\n\`);
      });
    },
  });
}
`,
    );
    const agent = join(repo, 'node_modules', '@orange', 'cli', 'agents', 'scripted-agent.mjs');
    await writeFile(
      join(repo, 'orange.config.ts'),
      `import { defineConfig } from '@orange/core';
import { command } from '@orange/harness-command';
import { audit } from './plugins/audit.js';

export default defineConfig({
  plugins: [
    command({ name: 'scripted', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(agent)}] }),
    audit({ file: ${JSON.stringify(join(dir, 'audit.log'))} }),
  ],
  harness: 'scripted',
  logLevel: 'debug',
});
`,
    );
    const orange = (...args: string[]) => execa(join(repo, 'node_modules', '.bin', 'orange'), args, { cwd: repo, env, reject: false, timeout: 60_000 });
    const added = await orange('project', 'add', '--name', 'team');
    expect(added.exitCode, explain(added)).toBe(0);
    const created = await orange('task', 'create', 'feature/greeting', 'Add a greeting', '--json');
    expect(created.exitCode, explain(created)).toBe(0);
    const id = (JSON.parse(String(created.stdout)) as { task: { id: string } }).task.id;

    // The scripted worker plans, works and hands off; the scripted reviewer passes: reviewing.
    const store = new TaskStore(new OrangePaths(join(dir, 'home')));
    const deadline = Date.now() + 60_000;
    let status = '';
    while (Date.now() < deadline) {
      const task = await store.read('team', id).catch(() => null);
      const history = await readHistory(new OrangePaths(join(dir, 'home')).historyFile('team', id));
      status = task?.meta.status ?? '';
      if (status === 'reviewing' && ledgerStatus(history) === 'reviewing') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const log = await readFile(join(dir, 'home', 'orange.log'), 'utf8').catch(() => '');
    expect(status, `orange.log:\n${log.slice(-4000)}`).toBe('reviewing');
    // afterTransition runs after the status and its ledger line are written: wait for its line.
    const audited = async () => (await readFile(join(dir, 'audit.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    const auditDeadline = Date.now() + 10_000;
    while ((await audited()).length < 4 && Date.now() < auditDeadline) await new Promise((r) => setTimeout(r, 100));
    expect(await audited()).toEqual([
      `${id} pending -> planning`,
      `${id} planning -> working`,
      `${id} working -> agent-review`,
      `${id} agent-review -> reviewing`,
    ]);
    await orange('task', 'cancel', id, '--yes');
    await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
    // The agent wrappers and the exit reports they start carry `--task <id>`; the sandbox goes after them.
    const reportsDeadline = Date.now() + 10_000;
    while (Date.now() < reportsDeadline && (await execa('pgrep', ['-f', '--', `--task ${id}`], { reject: false })).exitCode === 0) {
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
