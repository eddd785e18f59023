/**
 * Orange as a team outside this monorepo gets it: every package is packed with `npm pack`,
 * installed with `npm install` into a fresh repository in a temp directory (from a registry on
 * 127.0.0.1 serving the packed tarballs and their dependencies packed from the monorepo's
 * node_modules, so no network is needed), and a config that imports @orange/core, a built-in
 * plugin, a notifier, zod and a local plugin file runs a task there with the installed `orange`;
 * then that `orange` scaffolds a plugin whose own test passes with the vitest installed there,
 * and its doctor reports the local plugin.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ledgerStatus, OrangePaths, readHistory, TaskStore } from '@orange/core';
import { httpReceiver, makeOrigin, repoRoot as root, TEST_GIT_IDENTITY, TmuxServer, waitFor, type HttpReceiver } from '@orange/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryFiles } from '../../../scripts/entry-files.mjs';
import { LocalRegistry } from './local-registry.js';

// Every package under packages/ and plugins/ that is not private: a new plugin is covered as it lands.
const PUBLISHED = ['packages', 'plugins'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => `${group}/${name}`)
    .filter((dir) => existsSync(join(root, dir, 'package.json')) && !(JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { private?: boolean }).private),
);
const PLUGINS = PUBLISHED.filter((p) => p.startsWith('plugins/'));

let dir: string;
let registry: LocalRegistry;
/** The team's repository, made by the install test and used by the ones after it. */
let repo = '';
const receivers: HttpReceiver[] = [];
let env: Record<string, string>;
const tmux = TmuxServer.fresh('pack');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orange-packages-'));
  await mkdir(join(dir, 'tarballs'));
  // vitest too: the team runs the test `orange init --plugin` scaffolds.
  registry = await LocalRegistry.start(root, PUBLISHED, join(dir, 'tarballs'), ['vitest']);
  const { TMUX: _t, TMUX_PANE: _p, ORANGE_TASK_ID: _i, ORANGE_PROJECT: _j, ORANGE_HOME: _h, ...inherited } = process.env;
  env = {
    ...(inherited as Record<string, string>),
    ...TEST_GIT_IDENTITY,
    ORANGE_HOME: join(dir, 'home'),
    ORANGE_TMUX_SOCKET: tmux.socket,
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
  await tmux.kill();
  await registry?.stop();
  for (const receiver of receivers) await receiver.close();
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

function explain(result: { exitCode?: number; stdout?: unknown; stderr?: unknown }): string {
  return `exit ${result.exitCode}\nstdout: ${String(result.stdout)}\nstderr: ${String(result.stderr)}`;
}

describe('the packed packages', () => {
  it('each carry dist, types, exports, a README, the LICENSE, a repository and caret ranges; plugins take @orange/core as a peer', async () => {
    const rootManifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { repository?: { url?: string } };
    const license = await readFile(join(root, 'LICENSE'), 'utf8');
    const problems: string[] = [];
    for (const workspace of PUBLISHED) {
      const manifest = JSON.parse(await readFile(join(root, workspace, 'package.json'), 'utf8')) as Record<string, unknown> & {
        name: string;
        exports?: Record<string, { types?: string; import?: string } | string>;
        bin?: Record<string, string>;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        repository?: { type?: string; url?: string; directory?: string };
        scripts?: Record<string, string>;
      };
      const packed = registry.packed.find((p) => p.name === manifest.name);
      if (!packed) {
        problems.push(`${manifest.name}: not packed`);
        continue;
      }
      const listing = await execa('tar', ['-tzf', packed.file]);
      const files = String(listing.stdout).split('\n').map((f) => f.replace(/^package\//, ''));
      const cli = workspace === 'packages/cli';
      const need = ['package.json', 'README.md', 'LICENSE', ...(cli ? ['bin/run.cjs', 'oclif.manifest.json', 'dist/main.cjs', 'dist/entry.cjs', 'agents/scripted-agent.mjs'] : ['dist/index.js', 'dist/index.d.ts'])];
      for (const file of need) if (!files.includes(file)) problems.push(`${manifest.name}: ${file} is not in the tarball`);
      // Whatever package.json points at must be in the tarball: an entry nobody builds is a broken install.
      for (const file of entryFiles(manifest)) if (!files.includes(file.replace(/^\.\//, ''))) problems.push(`${manifest.name}: ${file}, named in package.json, is not in the tarball`);
      if (files.some((f) => f.startsWith('src/') || f.endsWith('.test.ts'))) problems.push(`${manifest.name}: sources or tests are in the tarball`);
      if (cli) {
        if (manifest.bin?.orange !== './bin/run.cjs') problems.push(`${manifest.name}: bin "orange" must be ./bin/run.cjs`);
      } else {
        const main = manifest.exports?.['.'];
        if (typeof main !== 'object' || main.types !== './dist/index.d.ts' || main.import !== './dist/index.js') problems.push(`${manifest.name}: exports "." must give types and import from dist`);
      }
      const text = await execa('tar', ['-xzOf', packed.file, 'package/LICENSE'], { reject: false });
      if (files.includes('LICENSE') && String(text.stdout).trim() !== license.trim()) problems.push(`${manifest.name}: its LICENSE differs from the repository's`);
      if (manifest.repository?.url !== rootManifest.repository?.url || manifest.repository?.directory !== workspace) {
        problems.push(`${manifest.name}: repository must be { url: ${JSON.stringify(rootManifest.repository?.url)}, directory: "${workspace}" }`);
      }
      if (manifest.scripts?.prepack === undefined) problems.push(`${manifest.name}: no prepack build guard`);
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (!name.startsWith('@orange/') && !range.startsWith('^')) problems.push(`${manifest.name}: dependency ${name} is pinned (${range}); give a caret range`);
      }
      if (PLUGINS.includes(workspace)) {
        if (manifest.peerDependencies?.['@orange/core'] === undefined) problems.push(`${manifest.name}: @orange/core is not a peer dependency`);
        if (manifest.dependencies?.['@orange/core'] !== undefined) problems.push(`${manifest.name}: @orange/core must not be a dependency (a second core)`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('install into a repository outside the monorepo, where a config with a local plugin and a notifier loads and runs a task', async () => {
    repo = join(dir, 'team-repo');
    const origin = join(dir, 'origin.git');
    await makeOrigin(origin, repo, {
      files: {
        'README.md': '# the team repo\n',
        'package.json': `${JSON.stringify({ name: 'team-repo', private: true, type: 'module' }, null, 2)}\n`,
        '.gitignore': 'node_modules\n',
      },
    });

    // As the docs tell a team: the CLI, and core, a plugin, zod and vitest for types and tests.
    const install = await execa('npm', ['install', '--ignore-scripts', '-D', '@orange/cli', '@orange/core', '@orange/harness-command', 'zod', 'vitest'], { cwd: repo, env, reject: false });
    expect(install.exitCode, explain(install)).toBe(0);
    const installed = await readdir(join(repo, 'node_modules', '@orange'));
    // The dashboard and the web page come with the CLI (loaded only by `orange dash` and `orange web`: ink cannot be in its bundle).
    expect(installed.sort()).toEqual(['cli', 'core', 'dashboard', 'harness-command', 'web']);
    // ink and react are bundled into the dashboard (one file to load, not ~100 modules): it loads without them.
    expect(await readdir(join(repo, 'node_modules')).then((names) => names.filter((n) => n === 'ink' || n === 'react'))).toEqual([]);
    const dashboard = await execa('node', ['-e', "import('@orange/dashboard').then((m) => console.log(typeof m.openDashboard))"], { cwd: repo, env, reject: false });
    expect(dashboard.stdout, explain(dashboard)).toBe('function');
    // The web server bundles ws, and its page is built into the package: it loads and finds the page without them.
    const web = await execa('node', ['--input-type=module', '-e', "const m = await import('@orange/web'); const { existsSync } = await import('node:fs'); console.log(typeof m.openWeb, existsSync(new URL('./app/index.html', import.meta.resolve('@orange/web'))));"], { cwd: repo, env, reject: false });
    expect(web.stdout, explain(web)).toBe('function true');

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
    // The Slack notifier is not installed here: the CLI hands over its own copy.
    const slackHook = await httpReceiver();
    receivers.push(slackHook);
    await writeFile(
      join(repo, 'orange.config.ts'),
      `import { defineConfig } from '@orange/core';
import { command } from '@orange/harness-command';
import { slack } from '@orange/notifier-slack';
import { audit } from './plugins/audit.js';

export default defineConfig({
  plugins: [
    command({ name: 'scripted', worker: [${JSON.stringify(process.execPath)}, ${JSON.stringify(agent)}] }),
    audit({ file: ${JSON.stringify(join(dir, 'audit.log'))} }),
    slack({ url: ${JSON.stringify(slackHook.url)}, retries: 0 }),
  ],
  harness: 'scripted',
  logLevel: 'debug',
  notifications: { routes: { action: ['slack'] } },
});
`,
    );
    const orange = installedOrange(repo);
    const added = await orange('project', 'add', '--name', 'team');
    expect(added.exitCode, explain(added)).toBe(0);
    const created = await orange('task', 'create', 'feature/greeting', 'Add a greeting', '--json');
    expect(created.exitCode, explain(created)).toBe(0);
    const id = (JSON.parse(String(created.stdout)) as { task: { id: string } }).task.id;

    // The scripted worker plans, works and hands off; the scripted reviewer passes: reviewing.
    const paths = new OrangePaths(join(dir, 'home'));
    const store = new TaskStore(paths);
    const log = async () => `orange.log:\n${(await readFile(paths.logFile, 'utf8').catch(() => '')).slice(-4000)}`;
    await waitFor(
      `task ${id} to reach reviewing`,
      async () => (await store.read('team', id)).meta.status === 'reviewing' && ledgerStatus(await readHistory(paths.historyFile('team', id))) === 'reviewing',
      { timeoutMs: 60_000, everyMs: 200, explain: log },
    );
    // afterTransition runs after the status and its ledger line are written: wait for its line.
    const audited = async () => (await readFile(join(dir, 'audit.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    await waitFor('four lines in audit.log', async () => (await audited()).length >= 4, { explain: async () => (await audited()).join('\n') });
    expect(await audited()).toEqual([
      `${id} pending -> planning`,
      `${id} planning -> working`,
      `${id} working -> agent-review`,
      `${id} agent-review -> reviewing`,
    ]);
    // reviewing is an `action` notification: the notifier the config imported delivered it.
    await waitFor('the Slack post "Ready for review"', () => slackHook.requests.some((r) => r.body.includes('Ready for review')), {
      explain: async () => `posts:\n${slackHook.requests.map((r) => r.body).join('\n')}\n${await log()}`,
    });
    await orange('task', 'cancel', id, '--yes');
    await tmux.run('kill-server');
    // The agent wrappers and the exit reports they start carry `--task <id>`; the sandbox goes after them.
    await waitFor(`no process of task ${id}`, async () => (await execa('pgrep', ['-f', '--', `--task ${id}`], { reject: false })).exitCode !== 0);
  });

  it('from there, the installed orange scaffolds a plugin whose own test passes with the installed vitest, and its doctor reports the local plugin', async () => {
    expect(repo, 'the previous test made the team repository').toBeTruthy();
    const orange = installedOrange(repo);
    const init = await orange('init', '--no-register', '--plugin', 'notify-team', '--json');
    expect(init.exitCode, explain(init)).toBe(0);
    expect(JSON.parse(String(init.stdout))).toMatchObject({ files: ['plugins/notify-team.ts', 'plugins/notify-team.test.ts'], next: expect.stringContaining('orange.config.ts') });
    const vitest = await execa(join(repo, 'node_modules', '.bin', 'vitest'), ['run', 'plugins/notify-team.test.ts'], { cwd: repo, env: { ...env, CI: '1' }, reject: false, timeout: 60_000 });
    expect(vitest.exitCode, explain(vitest)).toBe(0);
    expect(String(vitest.stdout)).toMatch(/3 passed/);

    const doctor = await orange('doctor', '--json');
    const report = JSON.parse(String(doctor.stdout)) as {
      plugins: { name: string; from: string }[];
      versions: { installed: { name: string; ok: boolean }[] };
      problems: string[];
    };
    expect(report.plugins.find((p) => p.name === 'audit')?.from, explain(doctor)).toMatch(/^plugins\/audit\.ts:\d+$/);
    expect(report.plugins.find((p) => p.name === 'slack')?.from).toBe('built-in, options from orange.config.ts');
    expect(report.versions.installed.map((c) => [c.name, c.ok])).toEqual([
      ['@orange/core', true],
      ['@orange/harness-command', true],
      ['zod', true],
    ]);
    expect(report.problems, explain(doctor)).toEqual([]);
    expect(doctor.exitCode).toBe(0);
  });
});

/** The `orange` the team installed, run in `cwd`. */
function installedOrange(cwd: string) {
  return (...args: string[]) => execa(join(cwd, 'node_modules', '.bin', 'orange'), args, { cwd, env, reject: false, timeout: 60_000 });
}
